import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { compareRuns, type GateSummary, gateMarkdown, readGateSummary } from '../../src/gate/gate.ts';
import { captureIO, runRge } from '../helpers/cli.ts';

const CATEGORIES = ['grounded-direct', 'grounded-multihop', 'adversarial', 'out-of-domain'];

/**
 * A synthetic summary: `questions` questions x `runs` runs per subject, each cell's GFS a per-question
 * level plus run noise (seeded), shifted by `shift(category)`.
 */
function summary(opts: {
  runId: string;
  seed: string;
  noiseSeed: string;
  subjects?: string[];
  questions?: number;
  runs?: number;
  shift?: (category: string) => number;
  promptSha?: string;
  partial?: { cases: number; cells: number } | null;
}): GateSummary {
  const levels = seedrandom('levels');
  const questionLevel = Array.from({ length: opts.questions ?? 80 }, () => 0.3 + 0.6 * levels());
  const noise = seedrandom(opts.noiseSeed);
  const cells = (opts.subjects ?? ['a']).flatMap((subject) =>
    questionLevel.flatMap((level, q) =>
      Array.from({ length: opts.runs ?? 3 }, (_, run) => {
        const category = CATEGORIES[q % 4] as string;
        const gfs = Math.min(1, Math.max(0, level + (noise() - 0.5) * 0.2 + (opts.shift?.(category) ?? 0)));
        return { subject, question_id: `q${q}`, run_index: run, category, gfs, correctness: 1 };
      }),
    ),
  );
  return {
    run: { runId: opts.runId, seed: opts.seed, questionsHash: 'qh', indexChecksum: 'ix' },
    partial: opts.partial ?? null,
    describe: {
      subjectPrompt: { version: 'v1', sha256: opts.promptSha ?? 'a'.repeat(64) },
      judgePrompt: { version: 'v2', sha256: 'b'.repeat(64) },
      judges: [{ id: 'numeric', model: 'numeric' }],
    },
    diagnostics: { cells },
  };
}

const base = summary({ runId: 'base', seed: 's1', noiseSeed: 'n1' });

