/**
 * A plain Node process using the ways in, as the rge command does (bundled: no TypeScript loader
 * registered). `module FILE EXPORT`: loads the module system, answers one question, prints the version
 * and the answer.
 */
import { loadModuleSystem, type SystemQuestion } from '../../src/system/index.ts';

const question = (id: string): SystemQuestion => ({ id, text: 'What was revenue?', run_index: 0, seed: 1 });
const [mode, ...args] = process.argv.slice(2);

if (mode === 'module') {
  const [file = '', exportName = 'default'] = args;
  const system = await loadModuleSystem({ file, exportName, timeoutMs: 30_000 });
  const answer = await system.answer(question('child-1'));
  process.stdout.write(JSON.stringify({ version: system.version, answer }));
} else throw new Error(`unknown mode ${mode}`);
