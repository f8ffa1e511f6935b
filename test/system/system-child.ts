/**
 * A plain Node process using the ways in, as the rge command does (bundled: no TypeScript loader
 * registered). `module FILE EXPORT`: loads the module system, answers one question, prints the version
 * and the answer. `pool ARGV_JSON CWD`: starts a command pool of 2, answers two questions at once,
 * prints the two processes' pids, then waits to be killed.
 */
import { commandSystem, loadModuleSystem, type SystemQuestion } from '../../src/system/index.ts';

const question = (id: string): SystemQuestion => ({ id, text: 'What was revenue?', run_index: 0, seed: 1 });
const [mode, ...args] = process.argv.slice(2);

if (mode === 'module') {
  const [file = '', exportName = 'default'] = args;
  const system = await loadModuleSystem({ file, exportName, timeoutMs: 30_000 });
  const answer = await system.answer(question('child-1'));
  process.stdout.write(JSON.stringify({ version: system.version, answer }));
} else if (mode === 'pool') {
  const [argv = '[]', cwd = '.'] = args;
  const system = commandSystem({ argv: JSON.parse(argv), cwd, timeoutMs: 30_000, pool: 2, concurrency: 2 });
  const answers = await Promise.all([system.answer(question('p-1')), system.answer(question('p-2'))]);
  process.stdout.write(`${JSON.stringify(answers.map((a) => a.metadata?.pid))}\n`);
  setInterval(() => {}, 60_000);
} else throw new Error(`unknown mode ${mode}`);
