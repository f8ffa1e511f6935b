/**
 * A child process for the crash tests: prepares a live run of the published config against the loopback
 * servers (as the environment says) and runs its stages. The parent kills it with SIGKILL at random
 * points and starts it again. Settings come as JSON in RGE_CHILD.
 */

import { runStages } from '../../../src/run/stages/stages.ts';
import { openTestRun } from '../../helpers/open-run.ts';

interface ChildSettings {
  root: string;
  resultsDir: string;
  env: Record<string, string>;
  overrides: string[];
  questions: number;
  runs: number;
  mode: 'sync' | 'batch';
  subjects?: string[];
}

const settings = JSON.parse(process.env.RGE_CHILD ?? '{}') as ChildSettings;
const log = (line: string) => process.stdout.write(`${line}\n`);
const run = await openTestRun({
  config: 'configs/published.yaml',
  root: settings.root,
  resultsDir: settings.resultsDir,
  env: settings.env,
  overrides: settings.overrides,
  log,
  questions: settings.questions,
  runs: settings.runs,
  mode: settings.mode,
  ...(settings.subjects ? { subjects: settings.subjects } : {}),
});
log('STAGES');
const { state } = await runStages(run, { log, skipPreflight: true });
log(
  `DONE ${JSON.stringify({ counts: state.counts, errors: Object.keys(state.errors).length, stopped: state.stopped })}`,
);
