/**
 * The validation sample drawn from a small real run of the fixture world (both offline subjects, 200
 * questions, one run; heuristic judges): the methodology's strata, proportional allocation across the
 * subjects, determinism by seed, the file `rge validation sample` writes, an empty store's error, and
 * `rge review` over the run's contested responses.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runResponses, sampleCommand, startReviewing } from '../../src/cli/labelling.ts';
import { QUESTION_CATEGORIES } from '../../src/questions/schema.ts';
import type { CaseRow } from '../../src/run/case/case.ts';
import type { RunSession } from '../../src/run/session/open.ts';
import type { SubjectCell } from '../../src/run/session/work.ts';
import { runStages } from '../../src/run/stages/stages.ts';
import {
  type CompletedResponse,
  ContestedReview,
  drawValidationSample,
  judgeOutcomesHash,
  loadSample,
  reviewsFile,
  type ValidationSample,
} from '../../src/validation/index.ts';
import { captureIO, runRge } from '../helpers/cli.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { openTestRun } from '../helpers/open-run.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const quiet = () => {};
const SUBJECTS = ['extractive', 'eager'];

describe('rge validation sample, from a real run of the fixture world', () => {
  let resultsDir: string;
  let run: RunSession;
  let responses: CompletedResponse<SubjectCell, CaseRow>[];
  let overrides: string[];

  const draw = (seed: string): ValidationSample =>
    drawValidationSample(
      responses.map((r) => r.item),
      {
        size: 50,
        seed,
        subjects: SUBJECTS,
        config: 'configs/fixture.yaml',
        configName: 'fixture',
        runId: run.plan.info.runId,
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    );

  beforeAll(async () => {
    resultsDir = await mkdtemp(join(tmpdir(), 'rge-validation-'));
    // the test run's bm25 fixture world with 2 chunks retrieved instead of 5: its retrieval misses give
    // contested responses to review (7 of the 400; with 5 every gold chunk is retrieved and none is
    // contested). The use-lite world's misses did the same, at the cost of its model and embeddings.
    overrides = [...(await worldOverrides('bm25')), 'retrieval.k=2'];
    run = await openTestRun({
      config: 'configs/fixture.yaml',
      root,
      resultsDir,
      questions: 200,
      runs: 1,
      subjects: SUBJECTS,
      overrides,
      log: quiet,
    });
    await runStages(run, { log: quiet });
    ({ responses } = await runResponses(run));
  }, 600_000);

  it('draws 10 grounded-direct, 10 grounded-multihop, 20 adversarial, 10 out-of-domain, split evenly by subject', () => {
    expect(responses).toHaveLength(400);
    const sample = draw('s1');
    expect(sample.items).toHaveLength(50);
    expect(sample.allocation).toEqual({
      'grounded-direct': { extractive: 5, eager: 5 },
      'grounded-multihop': { extractive: 5, eager: 5 },
      adversarial: { extractive: 10, eager: 10 },
      'out-of-domain': { extractive: 5, eager: 5 },
    });
    for (const category of QUESTION_CATEGORIES)
      for (const subject of SUBJECTS)
        expect(
          sample.items.filter((i) => i.category === category && i.subject_id === subject),
          `${category} ${subject}`,
        ).toHaveLength(sample.allocation[category][subject] ?? -1);
    // as many questions as it can: no question drawn twice
    expect(new Set(sample.items.map((i) => i.question_id)).size).toBe(50);
    // each item is the completed response it names
    const byId = new Map(responses.map((r) => [r.item.item_id, r]));
    for (const item of sample.items) {
      const r = byId.get(item.item_id);
      expect(item.answer_key).toBe(r?.row.answer_key);
      expect(item.verdicts).toEqual(r?.row.verdicts);
      expect(item.chunks.map((c) => c.id)).toEqual(r?.row.retrieved_ids);
    }
  });

  it('is determined by its seed: the same seed draws the same items, another seed others', () => {
    const a = draw('s1');
    expect(draw('s1')).toEqual(a);
    const ids = (s: ValidationSample) => s.items.map((i) => i.item_id).sort();
    expect(ids(draw('s2'))).not.toEqual(ids(a));
    expect(draw('s2').sample_id).not.toBe(a.sample_id);
  });

  it('writes a sample file that validates, with the seed and the allocation recorded', async () => {
    const out = join(resultsDir, 'labels', 'sample.json');
    const io = captureIO(root);
    const { sample } = await sampleCommand(
      {
        config: 'configs/fixture.yaml',
        subjects: SUBJECTS.join(','),
        questions: '200',
        runs: '1',
        set: overrides,
        resultsDir,
        out,
        size: '50',
      },
      io,
    );
    const stored = await loadSample(out);
    expect(stored).toEqual(sample);
    expect(stored.seed).toBe('rge-fixture-v1:validation');
    expect(stored.run_id).toBe(run.plan.info.runId);
    expect(stored.sample_id).toMatch(/^fixture-[0-9a-f]{12}$/);
    expect(stored.allocation.adversarial).toEqual({ extractive: 10, eager: 10 });
    expect(JSON.parse(readFileSync(out, 'utf8')).items).toHaveLength(50);
    expect(io.text).toContain(`sample ${stored.sample_id}: 50 responses of run ${run.plan.info.runId}`);
    expect(io.text).toMatch(/adversarial\s+20 {2}extractive 10, eager 10/);
    // the same seed again: the same items
    const again = drawValidationSample(
      responses.map((r) => r.item),
      {
        size: 50,
        seed: 'rge-fixture-v1:validation',
        subjects: SUBJECTS,
        config: 'configs/fixture.yaml',
        configName: 'fixture',
        runId: run.plan.info.runId,
        createdAt: stored.created_at,
      },
    );
    expect(again).toEqual(stored);
  });

  it('says so and exits 1 when the results store holds none of the run, and a too-large sample names its stratum', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'rge-validation-empty-'));
    const none = await runRge(
      root,
      'validation',
      'sample',
      '--questions',
      '5',
      '--results-dir',
      empty,
      ...overrides.flatMap((o) => ['--set', o]),
    );
    expect(none.code).toBe(1);
    expect(none.err).toMatch(/has no completed responses in .*rge-validation-empty-.*run it first/);
    expect(() =>
      drawValidationSample(
        responses.map((r) => r.item),
        {
          size: 500,
          seed: 's',
          subjects: SUBJECTS,
          config: 'c',
          configName: 'c',
          runId: 'r',
          createdAt: '2026-01-01T00:00:00.000Z',
        },
      ),
    ).toThrow(/adversarial needs 200, the run has 130/);
  });

  it('rge review serves the contested responses of the run and appends a review', async () => {
    const labelsDir = join(resultsDir, 'labels');
    const io = captureIO(root);
    const server = await startReviewing(
      {
        config: 'configs/fixture.yaml',
        subjects: SUBJECTS.join(','),
        questions: '200',
        runs: '1',
        set: overrides,
        resultsDir,
        reviewer: 'rev',
        labelsDir,
        port: '0',
      },
      io,
    );
    expect(server).not.toBeNull();
    if (!server) return;
    try {
      const contested = responses.filter((r) => r.row.scores.contested);
      const session = (await (await fetch(new URL('/api/session', server.url))).json()) as {
        total: number;
        item_ids: string[];
      };
      expect(session.total).toBeGreaterThan(0);
      expect(io.text).toContain(`${session.total} contested responses among the`);
      const first = responses.find((r) => r.item.item_id === session.item_ids[0]);
      expect(first?.row.scores.contested).toBe(true);
      expect(contested.length).toBeGreaterThanOrEqual(session.total);
      const view = (await (await fetch(new URL('/api/items/0', server.url))).json()) as {
        verdicts: unknown[];
        contested_dimensions: string[];
      };
      expect(view.verdicts).toEqual(first?.row.verdicts);
      expect(view.contested_dimensions).toEqual(first?.row.scores.contestedDimensions);
      const res = await fetch(new URL('/api/reviews', server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          item_id: session.item_ids[0],
          outcome: { correctness: 1, grounding: 2, calibration: 0 },
          note: 'the lexical judge missed the figure',
        }),
      });
      expect(res.status).toBe(201);
      const [line] = readFileSync(reviewsFile(labelsDir), 'utf8').trim().split('\n');
      const review = ContestedReview.parse(JSON.parse(line ?? ''));
      expect(review.answer_key).toBe(first?.row.answer_key);
      expect(review.judge_outcomes_hash).toBe(judgeOutcomesHash(first?.row.verdicts ?? []));
    } finally {
      await server.close();
    }
  });
});
