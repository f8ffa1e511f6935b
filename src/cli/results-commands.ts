/**
 * `rge results merge` and `rge results batches`: their options and help; the actions import the stores
 * when they run, so that `rge --help` loads none of them (docs/adr/0012-cli-start-up.md).
 */
import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { BatchFor, Orphan, OrphanReport } from '../run/batch/orphans.ts';
import type { BatchRecord, LeftAtProvider } from '../store/batch-records.ts';
import { UsageError } from '../util/errors.ts';
import type { CliIO } from './io.ts';

const collectValues = (value: string, previous: string[] = []) => [...previous, value];

/** What `rge results batches` prints of a record that left something at its provider. */
function leftLines(left: LeftAtProvider): string[] {
  const r = left.record;
  const what = `${r.items.length} ${r.role === 'subject' ? 'answers' : 'verdicts'}`;
  const head = `batch ${r.id} (${r.provider}/${r.model}, ${what}, created ${r.created_at}): ${r.status}`;
  const where =
    r.status === 'unknown'
      ? `, perhaps at ${r.provider} (its submission ended without an answer; the next run of its command looks it up)`
      : `, open at ${r.provider}${r.remote_id ? ` as ${r.remote_id}` : ' (its id not recorded)'}`;
  const open = left.open
    ? `${where}; its worst case $${r.reserved_usd.toFixed(4)} is held in the budget`
    : '';
  return [
    `${head}${open}`,
    ...left.files.map((f) => `  ${f.kind} file ${f.id} at ${r.provider}: not deleted`),
  ];
}

interface BatchesFlags {
  resultsDir: string;
  json?: boolean;
  collect?: boolean;
  cancel?: boolean;
  config?: string;
  set?: string[];
}

const usd = (x: number) => `$${x.toFixed(4)}`;

/** What `rge results batches` prints of an orphan: where, whose tag, its items and what it cost. */
function orphanLine(o: Orphan): string {
  const r = o.record;
  const what = `${r.items.length} ${r.role === 'subject' ? 'answers' : 'verdicts'} of ${r.provider}/${r.model}`;
  const billed = o.costUsd === null ? 'its results could not be read now' : `billed ${usd(o.costUsd)}`;
  const state = o.remote.ended
    ? `${o.remote.state}, ${o.done ?? '?'} of ${r.items.length} answered, ${billed}`
    : `${o.remote.state}: running and billed whether or not it is collected (up to ${usd(r.reserved_usd)})`;
  const told = o.remote.verified
    ? ''
    : ' (told by its size and creation time; its items are checked when collected)';
  return `orphan ${o.remote.id} at ${r.provider}: tagged ${o.remote.tag} (${what}, record ${r.status}): ${state}${told}`;
}

/** What the local records say rge left at the providers, as the command prints it. */
function printLocal(io: CliIO, dir: string, records: readonly BatchRecord[], left: LeftAtProvider[]): void {
  const open = left.filter((l) => l.open).length;
  const files = left.reduce((n, l) => n + l.files.length, 0);
  io.out(
    `${records.length} batch record(s) in ${relative(io.cwd, dir) || '.'}: ` +
      (left.length === 0
        ? 'by these records, nothing left at the providers (no batch open, every file deleted)\n'
        : `by these records, ${open} batch(es) open and ${files} file(s) not deleted at the providers\n`),
  );
  for (const l of left) io.out(`${leftLines(l).join('\n')}\n`);
  if (left.length > 0)
    io.out(
      'an open batch is collected (and paid for once) by rerunning the command that submitted it; ' +
        'files left are deleted by the next batch run of their model\n',
    );
}

/** What the providers said: the orphans, and the models that could not be asked. */
function printAsked(io: CliIO, report: OrphanReport, flags: BatchesFlags): void {
  if (report.checked.length > 0)
    io.out(
      `asked ${report.checked.join(', ')} for the batches tagged by these records: ` +
        (report.orphans.length === 0
          ? 'no orphan (every batch found is held by its record)\n'
          : `${report.orphans.length} orphan(s), batches no record holds\n`),
    );
  for (const o of report.orphans) io.out(`${orphanLine(o)}\n`);
  for (const u of report.unchecked)
    io.out(`could not ask ${u.provider} about ${u.records} record(s) of ${u.model}: ${u.why}\n`);
  if (report.orphans.length > 0 && !flags.collect && !flags.cancel)
    io.out(
      'rerun the command that submitted them (it looks them up and collects them), or store their results now ' +
        'with `rge results batches --collect --config <its config> [--set ...]`, or cancel them with --cancel\n',
    );
}

/** Cancels the orphans still running; what they ran before is collected by the next run that finds them. */
async function cancelOrphans(io: CliIO, report: OrphanReport, batchFor: BatchFor): Promise<void> {
  for (const o of report.orphans) {
    if (o.remote.ended) continue;
    const batch = await batchFor(o.record);
    if (typeof batch === 'string') continue;
    await batch.cancel(o.remote.tag, o.remote.id, { minBackoffMs: 500 });
    io.out(
      `cancelled ${o.remote.id} at ${o.record.provider} (what it ran before is billed; the next run collects it)\n`,
    );
  }
}

