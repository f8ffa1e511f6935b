/**
 * `rge questions review --write` and `--summary` through the CLI's entry: only accepted and edited
 * questions are written (provenance.review saying which, an edit as edited), atomically; nothing is
 * written and the exit is non-zero when none is approved; the summary prints the counts and intervals.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendReviewRecord,
  questionHash,
  type ReviewDecision,
  reviewFileOf,
} from '../../../src/questions/review/index.ts';
import { Question } from '../../../src/questions/schema.ts';
import { runRge } from '../../helpers/cli.ts';
import { writeGeneratedFixture } from './generated-fixture.ts';

const AT = '2025-01-02T03:04:05.000Z';

function decision(q: Question, over: Partial<ReviewDecision> = {}): ReviewDecision {
  return {
    kind: 'decision',
    question_id: q.id,
    question_hash: questionHash(q),
    decision: 'accepted',
    at: AT,
    ...over,
  };
}

describe('rge questions review --write', () => {
  it('writes only the accepted and edited questions, in file order, with provenance.review', async () => {
    const { dir, questionsFile, questions } = await writeGeneratedFixture();
    const [q1, q2, q3, q4] = questions as [Question, Question, Question, Question];
    const file = reviewFileOf(questionsFile);
    const edited = {
      ...q3,
      gold_answer: '17.4 per cent',
      provenance: { ...(q3.provenance as NonNullable<Question['provenance']>), review: 'edited' as const },
    };
    await appendReviewRecord(file, { kind: 'order', order: 'random', seed: 's', at: AT });
    await appendReviewRecord(file, decision(q4, { decision: 'rejected', reason: 'duplicate' }));
    await appendReviewRecord(file, decision(q3, { decision: 'edited', question: edited }));
    await appendReviewRecord(file, decision(q1));
    const { code, out } = await runRge(
      dir,
      'questions',
      'review',
      '--questions',
      'generated.jsonl',
      '--write',
      'golden.jsonl',
    );
    expect(code).toBe(0);
    expect(out).toBe('wrote 2 questions to golden.jsonl (1 accepted, 1 edited, 1 rejected, 1 unreviewed)\n');
    const written = readFileSync(join(dir, 'golden.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => Question.parse(JSON.parse(l)));
    expect(written.map((q) => [q.id, q.provenance?.review, q.gold_answer])).toEqual([
      [q1.id, 'accepted', q1.gold_answer],
      [q3.id, 'edited', '17.4 per cent'],
    ]);
    expect(written.map((q) => q.id)).not.toContain(q2.id);
  });

  it('refuses, writing nothing, when nothing is accepted or edited', async () => {
    const { dir, questionsFile, questions } = await writeGeneratedFixture();
    await appendReviewRecord(
      reviewFileOf(questionsFile),
      decision(questions[0] as Question, { decision: 'rejected', reason: 'wrong-answer' }),
    );
    const { code, err } = await runRge(
      dir,
      'questions',
      'review',
      '--questions',
      'generated.jsonl',
      '--write',
      'golden.jsonl',
    );
    expect(code).toBe(1);
    expect(err).toContain('nothing to write: no question of generated.jsonl is accepted or edited');
    expect(err).toContain('0 accepted, 0 edited, 1 rejected, 3 unreviewed');
    expect(existsSync(join(dir, 'golden.jsonl'))).toBe(false);
  });

  it('a bad line of the review file stops it, naming file:line', async () => {
    const { dir, questionsFile } = await writeGeneratedFixture();
    await appendReviewRecord(reviewFileOf(questionsFile), {
      kind: 'order',
      order: 'file',
      seed: null,
      at: AT,
    });
    const { appendFile } = await import('node:fs/promises');
    await appendFile(reviewFileOf(questionsFile), '{"kind":"undo"}\n');
    const { code, err } = await runRge(
      dir,
      'questions',
      'review',
      '--questions',
      'generated.jsonl',
      '--write',
      'g.jsonl',
    );
    expect(code).toBe(1);
    expect(err).toMatch(/generated\.jsonl\.review\.jsonl:2: question_id: /);
  });
});

describe('rge questions review --summary', () => {
  it('prints the counts, the intervals and what the projection assumes', async () => {
    const { dir, questionsFile, questions } = await writeGeneratedFixture();
    const file = reviewFileOf(questionsFile);
    await appendReviewRecord(file, { kind: 'order', order: 'file', seed: null, at: AT });
    await appendReviewRecord(file, decision(questions[0] as Question));
    await appendReviewRecord(
      file,
      decision(questions[1] as Question, { decision: 'rejected', reason: 'ambiguous' }),
    );
    const { code, out } = await runRge(
      dir,
      'questions',
      'review',
      '--questions',
      'generated.jsonl',
      '--summary',
    );
    expect(code).toBe(0);
    // 1 of 2: Wilson (0.0945, 0.9055)
    expect(out.split('\n')).toEqual([
      'reviewed 2 of 4 (2 unreviewed): 1 accepted, 0 edited, 1 rejected (ambiguous 1)',
      'kept (accepted or edited): 1 of 2 = 50.0% (95% Wilson interval 9.5% to 90.5%)',
      'generator error rate (edited or rejected): 1 of 2 = 50.0% (95% Wilson interval 9.5% to 90.5%)',
      "of the 2 unreviewed, between 0 and 2 are expected to need a fix (the error rate's interval times 2; reviewed in " +
        'file order, not a random sample: the projection assumes the order of the file is unrelated to quality (review ' +
        'with --order random for a random sample))',
      '',
    ]);
  });

  it('--summary and --write together are a usage error', async () => {
    const { dir } = await writeGeneratedFixture();
    const r = await runRge(
      dir,
      'questions',
      'review',
      '--questions',
      'generated.jsonl',
      '--summary',
      '--write',
      'g.jsonl',
    );
    expect(r.code).toBe(2);
  });
});
