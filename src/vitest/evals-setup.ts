/**
 * The evals project's global setup, in Vitest's main process before any eval file starts: the front
 * door of `npx vitest run evals`. It reads the run request from the RGE_* variables (a bad one is a
 * usage error naming the variable: exit 2), builds the generated fixture corpus and index when they are
 * missing (a fresh clone; workers running slices at once would otherwise each build it), plans the run
 * once and provides the plan to every eval file. When `rge eval run` started Vitest, the plan is already
 * provided and nothing is done here. In Vitest's watch mode it also reruns the eval files on a change of
 * the run's input files, planning again before every rerun (evals-watch.ts).
 */
import type { TestProject } from 'vitest/node';
import { type LoadContext, planFromRequest, requestFromEnv } from '../run/plan/index.ts';
import { RgeError } from '../util/errors.ts';
import { watchEvalInputs } from './evals-watch.ts';
import { HANDOFF_KEY } from './handoff.ts';
import { setHeapGrowth } from './worker-heap.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);

export default async function setup(project: TestProject): Promise<void> {
  if (project.getProvidedContext()[HANDOFF_KEY]) return;
  try {
    // Vitest's main process holds the run's cases to its end: a heap close to what it keeps (worker-heap.ts)
    setHeapGrowth(process.env);
    const request = requestFromEnv(process.env);
    const load: LoadContext = {
      root: project.config.root,
      log,
      // corpus.allow_download: false forbids model downloads (as `rge eval run --offline`), in the workers too
      onConfig: (config) => {
        if (config.corpus?.allow_download === false) process.env.RGE_OFFLINE = '1';
      },
    };
    const plan = await planFromRequest(request, load);
    for (const note of plan.notes) log(note);
    project.provide(HANDOFF_KEY, { request, plan, plannedBy: process.pid });
    // watch mode: a change of the config, questions, prompt or a system reruns, on a plan made again
    if (project.vitest.config.watch) await watchEvalInputs(project, { request, plan, load });
  } catch (err) {
    // A usage or config error is the user's to fix: its message and exit code, not a stack trace.
    if (!(err instanceof RgeError)) throw err;
    log(`rge: ${err.message}`);
    process.exit(err.exitCode);
  }
}
