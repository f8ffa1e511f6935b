/**
 * A child process that generates candidates over the report's tasks (test/helpers/generation.ts) with
 * the OpenAI model of the loopback server at `url`, into a results folder, as the command will:
 *
 *   node --import tsx test/helpers/generate-child.ts RESULTS_DIR URL TASKS
 *
 * (OPENAI_API_KEY from the environment). It prints one line per task as it finishes and exits 0; the
 * kill test (test/questions/generate-kill.integration.test.ts) kills it mid-way.
 */
import { openModelGenerator } from '../../src/run/generate/index.ts';
import { BudgetLedger } from '../../src/store/ledger.ts';
import { generationTasks, liveSpec, loopbackSettings } from './generation.ts';

const [resultsDir, url, count] = process.argv.slice(2);
if (!resultsDir || !url || !count) throw new Error('usage: generate-child.ts RESULTS_DIR URL TASKS');
const generator = await openModelGenerator({
  spec: liveSpec('openai', 'gpt-5.4'),
  resultsDir,
  seed: 'kill-test',
  ledger: new BudgetLedger(resultsDir, { capUsd: 5, warnUsd: 0, configFile: 'kill-test.yaml' }),
  registry: {
    root: resultsDir,
    env: process.env,
    settings: { openai: loopbackSettings(url, { concurrency: 2 }) },
  },
});
const outcomes = await generator.generate(generationTasks(Number(count), 2), {
  onTask: (o) =>
    process.stdout.write(`${o.reused ? 'reused' : 'generated'} ${o.task.id} ${o.problem?.message ?? 'ok'}\n`),
});
process.stdout.write(`done ${outcomes.filter((o) => o.problem === null).length}\n`);
