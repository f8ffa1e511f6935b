import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { writeFileAtomic } from '../util/fs.ts';
import type { CliIO } from './io.ts';

const DEFAULT_CONFIG = 'configs/fixture.yaml';
const DEFAULT_SCHEMA = 'configs/config.schema.json';

/** `rge config ...`: check run configs and export their JSON Schema. Paths are relative to the working folder. */
export function registerConfigCommands(program: Command, io: CliIO): void {
  const config = program.command('config').description('validate run configs and export their JSON Schema');

  config
    .command('validate')
    .description('validate a run config; every problem is reported as file:line: field: message (exit 1)')
    .option('--config <file>', 'run config', DEFAULT_CONFIG)
    .action(async (opts: { config: string }) => {
      const { loadRunConfig } = await import('../run/config/config.ts');
      const path = resolve(io.cwd, opts.config);
      const run = await loadRunConfig(path, { root: io.cwd });
      const retrieval = run.corpus
        ? `${run.corpus.embedder}, k ${run.retrieval.k}`
        : "no corpus of rge's (systems only)";
      io.out(
        `${relative(io.cwd, path) || path}: ok (${run.name}: ${run.subjects.length} subject(s), ` +
          `${run.judges.length} judge(s), ${run.runs} run(s), ${retrieval})\n`,
      );
    });

  config
    .command('schema')
    .description('write the JSON Schema of run configs (for editor completion)')
    .option('--out <file>', 'where to write it; - for stdout', DEFAULT_SCHEMA)
    .action(async (opts: { out: string }) => {
      const { runConfigJsonSchemaText } = await import('../run/config/schema.ts');
      const text = runConfigJsonSchemaText();
      if (opts.out === '-') {
        io.out(text);
        return;
      }
      const out = resolve(io.cwd, opts.out);
      await writeFileAtomic(out, text);
      io.out(`${relative(io.cwd, out) || out}: written\n`);
    });
}
