/**
 * The batch plan of a run, as the dry run prints it: the sizing rule of waves.ts applied to the
 * estimate's calls. Each batch reserves the worst case of its items before it is submitted; a batch
 * holds the longest run of its model's waiting calls that fits what the cap leaves (and the provider's
 * item and byte limits); the models of a stage take their turn in the estimate's order; what does not
 * fit waits for the batches in flight to settle. Answers come first (all their waves), then verdicts.
 *
 * A wave is the batches submitted together; the next goes when they have settled. The plan settles
 * each batch at its expected cost (the run's real batches settle at what they cost, and the next batch
 * goes as soon as one settles, so the real run may split differently); it says whether the whole worst
 * case fits what the cap leaves (then nothing depends on what the batches cost), and if not, how far
 * the run would get were every batch to cost its worst case.
 */
import { batchLimitsOf } from '../../providers/live/adapter.ts';
import type { BudgetLedger } from '../../store/ledger.ts';
import type { BatchPlan, PlannedBatch } from '../../store/run-state.ts';

export interface BatchLimits {
  items: number;
  bytes: number;
}

/** How many items from the head of a queue of `n` one batch may hold under a provider's limits (one at least). */
export function batchHead(n: number, sizeAt: (i: number) => number, limits: BatchLimits): number {
  let bytes = 0;
  let k = 0;
  for (; k < n; k++) {
    const size = sizeAt(k);
    if (k > 0 && (k >= limits.items || bytes + size > limits.bytes)) break;
    bytes += size;
  }
  return k;
}

/** One call of the plan: its worst case (what it reserves), its expected cost, its request's bytes. */
export interface PlanCall {
  worstUsd: number;
  expectedUsd: number;
  bytes: number;
}

/** One model's batch calls in a stage, in the order the run submits them. */
export interface PlanLane {
  provider: string;
  model: string;
  role: 'subject' | 'judge';
  limits: BatchLimits;
  calls: PlanCall[];
}

/** Where a lane's queue stands in the simulation. */
interface Queue {
  lane: PlanLane;
  at: number;
}

/** The next batch of a queue: the longest head within the limits whose worst case fits `room`. */
function nextBatch(q: Queue, room: number): { calls: number; worst: number; expected: number } {
  const calls = q.lane.calls;
  const head = batchHead(calls.length - q.at, (i) => (calls[q.at + i] as PlanCall).bytes, q.lane.limits);
  let worst = 0;
  let expected = 0;
  let k = 0;
  for (; k < head; k++) {
    const c = calls[q.at + k] as PlanCall;
    if (c.worstUsd > room - worst + 1e-12) break;
    worst += c.worstUsd;
    expected += c.expectedUsd;
  }
  return { calls: k, worst, expected };
}

/**
 * Submits the lanes' calls in waves under `leftUsd`, each batch settling at its expected cost or at its
 * worst case; stops where nothing fits and nothing is in flight (the cap stops the run there).
 */
function simulate(
  lanes: readonly PlanLane[],
  leftUsd: number,
  settle: 'expected' | 'worst',
): { batches: PlannedBatch[]; placed: number } {
  const batches: PlannedBatch[] = [];
  let committed = 0;
  let wave = 0;
  let placed = 0;
  for (const role of ['subject', 'judge'] as const) {
    const queues: Queue[] = lanes.filter((l) => l.role === role).map((lane) => ({ lane, at: 0 }));
    while (queues.some((q) => q.at < q.lane.calls.length)) {
      wave++;
      let held = 0;
      let settled = 0;
      let submitted = false;
      for (const q of queues)
        while (q.at < q.lane.calls.length) {
          const b = nextBatch(q, leftUsd - committed - held);
          if (b.calls === 0) break;
          const { provider, model } = q.lane;
          batches.push({
            wave,
            provider,
            model,
            role,
            calls: b.calls,
            reservedUsd: b.worst,
            expectedUsd: b.expected,
          });
          held += b.worst;
          submitted = true;
          settled += settle === 'worst' ? b.worst : b.expected;
          q.at += b.calls;
          placed += b.calls;
        }
      if (!submitted) return { batches, placed };
      committed += settled;
    }
  }
  return { batches, placed };
}

/** The batch plan of these lanes (answers' and verdicts', in the run's order) under what the cap leaves. */
export function planBatches(lanes: readonly PlanLane[], leftUsd: number): BatchPlan {
  const all = lanes.flatMap((l) => l.calls);
  const sum = (f: (c: PlanCall) => number) => all.reduce((a, c) => a + f(c), 0);
  const worstUsd = sum((c) => c.worstUsd);
  const fitsAtWorst = worstUsd <= leftUsd + 1e-12;
  const expected = simulate(lanes, leftUsd, 'expected');
  const atWorst = fitsAtWorst ? expected : simulate(lanes, leftUsd, 'worst');
  let tooLarge: BatchPlan['tooLarge'] = null;
  for (const l of lanes)
    for (const c of l.calls)
      if (c.worstUsd > leftUsd + 1e-12 && c.worstUsd > (tooLarge?.worstUsd ?? 0))
        tooLarge = { provider: l.provider, model: l.model, role: l.role, worstUsd: c.worstUsd };
  return {
    leftUsd,
    calls: all.length,
    expectedUsd: sum((c) => c.expectedUsd),
    worstUsd,
    fitsAtWorst,
    batches: expected.batches,
    waves: expected.batches.reduce((w, b) => Math.max(w, b.wave), 0),
    unplacedCalls: all.length - expected.placed,
    callsAtWorst: atWorst.placed,
    tooLarge,
  };
}

/**
 * What the cap leaves a run (the estimate's pre-flight and plan): the ledger's left, and what the batch
 * reservations of stopped processes still hold. Their batches' items are among the calls the estimate
 * counts (they are not stored yet), and the run resumes those batches (their reservations then settle
 * at what the batches cost) or releases the reservations (store/recover.ts): counted as held as well,
 * they would count twice.
 */
export function leftForRun(ledger: Pick<BudgetLedger, 'orphans' | 'summary'>): number {
  const resumable = ledger.orphans('batch').reduce((sum, o) => sum + o.usd, 0);
  return ledger.summary().leftUsd + resumable;
}

/** One batch call of the estimate, in the run's order. */
export interface PlanInput extends PlanCall {
  provider: string;
  model: string;
  role: 'subject' | 'judge';
}

/**
 * The batch plan of the estimate's batch calls (null when there are none) under what the cap leaves:
 * one lane per model and role, answers first, then by provider and model (the run's order,
 * group.ts `runGroups`).
 */
export function planOfCalls(calls: readonly PlanInput[], leftUsd: number): BatchPlan | null {
  const lanes = new Map<string, PlanLane>();
  for (const c of calls) {
    const limits = batchLimitsOf(c.provider);
    if (!limits) continue;
    const key = `${c.role}\u0000${c.provider}\u0000${c.model}`;
    const lane = lanes.get(key) ?? { provider: c.provider, model: c.model, role: c.role, limits, calls: [] };
    lanes.set(key, lane);
    lane.calls.push({ worstUsd: c.worstUsd, expectedUsd: c.expectedUsd, bytes: c.bytes });
  }
  if (lanes.size === 0) return null;
  const ordered = [...lanes.values()].sort(
    (a, b) =>
      -a.role.localeCompare(b.role) || a.provider.localeCompare(b.provider) || a.model.localeCompare(b.model),
  );
  return planBatches(ordered, leftUsd);
}
