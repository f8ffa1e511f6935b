/**
 * The review file of generated questions: records validated, the last decision per question wins, an
 * undo brings back the one before, a resumed review reads back everything, a torn last line is skipped
 * and a bad line is an error naming file:line; a decision about a question regenerated since is stale.
 */
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendReviewRecord,
  currentDecisions,
  questionHash,
  type ReviewDecision,
  ReviewRecord,
  readReviewLedger,
  reviewFileOf,
  reviewOrder,
} from '../../../src/questions/review/index.ts';
import { generatedQuestion, writeGeneratedFixture } from './generated-fixture.ts';

const AT = '2025-01-02T03:04:05.000Z';
const q0 = generatedQuestion(0);
const q1 = generatedQuestion(1);

function decision(q = q0, over: Partial<ReviewDecision> = {}): ReviewDecision {
  return {
    kind: 'decision',
    question_id: q.id,
    question_hash: questionHash(q),
    decision: 'accepted',
    at: AT,
    ...over,
  };
}

async function reviewFile(): Promise<string> {
  const { questionsFile } = await writeGeneratedFixture();
  return reviewFileOf(questionsFile);
}

describe('the review record', () => {
  it('needs a reason to reject, a note for "other", the edited question to edit', () => {
    const issues = (r: unknown) => ReviewRecord.safeParse(r).error?.issues.map((i) => i.message) ?? [];
    expect(issues(decision(q0, { decision: 'rejected' }))).toEqual(['a rejection needs a reason']);
    expect(issues(decision(q0, { decision: 'rejected', reason: 'other' }))).toEqual([
      "the reason 'other' needs a note saying why",
    ]);
    expect(issues(decision(q0, { decision: 'edited' }))).toEqual(['an edit carries the edited question']);
    expect(issues(decision(q0, { decision: 'edited', question: q1 }))).toEqual([
      `the edited question's id ${q1.id} is not ${q0.id}`,
    ]);
    expect(issues(decision(q0, { decision: 'rejected', reason: 'duplicate' }))).toEqual([]);
  });
});

describe('the review file', () => {
  it('is beside the questions file', () => {
    expect(reviewFileOf('/x/generated.jsonl')).toBe('/x/generated.jsonl.review.jsonl');
  });

  it('resumes: the order and every standing decision are read back; the last decision per question wins', async () => {
    const file = await reviewFile();
    await appendReviewRecord(file, { kind: 'order', order: 'random', seed: 's1', at: AT });
    await appendReviewRecord(file, decision(q0));
    await appendReviewRecord(file, decision(q1, { decision: 'rejected', reason: 'ambiguous' }));
    await appendReviewRecord(file, decision(q0, { decision: 'rejected', reason: 'wrong-answer' }));
    const ledger = await readReviewLedger(file);
    expect(ledger.order).toMatchObject({ order: 'random', seed: 's1' });
    expect(ledger.standing.map((d) => [d.question_id, d.decision, d.reason, d.line])).toEqual([
      [q1.id, 'rejected', 'ambiguous', 3],
      [q0.id, 'rejected', 'wrong-answer', 4],
    ]);
  });

  it('an undo takes back the latest decision of its question and brings back the one before', async () => {
    const file = await reviewFile();
    await appendReviewRecord(file, decision(q0));
    await appendReviewRecord(file, decision(q0, { decision: 'rejected', reason: 'bad-quote' }));
    await appendReviewRecord(file, { kind: 'undo', question_id: q0.id, at: AT });
    expect((await readReviewLedger(file)).standing.map((d) => d.decision)).toEqual(['accepted']);
    await appendReviewRecord(file, { kind: 'undo', question_id: q0.id, at: AT });
    expect((await readReviewLedger(file)).standing).toEqual([]);
  });

  it('a malformed line is an error naming file:line and what to do', async () => {
    const file = await reviewFile();
    await appendReviewRecord(file, decision(q0));
    await appendFile(file, '{"kind":"decision","question_id":"gen-002"}\n');
    await appendReviewRecord(file, decision(q1));
    await expect(readReviewLedger(file)).rejects.toThrow(
      new RegExp(
        `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: question_hash: .*fix or delete that line`,
      ),
    );
    await writeFile(file, `${JSON.stringify(decision(q0))}\nnot json\n`);
    await expect(readReviewLedger(file)).rejects.toThrow(/\.review\.jsonl:2: invalid JSON/);
  });

  it('a torn last line (a crash mid-write) is skipped by the reader and set aside by the next append', async () => {
    const file = await reviewFile();
    await appendReviewRecord(file, decision(q0));
    await appendFile(file, '{"kind":"decision","quest');
    expect((await readReviewLedger(file)).standing).toHaveLength(1);
    await appendReviewRecord(file, decision(q1));
    expect((await readReviewLedger(file)).standing.map((d) => d.question_id)).toEqual([q0.id, q1.id]);
    expect(await readFile(`${file}.torn`, 'utf8')).toBe('{"kind":"decision","quest\n');
  });

  it('a decision about a question regenerated since (another hash) is stale, and the question pending', async () => {
    const file = await reviewFile();
    await appendReviewRecord(file, decision(q0));
    await appendReviewRecord(file, decision(q1));
    const changed = { ...q1, gold_answer: 'Rs 9 per share' };
    const { decided, stale } = currentDecisions(await readReviewLedger(file), [q0, changed]);
    expect([...decided.keys()]).toEqual([q0.id]);
    expect(stale.map((d) => d.question_id)).toEqual([q1.id]);
  });

  it('a random order is the same for the same seed, another for another, and file order is the file', () => {
    const qs = [0, 1, 2, 3].map((i) => generatedQuestion(i));
    const a = reviewOrder(qs, { order: 'random', seed: 'x' });
    expect(reviewOrder(qs, { order: 'random', seed: 'x' })).toEqual(a);
    expect([...a].sort()).toEqual(qs.map((q) => q.id));
    const seeds = ['a', 'b', 'c', 'd', 'e'].map((s) => reviewOrder(qs, { order: 'random', seed: s }).join());
    expect(new Set(seeds).size).toBeGreaterThan(1);
    expect(reviewOrder(qs, { order: 'file', seed: null })).toEqual(qs.map((q) => q.id));
  });
});

describe('the review file on disk', () => {
  it('holds one JSON record a line', async () => {
    const file = await reviewFile();
    await appendReviewRecord(file, decision(q0));
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(lines.map((l) => ReviewRecord.parse(JSON.parse(l)).kind)).toEqual(['decision']);
    expect(file.endsWith(join('generated.jsonl.review.jsonl'))).toBe(true);
  });
});
