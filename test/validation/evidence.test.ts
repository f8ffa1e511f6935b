/** The pure parts of the labelling page: evidence marks, the rubric lines, the allocation arithmetic. */
import { describe, expect, it } from 'vitest';
import { JUDGE_PROMPT_TEXT } from '../../src/judging/prompt.ts';
import {
  answerParts,
  bestLine,
  citedChunkIds,
  goldSpans,
  markChunk,
  markSupport,
  reflow,
  sentenceSpans,
} from '../../src/validation/evidence.ts';
import {
  caseView,
  largestRemainder,
  rubricFromPrompt,
  sampleId,
  stratumQuotas,
} from '../../src/validation/index.ts';
import { handItem } from './hand-sample.ts';

describe('evidence marks', () => {
  const chunk =
    'The board met four times during the year.\nConsolidated revenue from operations for FY24 was Rs 1,234.50\n' +
    'crore, compared with Rs 900.00 crore in FY23.\nSegment | Revenue\nPorts | 600.25\nThe Ports segment grew on new capacity.';

  it('cuts a chunk into sentences over its original text: wrapped lines joined, table rows alone', () => {
    const spans = sentenceSpans(chunk).map(([a, b]) => chunk.slice(a, b));
    expect(spans).toEqual([
      'The board met four times during the year.',
      'Consolidated revenue from operations for FY24 was Rs 1,234.50\ncrore, compared with Rs 900.00 crore in FY23.',
      'Segment | Revenue',
      'Ports | 600.25',
      'The Ports segment grew on new capacity.',
    ]);
  });

  it('marks the sentences sharing a figure or most content words with an answer sentence', () => {
    const answer =
      'Revenue was Rs 1234.5 crore in FY24 [acme-FY24-1]. The Ports segment grew because of new capacity [acme-FY24-1].';
    const segments = markSupport(chunk, answer);
    expect(segments.map((s) => s.text).join('')).toBe(chunk);
    expect(segments.every((s) => !s.gold)).toBe(true);
    expect(segments.filter((s) => s.reason !== null).map((s) => [s.reason, s.text])).toEqual([
      [
        'figure',
        'Consolidated revenue from operations for FY24 was Rs 1,234.50\ncrore, compared with Rs 900.00 crore in FY23.',
      ],
      ['words', 'The Ports segment grew on new capacity.'],
    ]);
    expect(markSupport(chunk, 'I cannot answer from the documents.').every((s) => s.reason === null)).toBe(
      true,
    );
    // a table cell states the figure as a bare number
    const cell = markSupport(chunk, 'Ports revenue was Rs 600.25 crore [acme-FY24-1].');
    expect(cell.filter((s) => s.reason !== null).map((s) => [s.reason, s.text])).toEqual([
      ['figure', 'Ports | 600.25'],
    ]);
  });

  it('finds the cited chunks and splits the answer at its citation markers', () => {
    const answer = 'Rs 10 crore [a-FY24-1, b-FY24-2] and [sic] more [z-9].';
    expect(citedChunkIds(answer, ['b-FY24-2', 'c-FY24-3', 'a-FY24-1'])).toEqual(['b-FY24-2', 'a-FY24-1']);
    expect(answerParts(answer)).toEqual([
      { text: 'Rs 10 crore ', cite: null },
      { text: '[a-FY24-1]', cite: 'a-FY24-1' },
      { text: '[b-FY24-2]', cite: 'b-FY24-2' },
      { text: ' and [sic] more ', cite: null },
      { text: '[z-9]', cite: 'z-9' },
      { text: '.', cite: null },
    ]);
  });

  it('a heading line is a sentence of its own, so a mark never takes the heading in', () => {
    const text =
      'FINANCIAL HIGHLIGHTS\nRevenue for FY24 was Rs 1,234.50 crore.\n6. DIVIDENDS\nThe Board declared Rs 2.50\nper share.';
    expect(sentenceSpans(text).map(([a, b]) => text.slice(a, b))).toEqual([
      'FINANCIAL HIGHLIGHTS',
      'Revenue for FY24 was Rs 1,234.50 crore.',
      '6. DIVIDENDS',
      'The Board declared Rs 2.50\nper share.',
    ]);
    const marked = markSupport(text, 'Revenue was Rs 1,234.50 crore [a-FY24-1].').filter((s) => s.reason);
    expect(marked.map((s) => s.text)).toEqual(['Revenue for FY24 was Rs 1,234.50 crore.']);
  });

  it('the same words about another figure are not support; a bare cell must equal the figure as printed', () => {
    const text =
      'The Mobile segment reported revenue of Rs 90,444.12 crore in FY23.\n' +
      'The Homes segment reported revenue of Rs 43,134.89 crore in FY23.\n' +
      'Treasury | 20,490.48 | 12.0\nRetail | 20,573.00 | 9.0\nThe segments are run separately.';
    const marked = (answer: string) =>
      markSupport(text, answer)
        .filter((s) => s.reason)
        .map((s) => [s.reason, s.text]);
    expect(marked('The Mobile segment reported revenue of Rs 90,444.12 crore in FY23 [x-FY23-1].')).toEqual([
      ['figure', 'The Mobile segment reported revenue of Rs 90,444.12 crore in FY23.'],
    ]);
    // 20,573 is within 1% of 20,490.48, but not the same number printed
    expect(marked('Revenue was USD 20,573 million [x-FY23-1].')).toEqual([
      ['figure', 'Retail | 20,573.00 | 9.0'],
    ]);
    // a narrative sentence without figures can still support by its words
    expect(marked('The segments are run separately [x-FY23-1].')).toEqual([
      ['words', 'The segments are run separately.'],
    ]);
  });

  it('reflows soft line breaks into spaces, one for one, and keeps rows, headings and sentence ends', () => {
    const text =
      'HDFC BANK LIMITED\nIt is\nnot the annual report; revenue was Rs\n79,433.61\ncrore.\nNext sentence here\n' +
      'Segment | Revenue\nPorts | 600.25\n1. CHAIRPERSON\nDear Shareholders, the year\n2022-23 was good.';
    const flowed = reflow(text);
    expect(flowed).toHaveLength(text.length);
    expect(flowed.split('\n')).toEqual([
      'HDFC BANK LIMITED',
      'It is not the annual report; revenue was Rs 79,433.61 crore.',
      'Next sentence here',
      'Segment | Revenue',
      'Ports | 600.25',
      '1. CHAIRPERSON',
      'Dear Shareholders, the year 2022-23 was good.',
    ]);
  });

  it('marks gold quotes in any chunk, across line breaks, beside the support marks', () => {
    const text =
      'Intro line here.\nConsolidated revenue for FY24 was Rs 1,234.50\ncrore, up 5%.\nOther text.';
    const quote = 'Consolidated revenue for FY24 was Rs 1,234.50 crore, up 5%.';
    expect(goldSpans(text, [quote]).map(([a, b]) => text.slice(a, b))).toEqual([
      'Consolidated revenue for FY24 was Rs 1,234.50\ncrore, up 5%.',
    ]);
    const segments = markChunk(text, { answer: 'It grew 5% [a-FY24-1].', goldQuotes: [quote], reflow: true });
    expect(segments.map((s) => s.text).join('')).toBe(reflow(text));
    expect(segments.filter((s) => s.gold || s.reason).map((s) => [s.reason, s.gold, s.text])).toEqual([
      ['figure', true, 'Consolidated revenue for FY24 was Rs 1,234.50 crore, up 5%.'],
    ]);
    // no answer: gold marks only
    expect(markChunk(text, { goldQuotes: [quote] }).filter((s) => s.gold || s.reason)).toEqual([
      { text: 'Consolidated revenue for FY24 was Rs 1,234.50\ncrore, up 5%.', reason: null, gold: true },
    ]);
  });

  it("a folded chunk's best line: its gold quote, else the sentence nearest the question, not a heading", () => {
    const text = 'ACME LIMITED\nThe board met four times.\nDividend per share was Rs 2.50 for FY24.';
    expect(bestLine(text, 'What dividend per share did Acme pay for FY24?', [])).toBe(
      'Dividend per share was Rs 2.50 for FY24.',
    );
    expect(bestLine(text, 'Who audits Acme?', [])).toBe('The board met four times.');
    expect(bestLine(text, 'Anything?', ['The board met four times.'])).toBe('The board met four times.');
  });

  it('the case view: cited chunks first in citation order, support marks only in them, gold marks everywhere, no verdict', () => {
    const item = handItem(2);
    const view = caseView(item, 0);
    expect(view.chunks.map((c) => [c.id, c.cited, c.rank])).toEqual([
      [item.chunks[0]?.id, true, 1],
      [item.chunks[1]?.id, false, 2],
    ]);
    expect(view.chunks[0]?.segments.some((s) => s.reason === 'figure')).toBe(true);
    expect(view.chunks[1]?.segments.every((s) => s.reason === null)).toBe(true);
    expect(JSON.stringify(view)).not.toContain('JUDGE-SAID');
    // cite the second chunk first: it comes first; the gold quote is marked where it is
    const swapped = {
      ...item,
      answer: `Standalone revenue was Rs 850.00 crore [${item.chunks[1]?.id}]; consolidated Rs 1002.50 crore [${item.chunks[0]?.id}].`,
      gold_quotes: ['Standalone revenue for FY23 was Rs 850.00 crore.'],
    };
    const v2 = caseView(swapped, 0);
    expect(v2.cited).toEqual([item.chunks[1]?.id, item.chunks[0]?.id]);
    expect(v2.chunks.map((c) => c.id)).toEqual(v2.cited);
    expect(v2.chunks.map((c) => c.gold)).toEqual([true, false]);
    expect(v2.chunks[0]?.segments.find((s) => s.gold)).toMatchObject({ reason: 'figure' });
  });
});

