/**
 * What rge left at the providers that no batch record holds (`rge results batches`, issue 52): the
 * providers are asked for the batches carrying the tags of a results folder's records (one lookup per
 * model: lookup.ts), and a batch no record holds is an orphan: a create whose outcome was unknown
 * and that no run has looked up since, a batch created late after its record gave up on it, a second
 * batch of a record's items. An orphan runs and is billed whether or not anyone collects it; it can be
 * collected (`collectOrphans`: its results stored, nothing asked again) or cancelled.
 */
import { createProvider, isLiveProvider } from '../../models/registry.ts';
import { redactSecrets } from '../../providers/credentials.ts';
import type { RemoteBatch } from '../../providers/live/adapter.ts';
import { MeteredProvider } from '../../providers/metered.ts';
import type { BatchCallOptions, MeteredBatch } from '../../providers/metered-batch.ts';
import {
  type BatchRecord,
  batchesDir,
  loadBatchRecords,
  recordedRemoteIds,
  tagOf,
  tagQuery,
} from '../../store/batch-records.ts';
import { errorMessage } from '../../util/errors.ts';
import type { SubjectCell } from '../session/work.ts';
import type { StageContext } from '../sync/stage-context.ts';
import { runBatches } from './batches.ts';
import { batchOfRecord } from './files.ts';
import { adopt } from './lookup.ts';

/** A batch at a provider that carries the tag of one of the folder's records and that no record holds. */
export interface Orphan {
  /** the record whose submission made it (its tag, its items) */
  record: BatchRecord;
  remote: RemoteBatch;
  /** what its results cost at the batch price, once it has ended (null while it runs) */
  costUsd: number | null;
  /** its items answered, once it has ended */
  done: number | null;
}

/** The folder's records a provider could not be asked about, and why (no key, no price). */
export interface Unchecked {
  provider: string;
  model: string;
  records: number;
  why: string;
}

export interface OrphanReport {
  orphans: Orphan[];
  unchecked: Unchecked[];
  /** the models whose provider was asked */
  checked: string[];
}

/** The metered batch API of a record's model, or why there is none here. */
export type BatchFor = (record: BatchRecord) => Promise<MeteredBatch | string>;

