/**
 * The parts of verification, each against a case worked by hand: the normal form a quote is found in,
 * the quote index (found with its span and chunks, across a boundary, printed but in no chunk, not in
 * the document), coverage's max-min fair shares, near-duplicates and the mix.
 */
import { describe, expect, it } from 'vitest';
import { chunkId } from '../../../src/corpus/chunk.ts';
import type { Chunk } from '../../../src/corpus/schema.ts';
import { categoryTargets, parseMix } from '../../../src/questions/generate/plan.ts';
import { coverCategory } from '../../../src/questions/generate/verify/coverage.ts';
import { nearDuplicates } from '../../../src/questions/generate/verify/duplicates.ts';
import {
  normaliseQuote,
  normaliseWithMap,
  originalSpan,
} from '../../../src/questions/generate/verify/normalise.ts';
import { QuoteIndex } from '../../../src/questions/generate/verify/quote-index.ts';

function chunk(text: string, pages: [number, number] = [1, 1]): Chunk {
  return {
    id: chunkId('doc', 'FY24', text),
    company: 'doc',
    fy: 'FY24',
    source: 'doc.pdf',
    heading: 'Notes',
    pages,
    tokens: 10,
    text,
  };
}

describe('the normal form of a quote', () => {
  it('folds case, ligatures, curly quotes, dashes, hyphenation and whitespace', () => {
    expect(normaliseQuote('The ﬁnal “self-\nservice”  plan –  ₹25')).toBe(
      normaliseQuote('the final "selfservice" plan - ₹25'),
    );
    expect(normaliseQuote('self- service')).toBe('selfservice');
    // a hyphen between digits is kept: 2023-24 is not 202324
    expect(normaliseQuote('FY 2023-24')).toBe('fy 2023-24');
    expect(normaliseQuote('  a \t b\u00ad c ')).toBe('a b c');
  });

  it('maps a match back to the span of the original it came from', () => {
    const original = 'Revenue grew to\n₹ 9,14,472 crore in the ﬁscal year.';
    const form = normaliseWithMap(original, true);
    const needle = normaliseQuote('₹ 9,14,472 crore in the fiscal');
    const at = form.text.indexOf(needle);
    const [s, e] = originalSpan(form, at, at + needle.length, original);
    expect(original.slice(s, e)).toBe('₹ 9,14,472 crore in the ﬁscal');
  });
});

describe('the quote index', () => {
  const a = chunk(
    'Segment results\nRevenue from operations was ₹ 120 crore.\nThe order book stood at ₹ 450 crore.',
    [3, 3],
  );
  const b = chunk('The order book stood at ₹ 450 crore.\nExports rose to ₹ 80 crore in the year.', [3, 4]);
  const pages = new Map([
    [
      'doc.pdf',
      [
        {
          page: 3,
          text: 'ANNUAL REPORT 2024\nSegment results\nRevenue from operations was ₹ 120 crore.\nThe order book stood at ₹ 450 crore.',
        },
        { page: 4, text: 'Exports rose to ₹ 80 crore in the year.' },
      ],
    ],
  ]);
  const index = new QuoteIndex([a, b], { pages });

  it('finds a quote with its chunks, the text as the chunk prints it, the page and the span', () => {
    const hit = index.locate('doc.pdf', 'the order book stood at ₹ 450 crore');
    expect(hit).toMatchObject({
      kind: 'found',
      chunkIds: [a.id, b.id],
      text: 'The order book stood at ₹ 450 crore',
      page: 3,
      section: 'Notes',
    });
    if (hit.kind !== 'found' || !hit.span) throw new Error('no span');
    expect(pages.get('doc.pdf')?.[0]?.text.slice(...hit.span)).toBe('The order book stood at ₹ 450 crore');
  });

  it('flags a quote across the boundary of two chunks, counting the overlap once', () => {
    expect(
      index.locate('doc.pdf', 'was ₹ 120 crore. The order book stood at ₹ 450 crore. Exports rose'),
    ).toEqual({
      kind: 'across',
      chunkIds: [a.id, b.id],
    });
  });

  it('tells a quote printed in no chunk (a running header) from one not in the document', () => {
    expect(index.locate('doc.pdf', 'ANNUAL REPORT 2024')).toEqual({ kind: 'not-in-index', page: 3 });
    const missing = index.locate('doc.pdf', 'Revenue from operations was ₹ 130 crore.');
    expect(missing.kind).toBe('not-found');
    expect(index.locate('other.pdf', 'anything')).toEqual({ kind: 'no-document' });
  });
});

