/**
 * `rge questions review` starting the page (in-process, port 0, no browser): a seeded random order by
 * default, recorded once in the review file and kept on resume; a resume with another order or seed is
 * a usage error; the flags it needs.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type QuestionReviewFlags, startQuestionReview } from '../../../src/cli/questions-review.ts';
import { ReviewRecord, reviewFileOf } from '../../../src/questions/review/index.ts';
import { captureIO } from '../../helpers/cli.ts';
import { writeGeneratedFixture } from './generated-fixture.ts';

async function started(
  flags: Partial<QuestionReviewFlags>,
  f: Awaited<ReturnType<typeof writeGeneratedFixture>>,
) {
  const io = captureIO(f.dir);
  const server = await startQuestionReview(
    { questions: f.questionsFile, documents: f.documents, port: '0', open: false, ...flags },
    io,
  );
  await server.close();
  return io.text;
}

const records = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => ReviewRecord.parse(JSON.parse(l)));

describe('rge questions review (the page)', () => {
  it('records a seeded random order by default, once, and resumes in it', async () => {
    const f = await writeGeneratedFixture();
    const out = await started({}, f);
    const [order, ...rest] = records(reviewFileOf(f.questionsFile));
    expect(rest).toEqual([]);
    expect(order).toMatchObject({
      kind: 'order',
      order: 'random',
      seed: expect.stringMatching(/^[0-9a-f]{8}$/),
    });
    const seed = order?.kind === 'order' ? order.seed : null;
    expect(out).toContain(
      `reviewing 4 questions of generated.jsonl in random order (seed ${seed}): 0 decided so far`,
    );
    expect(out).toMatch(/open http:\/\/127\.0\.0\.1:\d+\//);
    await started({}, f);
    expect(records(reviewFileOf(f.questionsFile))).toHaveLength(1);
  });

  it('takes --seed; a resume with another seed or order is a usage error', async () => {
    const f = await writeGeneratedFixture();
    await started({ seed: 'abc' }, f);
    expect(records(reviewFileOf(f.questionsFile))[0]).toMatchObject({ order: 'random', seed: 'abc' });
    await expect(started({ seed: 'xyz' }, f)).rejects.toThrow(
      'this review is in random order (seed abc), as its review file records',
    );
    await expect(started({ order: 'file' }, f)).rejects.toMatchObject({ exitCode: 2 });
  });

  it('needs --documents, a known --order, and no --seed in file order', async () => {
    const f = await writeGeneratedFixture();
    await expect(started({ documents: undefined }, f)).rejects.toThrow('--documents DIR is needed');
    await expect(started({ order: 'shuffled' }, f)).rejects.toThrow('--order must be random or file');
    await expect(started({ order: 'file', seed: 's' }, f)).rejects.toThrow('--seed is for --order random');
  });
});
