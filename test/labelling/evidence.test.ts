/** The pure parts of the labelling page: evidence marks, the rubric lines, the allocation arithmetic. */
import { describe, expect, it } from 'vitest';
import { JUDGE_PROMPT_TEXT } from '../../src/judging/prompt.ts';
import {
  answerParts,
  caseView,
  citedChunkIds,
  largestRemainder,
  markSupport,
  rubricFromPrompt,
  sampleId,
  sentenceSpans,
  stratumQuotas,
} from '../../src/labelling/index.ts';
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

  it('the case view marks only inside cited chunks and carries no verdict', () => {
    const view = caseView(handItem(2), 0);
    expect(view.chunks.map((c) => c.cited)).toEqual([true, false]);
    expect(view.chunks[0]?.segments.some((s) => s.reason === 'figure')).toBe(true);
    expect(view.chunks[1]?.segments).toEqual([{ text: handItem(2).chunks[1]?.text, reason: null }]);
    expect(JSON.stringify(view)).not.toContain('JUDGE-SAID');
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