describe('the rubric beside the buttons', () => {
  it("reads each dimension's 0/1/2 meaning from the judge prompt", () => {
    const rubric = rubricFromPrompt();
    for (const dim of ['correctness', 'grounding', 'calibration'] as const) {
      expect(rubric[dim].map((l) => l.score)).toEqual([0, 1, 2]);
      for (const level of rubric[dim])
        expect(JUDGE_PROMPT_TEXT).toContain(`- ${level.score}: ${level.meaning}`);
    }
    expect(rubric.correctness[2]?.name).toBe('Correct');
    expect(rubric.grounding[0]?.meaning).toMatch(/^a material claim is supported by no retrieved chunk/);
    expect(() => rubricFromPrompt('no rubric here')).toThrow(/CORRECTNESS/);
  });
});

describe('allocation', () => {
  it('largest remainder: floors, then the largest remainders, ties to the earlier', () => {
    expect(largestRemainder(10, [45, 45])).toEqual([5, 5]);
    expect(largestRemainder(10, [45, 45, 45])).toEqual([4, 3, 3]);
    expect(largestRemainder(20, [30, 10, 5])).toEqual([13, 5, 2]); // 13.33, 4.44, 2.22
    expect(largestRemainder(5, [0, 7])).toEqual([0, 5]);
    expect(largestRemainder(3, [0, 0])).toEqual([0, 0]);
  });

  it("the methodology's strata, and scaled", () => {
    expect(stratumQuotas(50)).toEqual({
      'grounded-direct': 10,
      'grounded-multihop': 10,
      adversarial: 20,
      'out-of-domain': 10,
    });
    expect(stratumQuotas(12)).toEqual({
      'grounded-direct': 3,
      'grounded-multihop': 2,
      adversarial: 5,
      'out-of-domain': 2,
    });
  });

  it('the sample id: config name and a short hash of the item ids, in any order', () => {
    expect(sampleId('fixture', ['b', 'a'])).toBe(sampleId('fixture', ['a', 'b']));
    expect(sampleId('my config', ['a'])).toMatch(/^my_config-[0-9a-f]{12}$/);
  });
});
