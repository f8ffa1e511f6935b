/**
 * The rubric as the labelling page shows it beside the 0/1/2 buttons: per dimension and score, the
 * methodology's name (4.1-4.3: Correct / Partial / Wrong, ...) and the one-line meaning the judges are
 * given, read from the canonical judge prompt's text, so a person and a judge score against
 * the same words. Pure.
 */
import { judgePromptText } from '../judging/prompt.ts';
import { DIMENSIONS, type Dimension } from '../judging/verdict.ts';
import { RgeError } from '../util/errors.ts';

export interface RubricLevel {
  score: 0 | 1 | 2;
  name: string;
  meaning: string;
}

export type Rubric = Record<Dimension, RubricLevel[]>;

/** The methodology's names of the scores (4.1-4.3), from 0 to 2. */
const SCORE_NAMES: Record<Dimension, [string, string, string]> = {
  correctness: ['Wrong', 'Partial', 'Correct'],
  grounding: ['Ungrounded', 'Partially grounded', 'Fully grounded'],
  calibration: ['Miscalibrated', 'Adequate', 'Well-calibrated'],
};

/** Per dimension, the meaning of 0, 1 and 2 as the judge prompt states them. */
export function rubricFromPrompt(text: string = judgePromptText()): Rubric {
  const lines = text.split('\n');
  const rubric = {} as Rubric;
  for (const dimension of DIMENSIONS) {
    const start = lines.findIndex((l) => l.startsWith(`${dimension.toUpperCase()}:`));
    const meanings = new Map<number, string>();
    for (const line of lines.slice(start + 1)) {
      const m = /^- ([012]): (.+)$/.exec(line);
      if (!m) {
        if (meanings.size > 0) break;
        continue;
      }
      meanings.set(Number(m[1]), (m[2] ?? '').trim());
    }
    if (start < 0 || meanings.size !== 3)
      throw new RgeError(`the judge prompt has no "- 0/1/2:" lines under ${dimension.toUpperCase()}:`);
    rubric[dimension] = ([0, 1, 2] as const).map((score) => ({
      score,
      name: SCORE_NAMES[dimension][score],
      meaning: meanings.get(score) ?? '',
    }));
  }
  return rubric;
}
