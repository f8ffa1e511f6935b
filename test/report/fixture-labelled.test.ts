/**
 * Issue 23 on the fixture run (configs/fixture.yaml, its two offline subjects, 6 questions of each
 * category, 2 runs, on the bm25 world: retrieval is not the point), with a validation sample drawn by the real sampler (50 responses, 10/10/20/10 by
 * category, proportional across subjects) and labelled by a fixed rule standing in for people: the
 * numeric judge's scores, less one point of correctness on adversarial answers (people find the
 * judges optimistic there). The report shows the corrected GFS beside the judge-only GFS, the MDD beside
 * each pairwise comparison and the ranking's probabilities; `rge plan` prints the design table for the
 * run's summary.json. The labels are a fixture, not people's: the figures test the machinery only.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runResponses } from '../../src/cli/labelling.ts';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { type Summary, summarise } from '../../src/report/summary.ts';
import { runStages } from '../../src/run/stages/stages.ts';
import { drawValidationSample } from '../../src/validation/index.ts';
import type { LabelView } from '../../src/validation/summary.ts';
import { runRge } from '../helpers/cli.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { fixtureQuestionsPerCategory, openTestRun } from '../helpers/open-run.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const PER_CATEGORY = 6;

describe('the fixture run with a labelled validation sample', () => {
  let dir: string;
  let summary: Summary;
  let md: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-fixture-labelled-'));
    const questionIds = await fixtureQuestionsPerCategory(root, PER_CATEGORY);
    const run = await openTestRun({
      config: 'configs/fixture.yaml',
      root,
      resultsDir: join(dir, 'results'),
      reportsDir: join(dir, 'reports'),
      overrides: await worldOverrides('bm25'),
      log: () => {},
      cases: questionIds,
      runs: 2,
    });
    await runStages(run, { log: () => {} });
    const { responses } = await runResponses(run);
    const sample = drawValidationSample(
      responses.map((r) => r.item),
      {
        size: 50,
        seed: `${run.plan.config.seed}:validation`,
        subjects: run.plan.subjects.map((s) => s.id),
        config: 'configs/fixture.yaml',
        configName: run.plan.config.name,
        runId: run.plan.info.runId,
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    );
    const labels: LabelView[] = sample.items.map((item) => {
      const v = item.verdicts.find((x) => x.judgeId === 'heuristic/numeric')?.verdict;
      if (!v) throw new Error(`no numeric verdict for ${item.item_id}`);
      return {
        answer_key: item.answer_key,
        labeller: 'fixed-rule',
        correctness:
          item.category === 'adversarial' ? Math.max(0, v.correctness.score - 1) : v.correctness.score,
        grounding: v.grounding.score,
        calibration: v.calibration.score,
      };
    });
    summary = summarise(
      responses.map((r) => r.row),
      {
        seed: run.plan.config.seed,
        resamples: 2000,
        run: {
          runId: run.plan.info.runId,
          configHash: run.plan.info.configHash,
          indexChecksum: run.plan.info.indexChecksum,
          questionsHash: run.plan.info.questionsHash,
        },
        describe: run.plan.info.describe,
        cells: run.plan.info.cells,
        validation: { labels, reviews: [], minKappa: run.plan.info.minKappa },
        gfsWeights: run.plan.info.gfsWeights,
      },
    );
    md = renderMarkdown(summary);
    await writeFile(join(dir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  }, 600_000);

  it('shows the corrected GFS beside the judge-only GFS for both subjects, adversarial too (10 labelled each)', () => {
    expect(summary.corrected.labelled).toBe(50);
    for (const subject of ['eager', 'extractive']) {
      const all = summary.corrected.bySubject[subject]?.all;
      expect(all?.estimate, subject).not.toBeNull();
      expect(all?.judgeOnly).toBeCloseTo(summary.gfs[subject]?.all?.primary?.estimate ?? Number.NaN, 12);
      expect(all?.low).toBeLessThan(all?.high ?? 0);
      expect(summary.corrected.bySubject[subject]?.adversarial?.labelled).toBe(10);
      // the rule lowers correctness where the judges gave any: the correction cannot raise the GFS
      expect(all?.estimate).toBeLessThanOrEqual((all?.judgeOnly ?? 0) + 1e-12);
    }
    expect(md).toContain('## Judge-error-corrected GFS (prediction-powered inference)');
    expect(md).toMatch(/\| extractive \| judge-only \| \d\.\d{3} \| \d\.\d{3} \|/);
    expect(md).toMatch(/\| {2}\| corrected \| \d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]/);
  });

  it('shows the MDD beside the pairwise comparison and the ranking probabilities', () => {
    const [comparison] = summary.power.comparisons;
    expect(comparison?.mdd).toBeGreaterThan(0);
    expect(md).toMatch(/\| eager \| extractive \| 48 \|.*\| [+−]\d\.\d{3} \| \d\.\d{3} \|/);
    const first = (summary.ranks?.primary ?? []).reduce((s, g) => s + g.probabilityFirst, 0);
    expect(first).toBeCloseTo(1, 12);
    expect(md).toMatch(/\| (eager|extractive) \| \d+\.\d% \| [12](–2)? \| \d+\.\d% \| [12](–2)? \|/);
  });

  it('rge plan prints the design table for the run', async () => {
    const plan = await runRge(dir, 'plan', '--from', 'summary.json', '--effect', '0.03');
    expect(plan.code, plan.err).toBe(0);
    expect(plan.out).toContain('## rge plan: eager vs extractive');
    expect(plan.out.match(/^\| \d+ \| [1-5] \| \d+ \| \d\.\d{4} \| \d+\.\d% \| \$0\.0000 \|/gm)).toHaveLength(
      5,
    );
    expect(plan.out).toMatch(
      /Cheapest design reaching 80\.0%: \d+ questions x \d run\(s\) per question, \$0\.0000/,
    );
  });
});