/** `--collect`: the orphans stored in the cells of the run of `--config`, nothing asked again. */
async function collect(io: CliIO, dir: string, flags: BatchesFlags & { config: string }): Promise<void> {
  const { parseRunRequest } = await import('../run/plan/index.ts');
  const { openRun } = await import('../run/session/index.ts');
  const { StageContext } = await import('../run/stages/stages.ts');
  const { batchesOfRun, collectOrphans, findOrphans } = await import('../run/batch/orphans.ts');
  const log = (line: string) => io.err(`${line}\n`);
  const request = parseRunRequest(
    { config: flags.config, overrides: flags.set, mode: 'batch', resultsDir: dir },
    'flags',
  );
  const run = await openRun(request, { root: io.cwd, log, env: io.env ?? process.env });
  try {
    const ctx = new StageContext(run, { log, collectOnly: true });
    const report = await findOrphans(dir, batchesOfRun(ctx), { minBackoffMs: 500, onRetry: log });
    printAsked(io, report, flags);
    const adopted = await collectOrphans(ctx, await run.work.cells(), report);
    await run.ledger.writeSummary();
    const c = ctx.counts;
    io.out(
      `collected ${adopted} orphan(s): ${c.answers.computed} answer(s) and ${c.verdicts.computed} verdict(s) stored, ` +
        'nothing asked again; what they cost is in the budget ledger\n',
    );
  } finally {
    await run.leases.close();
    run.close();
  }
}

/**
 * `rge results batches`: what the batch records of a results folder say rge left at the providers, and
 * what the providers hold under the records' tags that no record holds (orphans), when their keys are
 * set; `--cancel` cancels the orphans, `--collect` stores their results (run/batch/orphans.ts).
 */
async function listBatches(io: CliIO, flags: BatchesFlags): Promise<void> {
  const dir = resolve(io.cwd, flags.resultsDir);
  if (!existsSync(dir)) throw new UsageError(`--results-dir ${flags.resultsDir}: no such folder`);
  if (flags.collect && flags.cancel) throw new UsageError('--collect and --cancel: give one of them');
  if (flags.collect && !flags.config)
    throw new UsageError(
      '--collect needs --config: the config of the run whose cells the results go to (with the --set it ran with)',
    );
  const { batchesDir, leftAtProvider, loadBatchRecords } = await import('../store/batch-records.ts');
  const records = loadBatchRecords(batchesDir(dir));
  const left = leftAtProvider(records);
  if (flags.collect) {
    printLocal(io, batchesDir(dir), records, left);
    return collect(io, dir, { ...flags, config: flags.config as string });
  }
  const { environment } = await import('../providers/credentials.ts');
  const { batchesFromEnvironment, findOrphans } = await import('../run/batch/orphans.ts');
  const batchFor = batchesFromEnvironment(io.cwd, environment(io.cwd, io.env ?? process.env));
  const report = await findOrphans(dir, batchFor, { minBackoffMs: 500 });
  if (flags.json) {
    const rows = left.map((l) => ({ ...l.record, open: l.open, files_left: l.files }));
    const orphans = report.orphans.map((o) => ({
      ...o.remote,
      record: o.record.id,
      provider: o.record.provider,
      model: o.record.model,
      items: o.record.items.length,
      answered: o.done,
      cost_usd: o.costUsd,
    }));
    const asked = { checked: report.checked, unchecked: report.unchecked };
    io.out(`${JSON.stringify({ records: records.length, left: rows, orphans, ...asked }, null, 2)}\n`);
  } else {
    printLocal(io, batchesDir(dir), records, left);
    printAsked(io, report, flags);
  }
  if (flags.cancel) await cancelOrphans(io, report, batchFor);
}

export function registerResultsCommands(program: Command, io: CliIO): void {
  const results = program
    .command('results')
    .description('results folders (cell stores, ledger, run states, batch records)');
  results
    .command('batches')
    .description(
      "list what rge left at the providers: from a results folder's batch records, batches submitted and not yet collected (their worst case held in the budget) and the files a provider keeps for a batch (OpenAI's input, output and error files) that were not deleted; and, for each provider whose key is set, the batches it holds under the records' tags that no record holds (orphans: a create whose outcome was unknown, a batch created late), with their items and cost",
    )
    .option('--results-dir <dir>', 'results folder holding .batches/', 'data/results')
    .option('--json', 'print the records that left something and the orphans, as JSON')
    .option('--cancel', 'cancel the orphans still running (what they ran before is billed)')
    .option(
      '--collect',
      "store the orphans' results in the cells of the run of --config (nothing is asked again)",
    )
    .option('--config <file>', 'with --collect: the run config whose cells the results go to')
    .option(
      '--set <path=value>',
      'with --collect: an override the run was made with (repeatable)',
      collectValues,
    )
    .action((flags: BatchesFlags) => listBatches(io, flags));
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
