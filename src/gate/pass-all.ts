/**
 * Gating on consistency (`rge gate --pass-all`, issue 40 item 3): did the share of questions whose runs
 * ALL pass (pass^k) fall? A mean GFS can hold while questions that passed every time start to flip; a
 * user who runs the system once gets one of its runs, so pass^k is what they can rely on.
 *
 * Per subject, overall and per category, over the questions with all k runs in both summaries (k the
 * most runs a question has in the current run; a case passes as the report counts it, the cells'
 * `passed`, src/report/consistency.ts): each question either keeps its pass^k status, is LOST (every run
 * passed in the baseline, not in the current run) or GAINED. McNemar's exact test on lost against gained
 * (a question is one paired unit) decides; its level holds on any number of questions. A slice REGRESSES
 * when more were lost than gained, McNemar's two-sided p is at most 1 - level (95 % overall, Bonferroni
 * over the categories as the GFS gate), and pass^k fell by more than the minimum effect; IMPROVES in the
 * mirror case; else within noise.
 */
import { mcnemar } from '../stats/index.ts';
import { UsageError } from '../util/errors.ts';
import { f3, pct, pValueText, signed } from './format.ts';
import type { GateSummary } from './gate-summary.ts';

export interface PassAllRow {
  subject: string;
  slice: string;
  /** runs per question (k) */
  runs: number;
  /** questions with k runs in both summaries */
  questions: number;
  /** pass^k in each run */
  baseline: number;
  current: number;
  change: number;
  /** questions whose runs all passed in the baseline and not now, and the reverse */
  lost: number;
  gained: number;
  /** McNemar's exact two-sided p on lost against gained */
  pValue: number;
  confidence: number;
  verdict: 'regression' | 'improvement' | 'within noise';
  fails: boolean;
}

type Cells = GateSummary['diagnostics']['cells'];

/** Per question of a subject: its category and its runs' pass flags, by run index. */
function byQuestion(
  cells: Cells,
  subject: string,
  file: string,
): Map<string, { category: string; runs: Map<number, boolean> }> {
  const out = new Map<string, { category: string; runs: Map<number, boolean> }>();
  for (const c of cells) {
    if (c.subject !== subject) continue;
    if (typeof c.passed !== 'boolean')
      throw new UsageError(
        `${file} has no per-case pass flags (summaries written before pass^k gating); rerun the eval (and promote the baseline again) to gate on pass^k`,
      );
    const q = out.get(c.question_id) ?? { category: c.category, runs: new Map<number, boolean>() };
    q.runs.set(c.run_index, c.passed);
    out.set(c.question_id, q);
  }
  return out;
}

/** Every run 0..k-1 present and passing. */
function allPass(runs: Map<number, boolean>, k: number): boolean | null {
  for (let i = 0; i < k; i++) if (!runs.has(i)) return null;
  for (let i = 0; i < k; i++) if (!runs.get(i)) return false;
  return true;
}

interface PairedQuestion {
  category: string;
  before: boolean;
  after: boolean;
}

/** One slice's row from its paired questions. */
function sliceRow(
  subject: string,
  slice: string,
  k: number,
  xs: readonly PairedQuestion[],
  confidence: number,
  minEffect: number,
): PassAllRow {
  const n = xs.length;
  const lost = xs.filter((x) => x.before && !x.after).length;
  const gained = xs.filter((x) => !x.before && x.after).length;
  const baseline = n === 0 ? Number.NaN : xs.filter((x) => x.before).length / n;
  const current = n === 0 ? Number.NaN : xs.filter((x) => x.after).length / n;
  const pValue =
    lost + gained === 0
      ? 1
      : mcnemar(
          {
            table: [
              [0, gained],
              [lost, 0],
            ],
          },
          { exact: true },
        ).pValue;
  const significant = pValue <= 1 - confidence;
  const change = current - baseline;
  const verdict =
    significant && lost > gained && -change > minEffect
      ? 'regression'
      : significant && gained > lost && change > minEffect
        ? 'improvement'
        : 'within noise';
  return {
    subject,
    slice,
    runs: k,
    questions: n,
    baseline,
    current,
    change,
    lost,
    gained,
    pValue,
    confidence,
    verdict,
    fails: verdict === 'regression',
  };
}

/**
 * pass^k rows for every subject both summaries have, overall and per category (Bonferroni). Throws a
 * UsageError (exit 2) when a summary has no per-case pass flags.
 */
export function comparePassAll(
  baseline: GateSummary,
  current: GateSummary,
  opts: { minEffect: number; confidence: number; files?: { baseline: string; current: string } },
): PassAllRow[] {
  const files = opts.files ?? { baseline: 'the baseline', current: 'the current run' };
  const subjects = [...new Set(current.diagnostics.cells.map((c) => c.subject))]
    .filter((s) => baseline.diagnostics.cells.some((c) => c.subject === s))
    .sort();
  const rows: PassAllRow[] = [];
  for (const subject of subjects) {
    const before = byQuestion(baseline.diagnostics.cells, subject, files.baseline);
    const after = byQuestion(current.diagnostics.cells, subject, files.current);
    const k = Math.max(0, ...[...after.values()].map((q) => q.runs.size));
    const paired: PairedQuestion[] = [];
    for (const [id, q] of after) {
      const b = before.get(id);
      const [was, is] = [b ? allPass(b.runs, k) : null, allPass(q.runs, k)];
      if (was !== null && is !== null) paired.push({ category: q.category, before: was, after: is });
    }
    const categories = [...new Set(paired.map((x) => x.category))].sort();
    const categoryConfidence = 1 - (1 - opts.confidence) / Math.max(1, categories.length);
    rows.push(sliceRow(subject, 'overall', k, paired, opts.confidence, opts.minEffect));
    for (const c of categories)
      rows.push(
        sliceRow(
          subject,
          c,
          k,
          paired.filter((x) => x.category === c),
          categoryConfidence,
          opts.minEffect,
        ),
      );
  }
  return rows;
}

/** The pass^k table for the gate's Markdown. */
export function passAllMarkdown(rows: readonly PassAllRow[], minEffect: number): string[] {
  return [
    '### pass^k: questions whose runs all pass',
    '',
    `Per question over its k runs (a case passes as the report counts it); lost = every run passed in the baseline and not now, gained the reverse; McNemar's exact test on lost against gained. Fails when more were lost, p is at most 1 \u2212 level, and pass^k fell by more than ${minEffect}.`,
    '',
    '| subject | slice | k | questions | baseline | current | change | lost | gained | p | level | verdict |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.subject} | ${r.slice} | ${r.runs} | ${r.questions} | ${f3(r.baseline)} | ${f3(r.current)} | ${signed(r.change)} | ${r.lost} | ${r.gained} | ${pValueText(r.pValue)} | ${pct(r.confidence)} | ${r.fails ? '**regression**' : r.verdict} |`,
    ),
  ];
}
