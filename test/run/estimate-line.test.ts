/**
 * `rge eval run --quiet` says the pre-flight estimate in one line (issue 39, defect 9), its warnings kept;
 * the table (`formatEstimate`) has a line per model and role, the totals and what they assume.
 */
import { describe, expect, it } from 'vitest';
import { estimateLine, formatEstimate } from '../../src/run/estimate/format.ts';
import type { Estimate } from '../../src/store/run-state.ts';

const line = (role: string, model: string, calls: number, expectedUsd: number, worstUsd: number) => ({
  role,
  provider: 'anthropic',
  model,
  batch: false,
  calls,
  inputTokens: 1000 * calls,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 100 * calls,
  expectedUsd,
  naiveUsd: expectedUsd,
  worstUsd,
});

const estimate = {
  runId: 'published-0123456789ab',
  mode: 'sync',
  lines: [
    line('subject', 'claude-sonnet-4-6', 18, 0.12, 0.3),
    line('judge', 'claude-haiku-4-5', 36, 0.05, 0.2),
  ],
  totals: { calls: 54, expectedUsd: 0.17, naiveUsd: 0.17, worstUsd: 0.5 },
  cells: { total: 18, stored: 0, verdictsStored: 0 },
  assumptions: { subjectOutputTokens: 300, judgeOutputTokens: 400, cacheHitRate: 0.8, contextBounded: false },
  batchPlan: null,
} as unknown as Estimate;

describe('the estimate in one line (--quiet)', () => {
  it('gives the calls, the expected and worst cost and what the cap leaves, where the table takes many lines', () => {
    expect(
      formatEstimate(estimate, { capUsd: 100, leftUsd: 99 }).trimEnd().split('\n').length,
    ).toBeGreaterThan(5);
    expect(estimateLine(estimate, { capUsd: 100, leftUsd: 99 })).toBe(
      'estimate for run published-0123456789ab (sync): 54 calls, expected $0.1700, worst case $0.5000; budget: cap $100.00, $99.00 left',
    );
  });

  it('keeps the warning when the worst case is above what the cap leaves', () => {
    const lines = estimateLine(estimate, { capUsd: 1, leftUsd: 0.3 }).split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^warning: the worst case \(\$0\.5000\) is above what the cap leaves \(\$0\.3000\)/,
    );
  });
});
