/**
 * The order a review shows the questions in. A person reviews the first N of it; for their verdicts to
 * say something about the questions not reviewed, those N should be a random sample of all, so the
 * default is a seeded random order (recorded in the review file, so a resumed review keeps it).
 */
import { randomBytes } from 'node:crypto';
import seedrandom from 'seedrandom';
import { shuffle } from '../../util/shuffle.ts';
import type { Question } from '../schema.ts';
import type { ReviewOrder } from './record.ts';

/** A fresh seed for a random order when none is given: 8 hex digits, recorded in the review file. */
export const freshSeed = () => randomBytes(4).toString('hex');

/** The question ids in review order: the file's, or shuffled by seedrandom on the order's seed. */
export function reviewOrder(
  questions: readonly Question[],
  order: Pick<ReviewOrder, 'order' | 'seed'>,
): string[] {
  const ids = questions.map((q) => q.id);
  if (order.order === 'file') return ids;
  return shuffle(ids, seedrandom(`${order.seed}:question-review`));
}
