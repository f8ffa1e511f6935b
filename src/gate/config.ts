/** The gate's section of the run config (composed by src/run/config/config.ts): a threshold per mean score. */
import { z } from 'zod';

/** A score threshold on the 0-2 rubric scale; null records the score without gating on it. */
const Threshold = z.number().min(0).max(2).nullable();

export const ThresholdSettings = z
  .strictObject({
    correctness: Threshold,
    grounding: Threshold,
    calibration: Threshold,
    gfs: z.number().min(0).max(1).nullable(),
  })
  .describe('gate on each mean score (rubric 0-2; gfs 0-1); null records the score without gating');
