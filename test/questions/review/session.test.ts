/**
 * A review session without HTTP: each gold quote highlighted in its page (by span, else by search with
 * whitespace normalised), decisions appended and read back, an edit re-verified before it is recorded
 * (a quote not in its document is refused and nothing is written), an injected re-verification used in
 * place of the default, and undo.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { markdownPage } from '../../../src/corpus/formats/markdown.ts';
import {
  documentReader,
  findQuote,
  questionReviewSession,
  quotesInDocuments,
  type Reverify,
  ReviewRefusal,
  reviewFileOf,
} from '../../../src/questions/review/index.ts';
import { DOCUMENTS, writeGeneratedFixture } from './generated-fixture.ts';

async function session(reverify?: Reverify) {
  const f = await writeGeneratedFixture();
  const read = documentReader(f.documents);
  const file = reviewFileOf(f.questionsFile);
  const s = questionReviewSession({
    questions: f.questions,
    file,
    order: { order: 'file', seed: null },
    read,
    reverify: reverify ?? quotesInDocuments(read),
    now: () => new Date('2025-01-02T03:04:05Z'),
  });
  return { ...f, file, s };
}

describe('findQuote', () => {
  const text = 'Revenue was Rs 1,234.5 crore in FY24,\n  up 12% from FY23.';
  it('finds a quote across a line break, whitespace aside, and gives the span of the original text', () => {
    const at = findQuote(text, 'Rs 1,234.5 crore in FY24, up 12%');
    expect(at).toEqual([12, 46]);
    expect(text.slice(...(at as [number, number]))).toBe('Rs 1,234.5 crore in FY24,\n  up 12%');
  });
  it('keeps a recorded span that still holds the quote; searches when it does not; null when absent', () => {
    expect(findQuote(text, 'Revenue', [0, 7])).toEqual([0, 7]);
    expect(findQuote(text, 'Revenue', [3, 10])).toEqual([0, 7]);
    expect(findQuote(text, 'Rs 9 crore')).toBeNull();
  });
});

describe('a question review session', () => {
  it('shows each gold quote highlighted in its page, found by its span', async () => {
    const { s } = await session();
    const v = await s.view(0);
    expect(v.id).toBe('gen-001');
    expect(v.decision).toBeNull();
    const [q] = v.quotes;
    expect(q).toMatchObject({ document: 'acme-fy24.md', found: 'span', section: 'Revenue', problem: null });
    // the page is the text rge's Markdown reader makes of the file (a wrapped paragraph is one line)
    expect(q?.match).toBe('Consolidated revenue from operations was Rs 1,234.5 crore in FY24, up 12%');
    expect(`${q?.before}${q?.match}${q?.after}`).toBe(markdownPage(DOCUMENTS['acme-fy24.md'] as string).text);
  });

  it('records accept and reject, reads them back, resumes at the first undecided, and undoes the last', async () => {
    const { s, file } = await session();
    await s.submit({ question_id: 'gen-001', decision: 'accepted' });
    await s.submit({
      question_id: 'gen-002',
      decision: 'rejected',
      reason: 'other',
      note: 'asks two things',
    });
    let state = await s.state();
    expect(state.decided).toEqual({
      'gen-001': { decision: 'accepted', reason: null },
      'gen-002': { decision: 'rejected', reason: 'other' },
    });
    expect(state.start).toBe(2);
    expect(state.summary_lines[0]).toBe(
      'reviewed 2 of 4 (2 unreviewed): 1 accepted, 0 edited, 1 rejected (other 1)',
    );
    expect((await s.view(1)).decision).toMatchObject({ decision: 'rejected', note: 'asks two things' });
    expect(await s.undo()).toBe('gen-002');
    state = await s.state();
    expect(Object.keys(state.decided)).toEqual(['gen-001']);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('refuses a rejection without a reason, or "other" without a note, writing nothing', async () => {
    const { s, file } = await session();
    await expect(s.submit({ question_id: 'gen-001', decision: 'rejected' })).rejects.toThrow(/reason/);
    await expect(s.submit({ question_id: 'gen-001', decision: 'rejected', reason: 'other' })).rejects.toThrow(
      "note: the reason 'other' needs a note saying why",
    );
    await expect(s.submit({ question_id: 'gen-009', decision: 'accepted' })).rejects.toThrow(
      'no question gen-009',
    );
    expect(existsSync(file)).toBe(false);
  });

  it('re-verifies an edit: kept with its quote located again and provenance.review edited', async () => {
    const { s } = await session();
    const quote = 'The board recommended a final dividend of Rs 8 per equity share';
    await s.submit({
      question_id: 'gen-002',
      decision: 'edited',
      edits: {
        text: 'What final dividend per share did Acme recommend for FY24?',
        gold_answer: 'Rs 8 per equity share',
        gold_quotes: [quote],
      },
    });
    const v = await s.view(1);
    expect(v.decision?.decision).toBe('edited');
    expect(v.question.gold_answer).toBe('Rs 8 per equity share');
    expect(v.question.provenance?.review).toBe('edited');
    expect(v.generated?.gold_answer).toBe('Rs 8 per share');
    const doc = markdownPage(DOCUMENTS['acme-fy24.md'] as string).text;
    const start = doc.indexOf(quote);
    expect(v.question.gold_quote_locations?.[0]?.span).toEqual([start, start + quote.length]);
    expect(v.quotes[0]?.found).toBe('span');
  });

  it('refuses an edit whose quote is not in its document (422, the reason), writing nothing; the question stays pending', async () => {
    const { s, file } = await session();
    const edit = s.submit({
      question_id: 'gen-003',
      decision: 'edited',
      edits: { text: 'x?', gold_answer: '18.0%', gold_quotes: ['The capital adequacy ratio stood at 18.0%'] },
    });
    await expect(edit).rejects.toBeInstanceOf(ReviewRefusal);
    await expect(edit).rejects.toMatchObject({
      status: 422,
      reason: 'quote-not-found',
      message: expect.stringContaining('is not in beta-fy24.md'),
    });
    expect(existsSync(file)).toBe(false);
    expect((await s.view(2)).decision).toBeNull();
  });

  it('refuses an edit that changes nothing, or the number of quotes', async () => {
    const { s, questions } = await session();
    const q = questions[0];
    const same = {
      text: q?.text ?? '',
      gold_answer: q?.gold_answer ?? '',
      gold_quotes: q?.gold_quotes ?? [],
    };
    await expect(s.submit({ question_id: 'gen-001', decision: 'edited', edits: same })).rejects.toThrow(
      'nothing changed',
    );
    await expect(
      s.submit({ question_id: 'gen-001', decision: 'edited', edits: { ...same, gold_quotes: [] } }),
    ).rejects.toThrow('keeps the number of gold quotes (1)');
  });

  it('uses the injected re-verification in place of the default', async () => {
    const calls: string[] = [];
    const { s } = await session(async (q) => {
      calls.push(q.gold_answer);
      return { ok: false, reason: 'answer-supported', message: 'the quotes do not support 99' };
    });
    await expect(
      s.submit({
        question_id: 'gen-004',
        decision: 'edited',
        edits: { text: 'How many?', gold_answer: '99', gold_quotes: ['The bank operated 1,520 branches'] },
      }),
    ).rejects.toMatchObject({
      status: 422,
      reason: 'answer-supported',
      message: expect.stringContaining('do not support 99'),
    });
    expect(calls).toEqual(['99']);
  });
});
