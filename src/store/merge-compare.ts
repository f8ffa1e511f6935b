/**
 * What `rge results merge` compares when two results folders hold a record of one key (one cell, or one
 * case's row): the RESULT, not when it was made or what it cost. Two shards, or a shard and the folder
 * it is merged into, may compute the same cell twice (an empty cache, a rerun); offline the two records
 * then differ only in their timing, live perhaps in their usage and cost too. Neither makes another
 * result:
 *
 * - the result (compared; a difference is a conflict): an answer's text, the model that replied, the
 *   chunks retrieved, a system's contexts and tool trace (their inputs and outputs), why the reply
 *   ended; a verdict's outcome (status, the scores with their rationales and evidence, the raw reply,
 *   attempts, error, stop); a judge's kept first reply; a case row's answer, verdicts, scores and checks.
 * - timing (ignored): `created_at`, `latency_ms` (a tool call's too), a verdict's `latencyMs`, and the
 *   latency check of a case row (a verdict on the timing, not on the answer).
 * - the bill (a difference is a note, not a conflict: the same reply at another cost): `usage` (tokens),
 *   `cost_usd`, `charges`, `batch` (batch pricing), a verdict's `costUsd`, a row's `judge_usage` and
 *   `uncached_cost_usd`.
 * - who asked first (ignored): a cell's `subject_id` or `judge_id`, a verdict's `judgeId`: config labels;
 *   the cell is keyed by what it is (store/cells.ts), so two configs may share it under two names.
 *
 * A run's state file (`.runs/*.json`) is an account of a run, not a cell: two of one name that differ
 * only in `started_at` and `finished_at` are one; any other difference (counts, spend, errors) is a
 * conflict, since the report reads its estimate and spend from the state kept.
 */
import canonicalizeModule from 'canonicalize';
import type { JudgeOutcome } from '../judging/verdict.ts';
import type { AnswerRecord, AttemptRecord, VerdictRecord } from './cells.ts';
import type { CaseRow } from './rows.ts';

const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;
const same = (a: unknown, b: unknown) => canonicalize(a) === canonicalize(b);

/** How two records of one key differ: not at all, only in their bill, or in their result. */
export type RecordDifference = 'none' | 'bill' | 'result';

/** A record as a merge compares it: its result, and its bill. */
interface Parts {
  result: unknown;
  bill: unknown;
}

/** A judge's outcome without its timing, its bill and its label. */
function outcomeParts(o: JudgeOutcome): Parts {
  const { judgeId: _label, latencyMs: _timing, costUsd, usage, ...result } = o;
  return { result, bill: { costUsd, usage } };
}

function answerParts(r: AnswerRecord): Parts {
  const {
    created_at: _created,
    latency_ms: _latency,
    subject_id: _label,
    usage,
    cost_usd,
    charges,
    batch,
    trace,
    ...result
  } = r;
  return {
    result: { ...result, trace: trace?.map(({ latency_ms: _toolLatency, ...call }) => call) },
    bill: { usage, cost_usd, charges, batch },
  };
}

function verdictParts(r: VerdictRecord): Parts {
  const { created_at: _created, judge_id: _label, usage, charges, batch, outcome, ...result } = r;
  const o = outcomeParts(outcome);
  return { result: { ...result, outcome: o.result }, bill: { usage, charges, batch, outcome: o.bill } };
}

function attemptParts(r: AttemptRecord): Parts {
  const {
    created_at: _created,
    latency_ms: _latency,
    judge_id: _label,
    usage,
    cost_usd,
    charges,
    batch,
    ...result
  } = r;
  return { result, bill: { usage, cost_usd, charges, batch } };
}

function rowParts(r: CaseRow): Parts {
  const {
    latency_ms: _latency,
    usage,
    judge_usage,
    cost_usd,
    uncached_cost_usd,
    batch,
    verdicts,
    checks,
    ...result
  } = r;
  const { latency: _latencyCheck, ...answerChecks } = checks;
  const outcomes = verdicts.map(outcomeParts);
  return {
    result: { ...result, checks: answerChecks, verdicts: outcomes.map((o) => o.result) },
    bill: { usage, judge_usage, cost_usd, uncached_cost_usd, batch, verdicts: outcomes.map((o) => o.bill) },
  };
}

export type ComparedRecord =
  | { kind: 'answer'; record: AnswerRecord }
  | { kind: 'verdict'; record: VerdictRecord }
  | { kind: 'attempt'; record: AttemptRecord }
  | { kind: 'row'; record: CaseRow };

function partsOf(r: ComparedRecord): Parts {
  switch (r.kind) {
    case 'answer':
      return answerParts(r.record);
    case 'verdict':
      return verdictParts(r.record);
    case 'attempt':
      return attemptParts(r.record);
    case 'row':
      return rowParts(r.record);
  }
}

/** How two records of one key (of one kind) differ: 'none' when only their timing or labels do. */
export function recordDifference(a: ComparedRecord, b: ComparedRecord): RecordDifference {
  const [pa, pb] = [partsOf(a), partsOf(b)];
  if (!same(pa.result, pb.result)) return 'result';
  return same(pa.bill, pb.bill) ? 'none' : 'bill';
}

/** What a record cost, as a merge's note says it ($ and tokens), for a record of a bill. */
export function billOf(r: ComparedRecord): string {
  const usd = r.kind === 'verdict' ? r.record.outcome.costUsd : r.record.cost_usd;
  const u = r.record.usage;
  return `$${usd.toFixed(4)}, ${u.inputTokens} in / ${u.outputTokens} out tokens${r.record.batch ? ', batch' : ''}`;
}

/** Whether two run states of one name are one: the same apart from when the run started and finished. */
export function sameRunState(a: unknown, b: unknown): boolean {
  const strip = (s: unknown) => {
    if (typeof s !== 'object' || s === null) return s;
    const { started_at: _started, finished_at: _finished, ...rest } = s as Record<string, unknown>;
    return rest;
  };
  return same(strip(a), strip(b));
}