describe('compareRuns', () => {
  it('fails a real drop: interval wholly below zero and larger than the minimum effect', () => {
    const current = summary({
      runId: 'cur',
      seed: 's1',
      noiseSeed: 'n1',
      shift: () => -0.08,
      promptSha: 'c'.repeat(64),
    });
    const result = compareRuns(base, current, { resamples: 2000 });
    expect(result.passed).toBe(false);
    const overall = result.rows.find((r) => r.slice === 'overall');
    expect(overall).toMatchObject({
      subject: 'a',
      cells: 240,
      questions: 80,
      verdict: 'regression',
      fails: true,
    });
    expect(overall?.high).toBeLessThan(0);
    expect(overall?.delta).toBeLessThan(-0.02);
    expect(result.changed[0]).toMatch(/^subject prompt v1 aaaaaaaaaaaa -> v1 cccccccccccc/);
  });

  it('passes run-to-run noise (the same questions, different noise)', () => {
    const current = summary({ runId: 'cur', seed: 's2', noiseSeed: 'n2' });
    const result = compareRuns(base, current, { resamples: 2000 });
    expect(result.passed).toBe(true);
    for (const r of result.rows) expect(r.verdict).toBe('within noise');
    expect(result.changed).toContain('sampling seed s1 -> s2');
  });

  it('does not fail a sure but tiny drop (below the minimum effect), and fails it with --min-effect 0', () => {
    const current = summary({ runId: 'cur', seed: 's1', noiseSeed: 'n1', shift: () => -0.01 });
    const sure = compareRuns(base, current, { resamples: 2000 });
    const overall = sure.rows.find((r) => r.slice === 'overall');
    expect(overall?.high).toBeLessThan(0);
    expect(sure.passed).toBe(true);
    expect(compareRuns(base, current, { resamples: 2000, minEffect: 0 }).passed).toBe(false);
  });

  it('catches a regression confined to one category, read at the Bonferroni level', () => {
    const current = summary({
      runId: 'cur',
      seed: 's1',
      noiseSeed: 'n1',
      shift: (c) => (c === 'adversarial' ? -0.15 : 0),
    });
    const result = compareRuns(base, current, { resamples: 2000 });
    expect(result.passed).toBe(false);
    const failing = result.rows.filter((r) => r.fails).map((r) => r.slice);
    expect(failing).toContain('adversarial');
    expect(failing).not.toContain('grounded-direct');
    const adversarial = result.rows.find((r) => r.slice === 'adversarial');
    expect(adversarial?.confidence).toBeCloseTo(1 - 0.05 / 4, 12);
    expect(result.rows.find((r) => r.slice === 'overall')?.confidence).toBe(0.95);
  });

  it('reports an improvement as such, and never fails it', () => {
    const current = summary({ runId: 'cur', seed: 's1', noiseSeed: 'n1', shift: () => 0.08 });
    const result = compareRuns(base, current, { resamples: 2000 });
    expect(result.passed).toBe(true);
    expect(result.rows.find((r) => r.slice === 'overall')?.verdict).toBe('improvement');
  });

  it('is deterministic: the same inputs give the same table, seeds recorded', () => {
    const current = summary({ runId: 'cur', seed: 's2', noiseSeed: 'n2', shift: () => -0.03 });
    const a = compareRuns(base, current, { resamples: 1000 });
    expect(compareRuns(base, current, { resamples: 1000 })).toEqual(a);
    expect(a.rows[0]?.seed).toBe('s2:gate:a:overall');
  });

  it('pairs only shared scored cells, gates each subject, and names what it left out', () => {
    const current = summary({
      runId: 'cur',
      seed: 's1',
      noiseSeed: 'n1',
      subjects: ['a', 'b'],
      questions: 40,
    });
    const first = current.diagnostics.cells[0];
    if (first) first.gfs = null;
    const result = compareRuns(base, current, { resamples: 500 });
    expect(result.rows.find((r) => r.slice === 'overall')?.cells).toBe(119);
    expect(result.rows.every((r) => r.subject === 'a')).toBe(true);
    expect(result.unmatched.subjectsOnlyInCurrent).toEqual(['b']);
    // baseline: 240 cells, 119 shared; current: 240 cells (120 of b), 119 shared
    expect(result.unmatched.cellsNotShared).toBe(240 + 240 - 2 * 119);
    const md = gateMarkdown(result);
    expect(md).toContain('new in the current run (no baseline): b');
    expect(md).toMatch(/\| a \| overall \| 119 \| 40 \|/);
  });

  it('refuses runs with nothing in common, and a bad minimum effect, as usage errors', () => {
    const other = summary({ runId: 'cur', seed: 's1', noiseSeed: 'n1', subjects: ['z'] });
    expect(() => compareRuns(base, other)).toThrow(
      /share no scored .* cell.*baseline base has subjects a, current cur has z/,
    );
    expect(() => compareRuns(base, base, { minEffect: -1 })).toThrow(/min-effect/);
  });
});

