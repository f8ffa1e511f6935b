/**
 * `rge results merge` and `rge results batches`: their options and help; the actions import the stores
 * when they run, so that `rge --help` loads none of them (docs/adr/0012-cli-start-up.md).
 */
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { LeftAtProvider } from '../store/batch-records.ts';
import { UsageError } from '../util/errors.ts';
import type { CliIO } from './io.ts';

/** What `rge results batches` prints of a record that left something at its provider. */
function leftLines(left: LeftAtProvider): string[] {
  const r = left.record;
  const what = `${r.items.length} ${r.role === 'subject' ? 'answers' : 'verdicts'}`;
  const head = `batch ${r.id} (${r.provider}/${r.model}, ${what}, created ${r.created_at}): ${r.status}`;
  const open = left.open
    ? `, open at ${r.provider}${r.remote_id ? ` as ${r.remote_id}` : ' (its id not recorded)'}; its worst case $${r.reserved_usd.toFixed(4)} is held in the budget`
    : '';
  return [
    `${head}${open}`,
    ...left.files.map((f) => `  ${f.kind} file ${f.id} at ${r.provider}: not deleted`),
  ];
}

/** `rge results batches`: what the batch records of a results folder say rge left at the providers. */
async function listBatches(io: CliIO, flags: { resultsDir: string; json?: boolean }): Promise<void> {
  const dir = resolve(io.cwd, flags.resultsDir);
  if (!existsSync(dir)) throw new UsageError('no such folder', { file: flags.resultsDir });
  const { batchesDir, leftAtProvider, loadBatchRecords } = await import('../store/batch-records.ts');
  const records = loadBatchRecords(batchesDir(dir));
  const left = leftAtProvider(records);
  if (flags.json) {
    const rows = left.map((l) => ({ ...l.record, open: l.open, files_left: l.files }));
    io.out(`${JSON.stringify({ records: records.length, left: rows }, null, 2)}\n`);
    return;
  }
  const open = left.filter((l) => l.open).length;
  const files = left.reduce((n, l) => n + l.files.length, 0);
  io.out(
    `${records.length} batch record(s) in ${relative(io.cwd, batchesDir(dir)) || '.'}: ` +
      (left.length === 0
        ? 'nothing left at the providers (no batch open, every file deleted)\n'
        : `${open} batch(es) open and ${files} file(s) not deleted at the providers\n`),
  );
  for (const l of left) io.out(`${leftLines(l).join('\n')}\n`);
  if (left.length > 0)
    io.out(
      'an open batch is collected (and paid for once) by rerunning the command that submitted it; ' +
        'files left are deleted by the next batch run of their model\n',
    );
}

export function registerResultsCommands(program: Command, io: CliIO): void {
  const results = program
    .command('results')
    .description('results folders (cell stores, ledger, run states, batch records)');
  results
    .command('batches')
    .description(
      "list what rge left at the providers, from a results folder's batch records: batches submitted and not yet collected (their worst case held in the budget), and the files a provider keeps for a batch (OpenAI's input, output and error files) that were not deleted",
    )
    .option('--results-dir <dir>', 'results folder holding .batches/', 'data/results')
    .option('--json', 'print the records that left something, as JSON')
    .action((flags: { resultsDir: string; json?: boolean }) => listBatches(io, flags));
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
