/**
 * The pre-flight estimate (estimate.ts) as the terminal shows it: a line per provider, model, role and
 * mode, the totals, and what the figures assume (`rge eval run --dry-run`, and before a run's first call).
 */
import type { BatchPlan, Estimate } from '../../store/run-state.ts';

/** Dollars at one precision: cents, or four places below a dollar (a loopback run's fractions of a cent). */
export const usd = (x: number) => `$${x.toFixed(Math.abs(x) >= 1 ? 2 : 4)}`;
const num = (x: number) => x.toLocaleString('en');
const pctOf = (a: number, b: number) => (b === 0 ? 'none' : `${Math.round((100 * a) / b)}%`);

/** The estimate as a table for the terminal. */
export function formatEstimate(e: Estimate, budget: { capUsd: number; leftUsd: number }): string {
  const rows = e.lines.map((l) => [
    l.role,
    `${l.provider}/${l.model}`,
    l.batch ? 'batch' : 'sync',
    num(l.calls),
    num(l.inputTokens),
    num(l.cacheReadTokens),
    num(l.cacheWriteTokens),
    num(l.outputTokens),
    usd(l.expectedUsd),
    usd(l.naiveUsd),
    usd(l.worstUsd),
  ]);
  const header = [
    'role',
    'model',
    'mode',
    'calls',
    'input',
    'cache read',
    'cache write',
    'output',
    'expected',
    'naive sync',
    'worst case',
  ];
  const all = [
    header,
    ...rows,
    [
      'total',
      '',
      '',
      num(e.totals.calls),
      '',
      '',
      '',
      '',
      usd(e.totals.expectedUsd),
      usd(e.totals.naiveUsd),
      usd(e.totals.worstUsd),
    ],
  ];
  const cacheRead = e.lines.reduce((a, l) => a + l.cacheReadTokens, 0);
  const cacheWrite = e.lines.reduce((a, l) => a + l.cacheWriteTokens, 0);
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const fmtRow = (r: string[]) =>
    r.map((c, i) => (i <= 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  const plan = e.batchPlan;
  const out = [
    `estimate for run ${e.runId} (${e.mode}): ${num(e.cells.total)} cells, ${num(e.cells.stored)} answers and ${num(e.cells.verdictsStored)} verdicts already stored` +
      (e.cells.keptReplies
        ? `; ${num(e.cells.keptReplies)} judge repl(ies) an earlier run paid for are kept, so only their retries are counted (sync calls)`
        : ''),
    ...(plan?.tooLarge ? [tooLargeLine(plan.tooLarge, plan.leftUsd)] : []),
    ...all.map(fmtRow),
    `tokens: input counted with cl100k x each model's token ratio${e.assumptions.contextBounded ? '; the index is not built, so each context is bounded by k x chunk_tokens' : ''}; ` +
      `expected output ${e.assumptions.subjectOutputTokens} (subject) / ${e.assumptions.judgeOutputTokens} (judge) tokens a call, ` +
      `cache hit rate ${e.assumptions.cacheHitRate}; worst case at max_tokens, which the ledger reserves call by call`,
    `cache: each prompt prefix (per model and question: the system prompt and the question's chunks, shared by its runs) is written by the first call; a later call reads ${e.assumptions.cacheHitRate} of it and writes the rest again, so cache reads are ${pctOf(cacheRead, cacheRead + cacheWrite)} of cache tokens here`,
    `budget: cap ${usd(budget.capUsd)}, ${usd(budget.leftUsd)} left`,
    ...(e.totals.worstUsd > budget.leftUsd
      ? [
          `warning: the worst case (${usd(e.totals.worstUsd)}) is above what the cap leaves (${usd(budget.leftUsd)}): every call and batch reserves its worst case before it is sent, ` +
            (plan
              ? 'so batches are sized to what the cap leaves and the rest waits for earlier batches to settle (the batch plan below)'
              : 'so the run can stop at the cap before its end; a rerun goes on from there'),
        ]
      : []),
    ...(plan ? formatBatchPlan(plan) : []),
  ];
  return `${out.join('\n')}\n`;
}

/**
 * The estimate in one line, with its warnings (`rge eval run --quiet`): the calls, what they are
 * expected to cost and at worst, and what the cap leaves. The table is `formatEstimate`'s.
 */
export function estimateLine(e: Estimate, budget: { capUsd: number; leftUsd: number }): string {
  const plan = e.batchPlan;
  return [
    `estimate for run ${e.runId} (${e.mode}): ${num(e.totals.calls)} calls, expected ${usd(e.totals.expectedUsd)}, ` +
      `worst case ${usd(e.totals.worstUsd)}; budget: cap ${usd(budget.capUsd)}, ${usd(budget.leftUsd)} left`,
    ...(plan?.tooLarge ? [tooLargeLine(plan.tooLarge, plan.leftUsd)] : []),
    ...(e.totals.worstUsd > budget.leftUsd
      ? [
          `warning: the worst case (${usd(e.totals.worstUsd)}) is above what the cap leaves (${usd(budget.leftUsd)}): ` +
            (plan
              ? 'batches are sized to what the cap leaves, in waves'
              : 'the run can stop at the cap before its end; a rerun goes on from there'),
        ]
      : []),
  ].join('\n');
}

const what = (role: string) => (role === 'subject' ? 'answer' : 'verdict');

/** Said up front: a call whose worst case alone is above what the cap leaves, which no batch can hold. */
function tooLargeLine(t: NonNullable<BatchPlan['tooLarge']>, leftUsd: number): string {
  return (
    `warning: one ${what(t.role)} of ${t.provider}/${t.model} can cost up to ${usd(t.worstUsd)} at worst, more than the cap leaves (${usd(leftUsd)}): ` +
    'no batch can hold it, so this run cannot finish under the cap; raise budget.cap_usd or narrow the run'
  );
}

/** At most this many rows of the plan are printed (`--json` has every batch). */
const PLAN_ROWS = 24;

/** The batch plan: a row per wave and model (batches, calls, what they reserve), then what it means. */
export function formatBatchPlan(p: BatchPlan): string[] {
  const rows = new Map<string, string[]>();
  const sums = new Map<string, { batches: number; calls: number; reserved: number; expected: number }>();
  for (const b of p.batches) {
    const key = `${b.wave}\u0000${b.role}\u0000${b.provider}/${b.model}`;
    const sum = sums.get(key) ?? { batches: 0, calls: 0, reserved: 0, expected: 0 };
    sums.set(key, sum);
    sum.batches++;
    sum.calls += b.calls;
    sum.reserved += b.reservedUsd;
    sum.expected += b.expectedUsd;
  }
  for (const [key, sum] of sums) {
    const [wave = '', role = '', model = ''] = key.split('\u0000');
    rows.set(key, [
      wave,
      role,
      model,
      num(sum.batches),
      num(sum.calls),
      usd(sum.reserved),
      usd(sum.expected),
    ]);
  }
  const header = ['wave', 'role', 'model', 'batches', 'calls', 'reserved', 'expected'];
  const table = [header, ...[...rows.values()].slice(0, PLAN_ROWS)];
  const widths = header.map((_, i) => Math.max(...table.map((r) => (r[i] ?? '').length)));
  const fmtRow = (r: string[]) =>
    r.map((c, i) => (i >= 1 && i <= 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [
    `batch plan: each batch reserves its worst case before it is submitted, so it holds what the cap leaves (${usd(p.leftUsd)}) room for; what does not fit goes in a later wave, once earlier batches have settled to their real cost (here at the expected cost)`,
    ...table.map(fmtRow),
    ...(rows.size > PLAN_ROWS
      ? [`... and ${rows.size - PLAN_ROWS} more rows (--json lists every batch)`]
      : []),
    planVerdict(p),
  ];
}

/** What the plan means for the run: whether it fits the cap at worst, or depends on batches settling below it. */
export function planVerdict(p: BatchPlan): string {
  const waves = (role: string) => new Set(p.batches.filter((b) => b.role === role).map((b) => b.wave)).size;
  const n = (x: number, one: string, many: string) => `${num(x)} ${x === 1 ? one : many}`;
  const shape =
    `plan: ${n(p.batches.length, 'batch', 'batches')} in ${n(p.waves, 'wave', 'waves')} ` +
    `(answers in ${waves('subject')}, verdicts in ${waves('judge')})`;
  if (p.fitsAtWorst)
    return `${shape}; the worst case (${usd(p.worstUsd)}) fits what the cap leaves (${usd(p.leftUsd)}): the run finishes under the cap whatever its batches cost`;
  if (p.unplacedCalls > 0)
    return `${shape}; at the expected cost (${usd(p.expectedUsd)}) the cap stops the run after ${num(p.calls - p.unplacedCalls)} of ${num(p.calls)} calls: raise budget.cap_usd or narrow the run`;
  return (
    `${shape}; the worst case (${usd(p.worstUsd)}) is above what the cap leaves (${usd(p.leftUsd)}), so the run finishes in one command ` +
    `only as its batches settle below their worst case (expected ${usd(p.expectedUsd)}); were every call to cost its worst case, ` +
    `the cap would stop it after ${num(p.callsAtWorst)} of ${num(p.calls)} calls, and a rerun with a higher cap would go on`
  );
}