/** The records of a folder by model and role: one lookup each. */
function byModel(records: readonly BatchRecord[]): BatchRecord[][] {
  const groups = new Map<string, BatchRecord[]>();
  for (const r of records) {
    const key = `${r.provider}/${r.model}/${r.role}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups.values()];
}

/** What an ended orphan's results cost, and how many of its items were answered. */
async function priced(
  batch: MeteredBatch,
  record: BatchRecord,
  remote: RemoteBatch,
  opts: BatchCallOptions,
): Promise<{ costUsd: number; done: number }> {
  const ids = record.items.map((i) => i.custom_id);
  const results = await batch.results(tagOf(record), remote.id, ids, opts);
  const ok = results.flatMap((r) => (r.ok ? [r] : []));
  const costUsd = ok.reduce((sum, r) => sum + batch.charge(r.reply.usage, null, r.customId).usd, 0);
  return { costUsd, done: ok.length };
}

/**
 * Asks the providers for the batches tagged by the records of `resultsDir` and returns those no record
 * holds, with what the ended ones cost; a model whose provider cannot be asked (`batchFor` says why) is
 * listed as unchecked.
 */
export async function findOrphans(
  resultsDir: string,
  batchFor: BatchFor,
  opts: BatchCallOptions,
): Promise<OrphanReport> {
  const all = loadBatchRecords(batchesDir(resultsDir));
  const known = recordedRemoteIds(all);
  const report: OrphanReport = { orphans: [], unchecked: [], checked: [] };
  for (const group of byModel(all)) {
    const first = group[0] as BatchRecord;
    const batch = await batchFor(first);
    if (typeof batch === 'string') {
      report.unchecked.push({
        provider: first.provider,
        model: first.model,
        records: group.length,
        why: batch,
      });
      continue;
    }
    const submitters = new Map(group.filter((r) => r.late_of === null).map((r) => [r.id, r]));
    let found: RemoteBatch[];
    try {
      found = await batch.findTagged([...submitters.values()].map(tagQuery), opts);
    } catch (err) {
      const why = `the lookup failed (${redactSecrets(errorMessage(err))})`;
      report.unchecked.push({ provider: first.provider, model: first.model, records: group.length, why });
      continue;
    }
    report.checked.push(`${first.provider}/${first.model} (${first.role})`);
    for (const remote of found) {
      const record = submitters.get(remote.tag);
      if (!record || known.has(remote.id)) continue;
      // a running Anthropic batch told only by its size and time is another's while a record holds its own
      if (!remote.verified && record.remote_id !== null) continue;
      known.add(remote.id);
      // its cost read from its results (none when they cannot be read now: said as unknown)
      const cost = remote.ended ? await priced(batch, record, remote, opts).catch(() => null) : null;
      report.orphans.push({ record, remote, costUsd: cost?.costUsd ?? null, done: cost?.done ?? null });
    }
  }
  return report;
}

/**
 * A `BatchFor` outside a run: each record's model through the registry, with the environment's key and
 * base URL, spending from nothing (a lookup, a cancel and reading results cost nothing); a model
 * without a key or a catalogue price cannot be asked.
 */
export function batchesFromEnvironment(root: string, env: Record<string, string | undefined>): BatchFor {
  const made = new Map<string, Promise<MeteredBatch | string>>();
  return (record) => {
    const key = `${record.provider}/${record.model}/${record.role}`;
    let batch = made.get(key);
    if (!batch) {
      batch = batchOf(record, root, env);
      made.set(key, batch);
    }
    return batch;
  };
}

async function batchOf(
  record: BatchRecord,
  root: string,
  env: Record<string, string | undefined>,
): Promise<MeteredBatch | string> {
  if (!isLiveProvider(record.provider)) return `${record.provider} has no batch API`;
  try {
    const provider = await createProvider(
      { id: record.model, provider: record.provider, model: record.model, family: record.provider },
      record.role,
      { root, env, settings: {}, spender: null, requireKeys: true },
    );
    const batch = provider instanceof MeteredProvider ? provider.batch : null;
    return batch ?? `${record.provider} has no batch API`;
  } catch (err) {
    return redactSecrets(errorMessage(err));
  }
}

/**
 * A `BatchFor` in a run session (`--collect`): the record's model as the run calls it, with the
 * config's base URLs and the folder's ledger; a model the config does not call cannot be asked.
 */
export function batchesOfRun(ctx: StageContext): BatchFor {
  return (record) =>
    Promise.resolve(
      batchOfRecord(ctx, record) ??
        `${record.provider}/${record.model} is not a ${record.role} of ${ctx.run.plan.info.configFile}`,
    );
}

/**
 * Collects the orphans into the run's cell stores (`rge results batches --collect`): each is adopted by
 * the record that submitted it (its own batch when it holds none, else a late record: lookup.ts),
 * then the recorded batches are polled until they end and collected, nothing submitted and nothing
 * asked in sync (`StageOptions.collectOnly`); a cell stored already keeps its first record, and the
 * orphan's reply is booked as what the provider billed. Returns how many were adopted.
 */
export async function collectOrphans(
  ctx: StageContext,
  cells: readonly SubjectCell[],
  report: OrphanReport,
): Promise<number> {
  const dir = batchesDir(ctx.run.plan.info.resultsDir);
  let adopted = 0;
  for (const o of report.orphans) {
    const batch = batchOfRecord(ctx, o.record);
    if (!batch) continue;
    if (!(await ctx.run.leases.claim('batch', [o.record.id])).mine.has(o.record.id)) {
      ctx.log(`orphan ${o.remote.id}: another process holds batch ${o.record.id}; left to it`);
      continue;
    }
    const record = loadBatchRecords(dir).find((r) => r.id === o.record.id) ?? o.record;
    await adopt(ctx, batch, record, o.remote, dir);
    adopted++;
  }
  await runBatches(ctx, cells);
  return adopted;
}
