/**
 * An edit on the review page is verified again as a generated candidate is: against the chunks of the
 * index the set was generated on, an edit that breaks a check is refused with its reason, and one that
 * passes is recorded with its quotes as the chunks print them and its gold chunk ids brought up to date.
 */
import { describe, expect, it } from 'vitest';
import { chunkId } from '../../../src/corpus/chunk.ts';
import { detectLanguage } from '../../../src/corpus/formats/language.ts';
import type { Chunk } from '../../../src/corpus/schema.ts';
import { CandidateBody, candidateId } from '../../../src/questions/generate/candidate.ts';
import { verificationReverify } from '../../../src/questions/generate/reverify.ts';
import { toQuestion } from '../../../src/questions/generate/to-question.ts';
import { QuoteIndex } from '../../../src/questions/generate/verify/quote-index.ts';
import { verifyOne } from '../../../src/questions/generate/verify/verify.ts';
import { Question } from '../../../src/questions/schema.ts';
import { bm25TopK } from '../../../src/run/generate/retrievers.ts';

const DOC = 'pricing.md';
const chunk = (text: string): Chunk => ({
  id: chunkId('pricing', null, text),
  company: 'pricing',
  fy: null,
  source: DOC,
  heading: 'Plans',
  pages: [1, 1],
  tokens: 30,
  text,
});
const A = chunk('Plans\nThe Team plan costs $14 per member per month and includes 500 GB of storage.');
const B = chunk('Refunds\nAnnual plans can be refunded in full within 30 days of purchase.');
const quotes = new QuoteIndex([A, B], { pageless: () => true });
const ctx = {
  quotes,
  retrievers: [bm25TopK([A, B])],
  language: { detect: detectLanguage, documents: new Map([[DOC, 'en']]) },
  documentOf: () => ({ company: 'pricing', fy: null }),
  indexChecksum: 'checksum-1',
};

async function generated(): Promise<Question> {
  const body = CandidateBody.parse({
    category: 'grounded-direct',
    text: 'How much does the Team plan cost per member each month?',
    gold_answer: '$14 per member per month.',
    gold_quotes: [{ document: DOC, text: 'The Team plan costs $14 per member per month' }],
    expected_behavior: 'answer',
  });
  const generator = {
    id: 'openai/gpt-5.4',
    family: 'openai',
    kind: 'model' as const,
    prompt_hash: 'p',
    seed: 's',
  };
  const candidate = {
    id: candidateId(body, [A.id]),
    body,
    generator,
    document: DOC,
    source_chunk_ids: [A.id],
  };
  const outcome = await verifyOne(candidate, ctx);
  if (!('ok' in outcome)) throw new Error(outcome.failed.message);
  return Question.parse(toQuestion(outcome.ok, 'gd-001', ctx.documentOf, ctx.indexChecksum));
}

describe('an edit verified again', () => {
  const reverify = verificationReverify(ctx);

  it('refuses an edit whose answer states a figure no quote prints', async () => {
    const q = await generated();
    const r = await reverify({ ...q, gold_answer: '$16 per member per month.' });
    expect(r).toMatchObject({ ok: false, reason: 'figure-not-in-quotes' });
  });

  it('refuses a paraphrased quote and a question that gives its answer away', async () => {
    const q = await generated();
    expect(await reverify({ ...q, gold_quotes: ['Team costs 14 dollars a member monthly'] })).toMatchObject({
      ok: false,
      reason: 'quote-not-found',
    });
    expect(await reverify({ ...q, text: 'Does the Team plan cost $14 per member per month?' })).toMatchObject(
      {
        ok: false,
        reason: 'answer-leaked',
      },
    );
  });

  it('records a passing edit with its quote as the chunk prints it and its chunk ids brought up to date', async () => {
    const q = await generated();
    const r = await reverify({
      ...q,
      text: 'For how long can an annual plan be refunded in full?',
      gold_answer: 'Within 30 days of purchase.',
      gold_quotes: ['annual plans can be refunded in full within 30 days of purchase'],
    });
    if (!r.ok) throw new Error(r.message);
    expect(r.question.gold_chunk_ids).toEqual([B.id]);
    expect(r.question.gold_quotes).toEqual([
      'Annual plans can be refunded in full within 30 days of purchase',
    ]);
    expect(r.question.gold_quote_locations?.[0]).toMatchObject({
      document: DOC,
      page: null,
      resolved: true,
      section: 'Plans',
    });
    expect(r.question.provenance?.checks).toContain('answer-supported');
  });
});
