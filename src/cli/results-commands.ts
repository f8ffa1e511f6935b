/**
 * `rge results merge`: its options and help; the action imports results.ts (the stores' schemas) when it
 * runs, so that `rge --help` loads none of it (docs/adr/0012-cli-start-up.md).
 */
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliIO } from './io.ts';

export function registerResultsCommands(program: Command, io: CliIO): void {
  const results = program.command('results').description('results folders (cell stores, ledger, run states)');
  results
    .command('merge')
    .description(
      "join the results folders of a run's shards into one: cells by key (a key with different content is a conflict), ledger events, run states and batch records",
    )
    .argument(
      '<shard-dirs...>',
      'results folders to join, in order (the first of two conflicting records is kept)',
    )
    .requiredOption('--into <dir>', 'the results folder to write (its own content, if any, comes first)')
    .option('--allow-conflicts', 'exit 0 even when two folders hold different records of one key')
    .action(async (shardDirs: string[], flags: { into: string; allowConflicts?: boolean }) => {
      const into = resolve(io.cwd, flags.into);
      const shards = shardDirs.map((d) => resolve(io.cwd, d));
      const { mergeResults } = await import('../store/merge.ts');
      const outcome = await mergeResults(into, shards);
      const show = (dir: string) => {
        const rel = relative(io.cwd, dir);
        return rel === '' ? '.' : rel.startsWith('..') ? dir : rel;
      };
      for (const note of outcome.notes) io.err(`rge: ${note}\n`);
      for (const c of outcome.conflicts)
        io.err(
          `rge: conflict in ${c.file}: ${c.key} differs between ${show(c.kept)} and ${show(c.other)}; kept ${show(c.kept)}'s\n`,
        );
      const cells = outcome.files.filter((f) => f.file.startsWith('cells'));
      const count = (xs: typeof outcome.files, k: 'records' | 'overlaps') => xs.reduce((s, f) => s + f[k], 0);
      io.out(
        `merged ${shards.length} folder(s) into ${show(into)}: ${count(cells, 'records')} cell records in ${cells.length} store(s) ` +
          `(${count(cells, 'overlaps')} already there, merged once), ${outcome.files.length} file(s) written, ` +
          `${outcome.conflicts.length} conflict(s)\n`,
      );
      if (outcome.conflicts.length > 0 && !flags.allowConflicts) {
        io.err(
          'rge: the merge kept the first of each conflicting pair; pass --allow-conflicts to accept that\n',
        );
        io.exitCode = 1;
      }
    });
}
