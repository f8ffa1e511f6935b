/**
 * The pre-flight estimate (estimate.ts) as the terminal shows it: a line per provider, model, role and
 * mode, the totals, and what the figures assume (`rge eval run --dry-run`, and before a run's first call).
 */
import type { Estimate } from '../store/run-state.ts';

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
  const out = [
    `estimate for run ${e.runId} (${e.mode}): ${num(e.cells.total)} cells, ${num(e.cells.stored)} answers and ${num(e.cells.verdictsStored)} verdicts already stored`,
    ...all.map(fmtRow),
    `tokens: input counted with cl100k x each model's token ratio${e.assumptions.contextBounded ? '; the index is not built, so each context is bounded by k x chunk_tokens' : ''}; ` +
      `expected output ${e.assumptions.subjectOutputTokens} (subject) / ${e.assumptions.judgeOutputTokens} (judge) tokens a call, ` +
      `cache hit rate ${e.assumptions.cacheHitRate}; worst case at max_tokens, which the ledger reserves call by call`,
    `cache: each prompt prefix (per model and question: the system prompt and the question's chunks, shared by its runs) is written by the first call; a later call reads ${e.assumptions.cacheHitRate} of it and writes the rest again, so cache reads are ${pctOf(cacheRead, cacheRead + cacheWrite)} of cache tokens here`,
    `budget: cap ${usd(budget.capUsd)}, ${usd(budget.leftUsd)} left`,
    ...(e.totals.worstUsd > budget.leftUsd
      ? [
          `warning: the worst case (${usd(e.totals.worstUsd)}) is above what the cap leaves (${usd(budget.leftUsd)}): every call and batch reserves its worst case before it is sent, so the run can stop at the cap before its end; a rerun goes on from there`,
        ]
      : []),
  ];
  return `${out.join('\n')}\n`;
}
