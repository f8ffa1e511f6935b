/**
 * The judge-validation sample (methodology 5.4): 50 responses in four strata by question category —
 * 10 grounded-direct, 10 grounded-multihop, 20 adversarial (over-weighted: judge reliability degrades
 * most there), 10 out-of-domain — each stratum drawn proportionally across the run's subjects.
 *
 * Allocation is by largest remainder (Hamilton): a stratum's quota is split over the subjects in
 * proportion to the completed responses each has in that stratum (equal shares when every cell is
 * complete); the floors first, then one more to the largest remainders, ties to the earlier subject.
 * Within a (stratum, subject) the responses are shuffled by a seeded generator (seedrandom) and taken
 * in that order, questions not yet drawn first, so the sample covers as many questions as it can. The
 * drawn items are shuffled once more so that the labelling order mixes strata and subjects.
 *
 * Pure: the same candidates and seed give the same sample.
 */
import seedrandom from 'seedrandom';
import { QUESTION_CATEGORIES, type QuestionCategory } from '../questions/schema.ts';
import { RgeError } from '../util/errors.ts';
import { sha256 } from '../util/fs.ts';
import { largestRemainder, shuffle } from '../util/shuffle.ts';

export { largestRemainder };

import type { ValidationItem, ValidationSample } from './schema.ts';

/** The methodology's strata for a 50-response validation set. */
export const VALIDATION_STRATA: Readonly<Record<QuestionCategory, number>> = Object.freeze({
  'grounded-direct': 10,
  'grounded-multihop': 10,
  adversarial: 20,
  'out-of-domain': 10,
});

export const VALIDATION_SIZE = 50;

/** The stratum sizes of a sample of `size` responses: the methodology's 10/10/20/10, scaled. */
export function stratumQuotas(size: number): Record<QuestionCategory, number> {
  const shares = largestRemainder(
    size,
    QUESTION_CATEGORIES.map((c) => VALIDATION_STRATA[c]),
  );
  return Object.fromEntries(QUESTION_CATEGORIES.map((c, i) => [c, shares[i] ?? 0])) as Record<
    QuestionCategory,
    number
  >;
}

export interface DrawOptions {
  size: number;
  seed: string;
  /** the run's subjects, in config order (a subject with no completed response is allocated 0) */
  subjects: readonly string[];
  /** the config as given, its name, and the run's id */
  config: string;
  configName: string;
  runId: string;
  createdAt: string;
}

/** `<config name>-<short hash of the item ids>`. */
export function sampleId(configName: string, itemIds: readonly string[]): string {
  const name = configName.replace(/[^A-Za-z0-9._-]+/g, '_');
  return `${name}-${sha256([...itemIds].sort().join('\n')).slice(0, 12)}`;
}

/**
 * Draws the validation sample from a run's completed responses. A stratum with fewer completed
 * responses than its quota is an error naming it (draw a smaller `size`, or complete the run).
 */
export function drawValidationSample(
  candidates: readonly ValidationItem[],
  opts: DrawOptions,
): ValidationSample {
  if (!Number.isInteger(opts.size) || opts.size < 1)
    throw new RgeError(`the sample size must be a positive integer, got ${opts.size}`, { exitCode: 2 });
  const random = seedrandom(opts.seed);
  const quotas = stratumQuotas(opts.size);
  const pools = new Map<QuestionCategory, ValidationItem[]>();
  for (const c of QUESTION_CATEGORIES) pools.set(c, []);
  for (const item of [...candidates].sort((a, b) => (a.item_id < b.item_id ? -1 : 1)))
    pools.get(item.category)?.push(item);
  const short = QUESTION_CATEGORIES.filter((c) => (pools.get(c)?.length ?? 0) < quotas[c]);
  if (short.length > 0)
    throw new RgeError(
      `too few completed responses for the validation strata: ${short
        .map((c) => `${c} needs ${quotas[c]}, the run has ${pools.get(c)?.length ?? 0}`)
        .join('; ')}. Complete or widen the run, or draw a smaller sample (--size).`,
    );
  const allocation = {} as ValidationSample['allocation'];
  const drawn: ValidationItem[] = [];
  const drawnQuestions = new Set<string>();
  for (const category of QUESTION_CATEGORIES) {
    const pool = pools.get(category) ?? [];
    const bySubject = opts.subjects.map((s) => pool.filter((item) => item.subject_id === s));
    const shares = largestRemainder(
      quotas[category],
      bySubject.map((items) => items.length),
    );
    allocation[category] = Object.fromEntries(opts.subjects.map((s, i) => [s, shares[i] ?? 0]));
    for (const [i, items] of bySubject.entries()) {
      const share = shares[i] ?? 0;
      const taken: ValidationItem[] = [];
      const deferred: ValidationItem[] = [];
      for (const item of shuffle(items, random)) {
        if (taken.length === share) break;
        if (drawnQuestions.has(item.question_id)) deferred.push(item);
        else {
          taken.push(item);
          drawnQuestions.add(item.question_id);
        }
      }
      taken.push(...deferred.slice(0, share - taken.length));
      drawn.push(...taken);
    }
  }
  const items = shuffle(drawn, random);
  return {
    sample_id: sampleId(
      opts.configName,
      items.map((item) => item.item_id),
    ),
    created_at: opts.createdAt,
    config: opts.config,
    run_id: opts.runId,
    seed: opts.seed,
    allocation,
    items,
  };
}
