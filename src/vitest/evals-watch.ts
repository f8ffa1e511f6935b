/**
 * `npx vitest evals` in Vitest's own watch mode (`--watch`, or `npx vitest evals` on a terminal). Vitest
 * reruns a test file when a module it imports changes; the files a run is made from (the config, the
 * question file, the subject prompt, a system's files) are not modules, and the global setup planned
 * the run once. So, from the global setup:
 * - a change of one of those files (the plan's inputs, run/watch/inputs.ts) reruns the eval files, a
 *   burst of saves once, through Vitest's own rerun (its reporters say it as any rerun);
 * - before every rerun, whatever started it (an input, or a source file Vitest saw change), the request
 *   is planned again and the new plan provided, so the cases never run on a plan the files no longer
 *   make. The stages then ask only the cells no store holds, as in any run.
 * What it does not do: say the estimate and wait for a key before paid calls, list the changed cases or
 * gate against a baseline; `rge eval watch` does (src/cli/watch.ts).
 */
import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type LoadContext, planFromRequest, type RunPlan, type RunRequest } from '../run/plan/index.ts';
import { changesCells, watchedInputs } from '../run/watch/inputs.ts';
import { RgeError } from '../util/errors.ts';
import { HANDOFF_KEY } from './handoff.ts';

/** How long the inputs must be quiet before their change reruns the eval files. */
const DEBOUNCE_MS = 200;

/** Reruns every eval file of the project; a call while one is going on makes one more after it. */
function rerunner(project: TestProject): () => void {
  let running = false;
  let again = false;
  const rerun = async () => {
    const { testFiles } = await project.globTestFiles();
    await project.vitest.rerunTestSpecifications(testFiles.map((file) => project.createSpecification(file)));
  };
  return () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    void (async () => {
      do {
        again = false;
        await rerun();
      } while (again);
    })().finally(() => {
      running = false;
    });
  };
}

/** In Vitest's watch mode: rerun on a change of the plan's inputs, and plan again before every rerun. */
export async function watchEvalInputs(
  project: TestProject,
  planned: { request: RunRequest; plan: RunPlan; load: LoadContext },
): Promise<void> {
  const { request, load } = planned;
  const root = project.config.root;
  const watcher = project.vitest.vite.watcher;
  let inputs = await watchedInputs(planned.plan, root);
  watcher.add([...inputs.files, ...inputs.trees]);
  const rerun = rerunner(project);
  let timer: NodeJS.Timeout | undefined;
  const onChange = (path: string) => {
    if (!changesCells(inputs, resolve(path))) return;
    clearTimeout(timer);
    timer = setTimeout(rerun, DEBOUNCE_MS);
  };
  for (const event of ['change', 'add', 'unlink'] as const) watcher.on(event, onChange);
  project.onTestsRerun(async () => {
    try {
      const plan = await planFromRequest(request, load);
      for (const note of plan.notes) load.log?.(note);
      project.provide(HANDOFF_KEY, { request, plan, plannedBy: process.pid });
      inputs = await watchedInputs(plan, root);
      watcher.add([...inputs.files, ...inputs.trees]);
    } catch (err) {
      if (!(err instanceof RgeError)) throw err;
      load.log?.(`rge: ${err.message} (the cases run again on the last plan the files made)`);
    }
  });
}
