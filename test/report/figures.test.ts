/**
 * Every figure the report prints is at its own precision, never a computation's binary noise: a
 * multihop question's gold is a difference of two printed figures (4.02 - 5.73 = -1.7100000000000009 in
 * JavaScript), which reaches the report through the numeric judge's rationale (the drill-downs), and a
 * gold figure converted for the question set (0.1 + 0.2) reaches it through the evidence a subject's
 * passages missed (a retrieval miss's reason; a computed figure is not evidence, so only a printed one
 * is listed there). One helper, `figureText`, writes every such number.
 */
import { describe, expect, it } from 'vitest';
import { evidenceRecall } from '../../src/checks/evidence.ts';
import { numericVerdict } from '../../src/judging/heuristic/index.ts';
import type { JudgeInput } from '../../src/providers/types.ts';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { summarise } from '../../src/report/summary.ts';
import type { CaseRowView } from '../../src/report/views.ts';
import { figureText } from '../../src/util/figure.ts';
import { scoredCell } from './scored-cell.ts';

/** A change in basic EPS from Rs 5.73 to Rs 4.02, as the question set computes its gold. */
const CHANGE = 4.02 - 5.73;
const GOLD = [
  { label: 'change in basic EPS', value: CHANGE, unit: 'INR per share' as const, tolerance: 0.01 },
];
/** Binary noise: a run of six or more 0s or 9s in the decimals, then another digit. */
const NOISE = /\d\.\d*(0{6,}|9{6,})\d/;

describe('figureText', () => {
  it('writes a number at its precision: no binary noise, no trailing zeros', () => {
    expect(String(CHANGE)).toBe('-1.7100000000000009');
    expect(figureText(CHANGE)).toBe('-1.71');
    expect(figureText(9.5)).toBe('9.5');
    expect(figureText(0.1 + 0.2)).toBe('0.3');
    expect(figureText(206808.53000000003)).toBe('206808.53');
    expect(figureText(12.969999999999999)).toBe('12.97');
    expect(figureText(1200)).toBe('1200');
    expect(figureText(-0)).toBe('0');
    expect(figureText(Number.NaN)).toBe('NaN');
  });
});

/** A printed gold figure whose value carries binary noise, and the quote that prints it. */
const DIVIDEND = {
  label: 'dividend per share',
  value: 0.1 + 0.2,
  unit: 'INR per share' as const,
  tolerance: 0.01,
};
const QUOTE = 'The Board recommended a dividend of Rs 0.30 per share.';

describe('a multihop gold figure in the report', () => {
  const missed = evidenceRecall({ gold_quotes: [QUOTE], numeric_gold: [DIVIDEND] }, []);
  const input: JudgeInput = {
    kind: 'judge',
    questionId: 'gm-039',
    question: "By how much did the company's basic EPS change from FY23 to FY24?",
    category: 'grounded-multihop',
    expectedBehavior: 'answer',
    goldAnswer: 'It fell by Rs 1.71 per share, from Rs 5.73 to Rs 4.02.',
    goldQuotes: [],
    numericGold: GOLD,
    chunks: [],
    answer: 'Basic EPS rose by Rs 2.40 per share.',
  };
  const verdict = numericVerdict(input);

  it("the evidence a subject's passages missed, and the numeric judge's rationale, at the figure's precision", () => {
    expect(missed.missing).toEqual([`quote "${QUOTE}"`, 'figure dividend per share 0.3 INR per share']);
    expect(verdict.correctness.rationale).toContain('change in basic EPS = -1.71 INR per share');
    expect(verdict.correctness.rationale).not.toMatch(NOISE);
  });

  it('no figure of the report carries binary noise', () => {
    const base = scoredCell('s', 39, 0, [0, 0, 1]);
    const row: CaseRowView = {
      ...base,
      category: 'grounded-multihop',
      question: { text: input.question, gold_answer: input.goldAnswer, gold_quotes: [] },
      answer: input.answer,
      evidence: { recall: missed.recall, missing: missed.missing },
      verdicts: [
        { judgeId: 'heuristic/numeric', family: 'n', status: 'scored', verdict: verdict },
        { judgeId: 'heuristic/lexical', family: 'l', status: 'scored', verdict: verdict },
      ],
    };
    const rows = [row, ...Array.from({ length: 7 }, (_, q) => scoredCell('s', q, 0, [2, 2, 2]))];
    const md = renderMarkdown(
      summarise(rows, {
        seed: 'f',
        resamples: 100,
        run: { runId: 'r', configHash: 'c', indexChecksum: 'i', questionsHash: 'q' },
      }),
    );
    // the retrieval miss's reason, and the drill-down's rationale
    expect(md).toContain('figure dividend per share 0.3 INR per share');
    expect(md).toContain('change in basic EPS = -1.71 INR per share');
    expect(md).not.toMatch(NOISE);
  });
});
