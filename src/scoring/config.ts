/** Scoring's section of the run config (composed by src/run/config/config.ts): the weights of the GFS. */
import { z } from 'zod';
import { type AddIssue, isRecord } from '../util/config-fields.ts';

export const DEFAULT_GFS_WEIGHTS = { grounding: 0.4, correctness: 0.35, calibration: 0.25 } as const;

const Weight = z.number().min(0).max(1);

export const GfsWeightsSettings = z
  .strictObject({ grounding: Weight, correctness: Weight, calibration: Weight })
  .default({ ...DEFAULT_GFS_WEIGHTS })
  .describe('weights of the grounding-faithfulness score; must sum to 1');

/** The weights' cross-field rule (over unknown data: it runs on partly invalid configs too). */
export function gfsWeightsIssues(weights: unknown, issue: AddIssue): void {
  if (isRecord(weights)) {
    const parts = [weights.grounding, weights.correctness, weights.calibration];
    if (parts.every((w) => typeof w === 'number')) {
      const sum = (parts as number[]).reduce((a, b) => a + b, 0);
      if (Math.abs(sum - 1) > 1e-9)
        issue(['gfs_weights'], `weights must sum to 1, they sum to ${+sum.toFixed(6)}`);
    }
  }
}