describe('coverage', () => {
  const items = (doc: string, n: number) =>
    Array.from({ length: n }, (_, i) => ({ id: `${doc}-${i}`, document: doc }));

  it('shares a target max-min fairly: what a document cannot fill goes to the others', () => {
    const a = coverCategory([...items('a', 10), ...items('b', 1), ...items('c', 10)], 9, null);
    expect(a.kept.filter((id) => id.startsWith('a')).length).toBe(4);
    expect(a.kept.filter((id) => id.startsWith('b')).length).toBe(1);
    expect(a.kept.filter((id) => id.startsWith('c')).length).toBe(4);
    expect(a.dropped.every((d) => d.reason === 'surplus')).toBe(true);
  });

  it('caps a document at its share, and says so when the category falls short', () => {
    const a = coverCategory([...items('a', 10), ...items('b', 1)], 10, 0.5);
    expect(a.kept).toHaveLength(6);
    expect(a.dropped.filter((d) => d.reason === 'over-share')).toHaveLength(5);
  });
});

describe('near-duplicates', () => {
  const item = (id: string, text: string, chunkIds = ['c1'], answer = '$25') => ({
    id,
    group: 'doc',
    text,
    answer,
    chunkIds,
  });

  it('keeps the first of lexical duplicates, not questions that differ in a year', () => {
    const dups = nearDuplicates([
      item('q1', 'What was the revenue from operations in FY24?'),
      item('q2', 'what was the revenue from operations in FY24'),
      item('q3', 'What was the revenue from operations in FY23?'),
    ]);
    expect([...dups.keys()]).toEqual(['q2']);
    expect(dups.get('q2')).toMatchObject({ of: 'q1', how: 'lexical' });
  });

  it('calls close embeddings duplicates only when the evidence is the same', () => {
    const v = [
      [1, 0],
      [0.99, 0.14],
      [0.99, 0.14],
    ];
    const dups = nearDuplicates(
      [
        item('q1', 'How much is the Team plan?'),
        item('q2', 'What does the Team tier cost?'),
        item('q3', 'What does a seat cost?', ['c9'], '$30'),
      ],
      v,
    );
    expect([...dups.keys()]).toEqual(['q2']);
    expect(dups.get('q2')?.how).toBe('embedding');
  });
});

describe('the mix', () => {
  it('parses weights and shares a count by largest remainder', () => {
    expect(categoryTargets(10, parseMix('direct=4,multihop=3,adversarial=2,ood=1'))).toEqual({
      'grounded-direct': 4,
      'grounded-multihop': 3,
      adversarial: 2,
      'out-of-domain': 1,
    });
    expect(() => parseMix('direct=4,trivia=2')).toThrow(/"trivia=2" is not NAME=WEIGHT/);
  });
});

describe('an answer in a list', () => {
  it("reads a dash first on a line as the list's, not a minus sign", async () => {
    const { answerSupported } = await import('../../../src/questions/generate/verify/checks.ts');
    const body = {
      category: 'grounded-direct' as const,
      text: 'What did the company acquire?',
      gold_answer: 'Acquisitions:\n-100% equity interest of a flexibles manufacturer',
      gold_quotes: [],
      expected_behavior: 'answer' as const,
      numeric_gold: [],
    };
    const quotes = [
      { text: 'the Company acquired 100% equity interest of a flexibles manufacturer', chunkIds: ['c1'] },
    ];
    expect(answerSupported(body, quotes)).toBeNull();
    // a minus inside a sentence is a sign: -100% is not 100%
    expect(answerSupported({ ...body, gold_answer: 'a change of -100% in the stake' }, quotes)?.reason).toBe(
      'figure-not-in-quotes',
    );
  });
});
