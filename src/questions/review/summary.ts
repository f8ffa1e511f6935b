/**
 * What a review of generated questions says (pure): how many were reviewed, accepted, edited and
 * rejected (by reason); the share kept and the generator's error rate (edited or rejected: the share
 * that needed a person's fix), each with its 95% Wilson score interval (stats/proportion.ts); and the
 * error rate projected to the questions not reviewed. The projection is only as good as the sample:
 * the summary says whether the reviewed questions are the first of a seeded random order (a random
 * sample) or not, and what the projection then assumes.
 */
import { type ProportionInterval, wilsonInterval } from '../../stats/index.ts';
import { REJECT_REASONS, type RejectReason, type ReviewDecision, type ReviewOrder } from './record.ts';

/** How the reviewed questions were chosen, and what a projection from them assumes. */
export interface ReviewSample {
  order: ReviewOrder['order'] | null;
  seed: string | null;
  /** the reviewed questions are exactly the first ones of the review order (none skipped) */
  prefix: boolean;
  /** in words: whether they are a random sample, and what the projection assumes */
  assumption: string;
}

export interface ReviewSummary {
  total: number;
  reviewed: number;
  accepted: number;
  edited: number;
  rejected: number;
  rejectedBy: Record<RejectReason, number>;
  unreviewed: number;
  /** decisions about questions the file no longer holds as they were (not counted as reviewed) */
  stale: number;
  /** kept in the golden set (accepted or edited) of reviewed, with its 95% Wilson interval */
  kept: ProportionInterval;
  /** the generator's error rate: needed a fix (edited or rejected) of reviewed, with its 95% Wilson interval */
  errorRate: ProportionInterval;
  /**
   * the unreviewed questions expected to need a fix: the error rate's interval times their count,
   * rounded outwards; null before any review or when none is left
   */
  projection: { unreviewed: number; low: number; high: number } | null;
  sample: ReviewSample;
}

/** What a sample of the first reviewed questions of an order assumes, in words. */
function sampleOf(
  order: Pick<ReviewOrder, 'order' | 'seed'> | null,
  prefix: boolean,
  n: number,
): ReviewSample {
  const seed = order?.seed ?? null;
  const base = { order: order?.order ?? null, seed, prefix };
  if (order?.order === 'random' && prefix)
    return {
      ...base,
      assumption: `the ${n} reviewed are the first of a seeded random order (seed ${seed}): a random sample of all`,
    };
  if (order?.order === 'random')
    return {
      ...base,
      assumption: `reviewed in a seeded random order (seed ${seed}) but with questions skipped: the projection assumes the skipped ones are no different from the reviewed`,
    };
  return {
    ...base,
    assumption:
      'reviewed in file order, not a random sample: the projection assumes the order of the file is unrelated to quality (review with --order random for a random sample)',
  };
}

/**
 * The summary of a review: `order` is every question id in review order, `decided` the standing
 * decision per question id (questions not in it are unreviewed), `reviewOrder` the review's recorded order.
 */
export function reviewSummary(input: {
  order: readonly string[];
  decided: ReadonlyMap<string, Pick<ReviewDecision, 'decision' | 'reason'>>;
  reviewOrder: Pick<ReviewOrder, 'order' | 'seed'> | null;
  stale?: number;
}): ReviewSummary {
  const decisions = input.order.flatMap((id) => {
    const d = input.decided.get(id);
    return d ? [d] : [];
  });
  const count = (kind: ReviewDecision['decision']) => decisions.filter((d) => d.decision === kind).length;
  const [accepted, edited, rejected] = [count('accepted'), count('edited'), count('rejected')];
  const rejectedBy = Object.fromEntries(
    REJECT_REASONS.map((r) => [r, decisions.filter((d) => d.reason === r).length]),
  ) as Record<RejectReason, number>;
  const reviewed = decisions.length;
  const unreviewed = input.order.length - reviewed;
  const errorRate = wilsonInterval(edited + rejected, reviewed);
  const projection =
    errorRate.low === null || errorRate.high === null || unreviewed === 0
      ? null
      : {
          unreviewed,
          low: Math.floor(errorRate.low * unreviewed + 1e-9),
          high: Math.ceil(errorRate.high * unreviewed - 1e-9),
        };
  const prefix = input.order.slice(0, reviewed).every((id) => input.decided.has(id));
  return {
    total: input.order.length,
    reviewed,
    accepted,
    edited,
    rejected,
    rejectedBy,
    unreviewed,
    stale: input.stale ?? 0,
    kept: wilsonInterval(accepted + edited, reviewed),
    errorRate,
    projection,
    sample: sampleOf(input.reviewOrder, prefix, reviewed),
  };
}

const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

/** `15 of 60 = 25.0% (95% Wilson interval 15.8% to 37.2%)` */
function shareText(p: ProportionInterval): string {
  if (p.low === null || p.high === null) return `${p.successes} of ${p.n}`;
  return `${p.successes} of ${p.n} = ${percent(p.share)} (95% Wilson interval ${percent(p.low)} to ${percent(p.high)})`;
}

/** The summary as `rge questions review --summary` prints it and the page's header shows it: one fact a line. */
export function formatReviewSummary(s: ReviewSummary): string[] {
  const reasons = REJECT_REASONS.filter((r) => s.rejectedBy[r] > 0).map((r) => `${r} ${s.rejectedBy[r]}`);
  const lines = [
    `reviewed ${s.reviewed} of ${s.total} (${s.unreviewed} unreviewed): ${s.accepted} accepted, ${s.edited} edited, ` +
      `${s.rejected} rejected${reasons.length > 0 ? ` (${reasons.join(', ')})` : ''}`,
  ];
  if (s.stale > 0)
    lines.push(
      `${s.stale} earlier decision(s) are about questions the file no longer holds as they were: not counted; review them again`,
    );
  if (s.reviewed === 0) return lines;
  lines.push(
    `kept (accepted or edited): ${shareText(s.kept)}`,
    `generator error rate (edited or rejected): ${shareText(s.errorRate)}`,
  );
  if (s.projection)
    lines.push(
      `of the ${s.projection.unreviewed} unreviewed, between ${s.projection.low} and ${s.projection.high} are expected to need a fix ` +
        `(the error rate's interval times ${s.projection.unreviewed}; ${s.sample.assumption})`,
    );
  return lines;
}