describe('rge gate and rge baseline update (CLI)', () => {
  async function files() {
    const dir = await mkdtemp(join(tmpdir(), 'rge-gate-'));
    const write = async (name: string, s: GateSummary) => {
      const file = join(dir, name);
      await writeFile(file, JSON.stringify(s));
      return file;
    };
    return { dir, write };
  }

  it('exits 1 on a regression, writes the table to $GITHUB_STEP_SUMMARY and the verdicts to --json', async () => {
    const { dir, write } = await files();
    const b = await write('baseline.json', base);
    const c = await write(
      'current.json',
      summary({ runId: 'cur', seed: 's1', noiseSeed: 'n1', shift: () => -0.1 }),
    );
    const stepSummary = join(dir, 'step-summary.md');
    await writeFile(stepSummary, 'earlier step\n');
    const capture = captureIO(dir);
    const code = await main(
      ['node', 'rge', 'gate', '--baseline', b, '--current', c, '--json', 'verdicts.json'],
      { ...capture, env: { GITHUB_STEP_SUMMARY: stepSummary } },
    );
    expect(code).toBe(1);
    const written = await readFile(stepSummary, 'utf8');
    expect(written.startsWith('earlier step\n## rge gate')).toBe(true);
    expect(written).toContain('**rge gate: REGRESSION** in a (overall)');
    const verdicts = JSON.parse(await readFile(join(dir, 'verdicts.json'), 'utf8'));
    expect(verdicts).toMatchObject({ passed: false, baseline: 'base', current: 'cur', minEffect: 0.02 });
  });

  it('exits 0 on noise and 2 on a missing file, a malformed summary, a partial report or a bad flag', async () => {
    const { dir, write } = await files();
    const b = await write('baseline.json', base);
    const noise = await write('noise.json', summary({ runId: 'cur', seed: 's2', noiseSeed: 'n2' }));
    const pass = await runRge(dir, 'gate', '--baseline', b, '--current', noise);
    expect(pass.code).toBe(0);
    expect(pass.out).toContain('**rge gate: pass.**');
    const missing = await runRge(dir, 'gate', '--baseline', join(dir, 'nope.json'), '--current', noise);
    expect(missing).toMatchObject({ code: 2 });
    expect(missing.err).toBe(`rge: --baseline ${join(dir, 'nope.json')}: no such file\n`);
    await writeFile(join(dir, 'bad.json'), '{"run": {}}');
    const bad = await runRge(dir, 'gate', '--baseline', 'bad.json', '--current', noise);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/bad\.json: not an rge summary\.json/);
    const partial = await write('partial.json', { ...base, partial: { cases: 10, cells: 240 } });
    const p = await runRge(dir, 'gate', '--baseline', b, '--current', partial);
    expect(p.code).toBe(2);
    expect(p.err).toMatch(/partial report \(10 of 240 cells\)/);
    expect((await runRge(dir, 'gate', '--baseline', b, '--current', noise, '--min-effect', 'x')).code).toBe(
      2,
    );
    expect((await runRge(dir, 'gate', '--current', noise)).code).toBe(2);
  });

  it('promotes the newest full report (never a partial one) and the gate reads it', async () => {
    const { dir } = await files();
    await mkdir(join(dir, 'reports', 'run-1'), { recursive: true });
    await writeFile(join(dir, 'reports', 'run-1', 'summary.json'), JSON.stringify(base));
    await new Promise((r) => setTimeout(r, 20));
    await mkdir(join(dir, 'reports', 'run-1-partial'), { recursive: true });
    await writeFile(
      join(dir, 'reports', 'run-1-partial', 'summary.json'),
      JSON.stringify({ ...base, partial: { cases: 3, cells: 240 } }),
    );
    const promoted = await runRge(dir, 'baseline', 'update');
    expect(promoted.code).toBe(0);
    expect(promoted.out).toMatch(/baseline reports\/baseline\.json <- base \(240 cells; subjects a\)/);
    const baseline = await readGateSummary(join(dir, 'reports', 'baseline.json'));
    expect(baseline.baseline?.from).toBe(join('reports', 'run-1', 'summary.json'));
    const refused = await runRge(dir, 'baseline', 'update', '--from', 'run-1-partial');
    expect(refused.code).toBe(2);
    const gate = await runRge(dir, 'gate', '--baseline', 'reports/baseline.json');
    expect(gate.code).toBe(0);
    expect(gate.out).toContain('Baseline `base`, current `base`');
  });
});

describe('the committed baseline', () => {
  it('is a full report of the config the CI workflow runs, with every cell, that the gate reads', async () => {
    const file = join(import.meta.dirname, '../../reports/baseline.json');
    const baseline = await readGateSummary(file);
    const workflow = await readFile(join(import.meta.dirname, '../../.github/workflows/evals.yml'), 'utf8');
    const config = /RGE_CONFIG: configs\/(\w+)\.yaml/.exec(workflow)?.[1];
    expect(baseline.describe?.config).toBe(config);
    expect(baseline.partial ?? null).toBeNull();
    expect(baseline.baseline?.from).toMatch(/^reports\/.+\/summary\.json$/);
    // every (subject, question, run) cell of the fixture config: 2 subjects x 200 questions x 3 runs
    expect(
      new Set(baseline.diagnostics.cells.map((c) => `${c.subject}:${c.question_id}:${c.run_index}`)).size,
    ).toBe(1200);
    expect(compareRuns(baseline, baseline, { resamples: 200 }).passed).toBe(true);
    // every cell carries its pass flag, so `rge gate --pass-all` can gate against it
    expect(baseline.diagnostics.cells.every((c) => typeof c.passed === 'boolean')).toBe(true);
    expect(compareRuns(baseline, baseline, { resamples: 200, passAll: true }).passAll).toHaveLength(10);
  });
});
