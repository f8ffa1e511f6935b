/**
 * Custom matchers over an rge case record. Each compares the case's mean judge score with the threshold
 * the run config sets; a threshold of null records the score without gating (the matcher passes and
 * says so). An unscored case (both judges' replies unparseable) fails a gated matcher: it cannot be
 * shown to meet the threshold, and it is never counted as a zero.
 *
 * - toBeCorrect: correctness ≥ thresholds.correctness (0-2)
 * - toBeGrounded: grounding ≥ thresholds.grounding (0-2)
 * - toBeCalibrated: calibration ≥ thresholds.calibration (0-2)
 * - toMeetExpectedBehavior: the case as a whole, GFS primary ≥ thresholds.gfs (0-1); the message also
 *   says whether the answer refused or answered as the question expects
 */
import { expect } from 'vitest';

export interface Thresholds {
  correctness: number | null;
  grounding: number | null;
  calibration: number | null;
  gfs: number | null;
}

export interface GatedCase {
  question_id: string;
  thresholds: Thresholds;
  scores: {
    correctness: number | null;
    grounding: number | null;
    calibration: number | null;
    gfsPrimary: number | null;
  };
  checks: { refusalAccuracy?: { passed: boolean | null; detail: string } } & Record<string, unknown>;
}

interface MatcherResult {
  pass: boolean;
  message: () => string;
}

function gate(
  received: GatedCase,
  label: string,
  score: number | null,
  threshold: number | null,
): MatcherResult {
  if (threshold === null) {
    return {
      pass: true,
      message: () =>
        `${received.question_id}: ${label} ${score ?? 'unscored'} recorded (threshold null: not gated)`,
    };
  }
  if (score === null) {
    return {
      pass: false,
      message: () => `${received.question_id}: ${label} is unscored (no judge reply could be parsed)`,
    };
  }
  return {
    pass: score >= threshold,
    message: () =>
      `${received.question_id}: ${label} ${score.toFixed(3)} ${score >= threshold ? '>=' : '<'} threshold ${threshold}`,
  };
}

export const rgeMatchers = {
  toBeCorrect(received: GatedCase): MatcherResult {
    return gate(received, 'correctness', received.scores.correctness, received.thresholds.correctness);
  },
  toBeGrounded(received: GatedCase): MatcherResult {
    return gate(received, 'grounding', received.scores.grounding, received.thresholds.grounding);
  },
  toBeCalibrated(received: GatedCase): MatcherResult {
    return gate(received, 'calibration', received.scores.calibration, received.thresholds.calibration);
  },
  toMeetExpectedBehavior(received: GatedCase): MatcherResult {
    const result = gate(received, 'GFS', received.scores.gfsPrimary, received.thresholds.gfs);
    const behaviour = received.checks.refusalAccuracy?.detail;
    return { pass: result.pass, message: () => `${result.message()}${behaviour ? `; ${behaviour}` : ''}` };
  },
};

export function installRgeMatchers(): void {
  expect.extend(rgeMatchers);
}

interface RgeMatchers<R = unknown> {
  toBeCorrect(): R;
  toBeGrounded(): R;
  toBeCalibrated(): R;
  toMeetExpectedBehavior(): R;
}

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: must repeat Vitest's own declaration (Matchers<T = any>)
  interface Matchers<T = any> extends RgeMatchers<T> {}
}
