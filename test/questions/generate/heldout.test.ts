/**
 * The held-out labeller's own rules (src/questions/generate/heldout.ts), written apart from
 * verification's: its verbatim form, the figures of an answer, whether quotes print them, the planted
 * variants.
 */
import { describe, expect, it } from 'vitest';
import {
  answerFigures,
  figurePrinted,
  type HeldOutQuestion,
  heldOutCases,
  paraphrase,
  plainForm,
  plantBad,
} from '../../../src/questions/generate/heldout.ts';

describe('the held-out labeller', () => {
  it('folds whitespace, case, ligatures, quote marks and hyphens at line ends, and nothing else', () => {
    expect(plainForm('The  ﬁscal “year”\nself-\nservice')).toBe('the fiscal "year" selfservice');
    expect(plainForm('see also "Item 1"')).not.toBe(plainForm('see also Item 1'));
  });

  it('reads the figures of an answer, leaving out dates, years, list markers and digits in names', () => {
    const raws = (a: string) => answerFigures(a).map((f) => f.raw);
    expect(raws('US sales increased 3.0% vs international sales decline of 0.6%.')).toEqual(['3.0%', '0.6%']);
    expect(raws('the 12 months ended on January 28, 2023 (fiscal 2022)')).toEqual(['12']);
    expect(raws('(1) Current Health and (2) Two Peaks, in FY2022, Q2, 10-K, COVID-19, 777X')).toEqual([]);
    expect(answerFigures('$1.8 bn')[0]).toMatchObject({ value: 1.8, decimals: 1, billions: true });
  });

  it('takes a figure as printed when a quote prints it or a number it rounds', () => {
    const [bn] = answerFigures('$1.8 bn');
    expect(bn && figurePrinted(bn, ['Total cash provided by operating activities 1,824'])).toBe(true);
    const [pct] = answerFigures('grew 1.3%');
    expect(pct && figurePrinted(pct, ['sales increased 1.3% to $94.9 billion'])).toBe(true);
    expect(pct && figurePrinted(pct, ['sales increased 1.4%'])).toBe(false);
  });

  it('labels the two forms and plants variants that are bad by its own rules', () => {
    const page =
      'In 2022, 40% of our revenues were earned pursuant to U.S. government contracts and agreements.';
    const q: HeldOutQuestion = {
      id: 'financebench_id_99999',
      split: 'test',
      document: 'X_2022_10K.pdf',
      question: 'Who are the primary customers?',
      answer: 'The US government, 40% of revenues.',
      evidence: [{ page: 14, text: page }],
    };
    const printed = (t: string) => plainForm(page).includes(plainForm(t));
    const cases = heldOutCases(q, printed, [], []);
    expect(cases.map((c) => [c.form, c.label, c.candidate.body.category])).toEqual([
      ['whole-evidence', 'good', 'grounded-direct'],
      ['evidence-lines', 'good', 'grounded-direct'],
    ]);
    const planted = plantBad(cases[0] as (typeof cases)[number], {
      printed: (d, t) => d === q.document && printed(t),
      documents: [q.document, 'Y_2022_10K.pdf'],
    });
    expect(planted.map((p) => [p.kind, p.expected])).toEqual([
      ['fabricated-quote', 'quote-not-found'],
      ['paraphrased-quote', 'quote-not-found'],
      ['quote-of-another-document', 'quote-not-found'],
      ['figure-changed', 'figure-not-in-quotes'],
      ['answer-in-question', 'answer-leaked'],
      ['multihop-one-chunk', 'multihop-one-chunk'],
    ]);
    expect(planted.find((p) => p.kind === 'figure-changed')?.candidate.body.gold_answer).toBe(
      'The US government, 62% of revenues.',
    );
    expect(paraphrase('one two three four five six')).toBe('one two four three six');
  });
});
