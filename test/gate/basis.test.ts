/**
 * What the gate refuses to compare (issue 39, defect 3): runs of different configs or question sets are
 * refused (exit 2) unless `--allow-different-config`, saying what differs; what a gate exists to compare
 * (the subject prompt, a system's version, the seed, a subject's sampling parameters, a narrowed run)
 * is compared as before. `rge baseline update` replaces a baseline of another config only with --force,
 * saying which run of which config it replaces by which.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configDifferences } from '../../src/gate/basis.ts';
import { compareRuns, type GateSummary } from '../../src/gate/gate.ts';
import { runRge } from '../helpers/cli.ts';

const CATEGORIES = ['grounded-direct', 'grounded-multihop', 'adversarial', 'out-of-domain'];

type Described = NonNullable<GateSummary['describe']>;

/** A run of the fixture-like config `name`: 2 subjects x 20 questions x `runs` runs, as summary.json records it. */
function run(
  runId: string,
  change: {
    describe?: Partial<Described>;
    run?: Partial<GateSummary['run']>;
    shift?: number;
    runs?: number;
  } = {},
): GateSummary {
  const runs = change.runs ?? change.describe?.runs ?? 3;
  const cells = ['extractive', 'eager'].flatMap((subject) =>
    Array.from({ length: 20 }, (_, q) =>
      Array.from({ length: runs }, (_, r) => ({
        subject,
        question_id: `q${q}`,
        run_index: r,
        category: CATEGORIES[q % 4] as string,
        gfs: Math.min(1, 0.4 + 0.02 * q + 0.01 * r + (change.shift ?? 0)),
      })),
    ).flat(),
  );
  const describe: Described = {
    config: 'fixture',
    configFile: 'configs/fixture.yaml',
    subjectPrompt: { version: 'v1', sha256: 'a'.repeat(64) },
    judgePrompt: { version: 'v2', sha256: 'b'.repeat(64) },
    judges: [
      { id: 'numeric', provider: 'heuristic', model: 'numeric', sent: 'temperature 0' },
      { id: 'lexical', provider: 'heuristic', model: 'lexical', sent: 'temperature 0' },
    ],
    subjects: [
      { id: 'extractive', provider: 'offline', model: 'extractive', sent: 'temperature 0.7' },
      { id: 'eager', provider: 'offline', model: 'eager', sent: 'temperature 0.7' },
    ],
    questions: { file: 'fixtures/questions.jsonl', version: 1, n: 20 },
    corpus: { embedder: 'bm25', chunkTokens: 800, overlapTokens: 100, k: 5 },
    runs,
    gfsWeights: { correctness: 0.35, grounding: 0.4, calibration: 0.25 },
    ...change.describe,
  };
  return {
    run: {
      runId,
      seed: 'rge-fixture-v1',
      questionsHash: 'q'.repeat(64),
      indexChecksum: 'i'.repeat(64),
      ...change.run,
    },
    partial: null,
    describe,
    diagnostics: { cells },
  };
}

const baseline = run('fixture-base');

describe('configDifferences: what makes two runs incomparable', () => {
  it('names each difference beyond the change under test, the config first', () => {
    const other = run('ci-cur', {
      describe: {
        config: 'ci',
        configFile: 'configs/ci.yaml',
        judges: [
          { id: 'numeric', provider: 'heuristic', model: 'numeric', sent: 'temperature 0' },
          { id: 'claude-judge', provider: 'anthropic', model: 'claude-sonnet-4-6', sent: '' },
        ],
        judgePrompt: { version: 'v1', sha256: 'c'.repeat(64) },
        subjects: [{ id: 'extractive', provider: 'openai', model: 'gpt-5.4', sent: 'temperature 0' }],
        corpus: { embedder: 'use-lite', chunkTokens: 400, overlapTokens: 100, k: 8 },
        runs: 2,
        gfsWeights: { correctness: 0.5, grounding: 0.3, calibration: 0.2 },
        questions: { file: 'data/questions/questions.jsonl', version: 1, n: 20 },
      },
      run: { questionsHash: 'd'.repeat(64), indexChecksum: 'e'.repeat(64) },
    });
    expect(configDifferences(baseline, other)).toEqual([
      'config fixture (configs/fixture.yaml) -> ci (configs/ci.yaml)',
      'question set fixtures/questions.jsonl qqqqqqqqqqqq -> data/questions/questions.jsonl dddddddddddd',
      'judges lexical=heuristic/lexical (temperature 0), numeric=heuristic/numeric (temperature 0) -> claude-judge=anthropic/claude-sonnet-4-6, numeric=heuristic/numeric (temperature 0)',
      'judge prompt (rubric) v2 bbbbbbbbbbbb -> v1 cccccccccccc',
      'retrieval embedder bm25 -> use-lite',
      'chunk_tokens 800 -> 400',
      'retrieval k 5 -> 8',
      'runs per question 3 -> 2',
      "subject extractive's model offline/extractive -> openai/gpt-5.4",
      'GFS weights correctness 0.35, grounding 0.4, calibration 0.25 -> correctness 0.5, grounding 0.3, calibration 0.2',
      'corpus index iiiiiiiiiiii -> eeeeeeeeeeee',
    ]);
  });

  it('finds none for what a gate exists to compare: prompt, system version, seed, sampling, a narrowed run', () => {
    const changed = run('fixture-cur', {
      describe: {
        subjectPrompt: { version: 'v1-nocite', sha256: 'f'.repeat(64), file: 'prompts/other.md' },
        subjects: [
          {
            id: 'extractive',
            provider: 'offline',
            model: 'extractive',
            sent: 'temperature 0',
            version: 'v2',
          },
        ],
        questions: { file: 'fixtures/questions.jsonl', version: 1, n: 5, slice: 'the first 5' },
        configFile: 'configs/fixture-copy.yaml',
      },
      run: { seed: 'another-seed' },
    });
    expect(configDifferences(baseline, changed)).toEqual([]);
    const result = compareRuns(baseline, changed, { resamples: 200 });
    expect(result.differentConfig).toEqual([]);
    expect(result.changed).toEqual([
      'subject prompt v1 aaaaaaaaaaaa -> v1-nocite ffffffffffff',
      'system extractive version (none) -> v2',
      'subject extractive sent temperature 0.7 -> temperature 0',
      'questions 20 -> 5 (the cells both runs scored are compared)',
      'sampling seed rge-fixture-v1 -> another-seed',
    ]);
  });

  it('compares only what both record (an older summary has no weights, files or providers)', () => {
    const older = run('old', {
      describe: {
        configFile: undefined,
        gfsWeights: undefined,
        judges: [
          { id: 'numeric', model: 'numeric' },
          { id: 'lexical', model: 'lexical' },
        ],
      },
    });
    const newer = run('new', {
      describe: {
        judges: [
          { id: 'numeric', model: 'numeric' },
          { id: 'lexical', model: 'lexical' },
        ],
        gfsWeights: { correctness: 0.5, grounding: 0.3, calibration: 0.2 },
      },
    });
    expect(configDifferences(older, newer)).toEqual([]);
  });
});

describe('compareRuns refuses runs of different configs unless allowed', () => {
  const ci = run('ci-cur', {
    describe: { config: 'ci', configFile: 'configs/ci.yaml', runs: 2 },
    run: { seed: 'rge-ci-v1' },
  });

  it('throws a usage error naming both runs and what differs', () => {
    expect(() => compareRuns(baseline, ci, { resamples: 200 })).toThrow(
      'the baseline (fixture-base, config fixture (configs/fixture.yaml)) and the current run (ci-cur, config ci (configs/ci.yaml)) differ beyond the change under test, so a GFS change need not be yours: config fixture (configs/fixture.yaml) -> ci (configs/ci.yaml); runs per question 3 -> 2.',
    );
  });

  it('compares them with allowDifferentConfig, and says so beside the verdicts', () => {
    const result = compareRuns(baseline, ci, { resamples: 200, allowDifferentConfig: true });
    expect(result.differentConfig).toEqual([
      'config fixture (configs/fixture.yaml) -> ci (configs/ci.yaml)',
      'runs per question 3 -> 2',
    ]);
    expect(result.changed).toEqual(['sampling seed rge-fixture-v1 -> rge-ci-v1']);
  });
});

describe('rge gate and rge baseline update on runs of different configs (CLI)', () => {
  async function folder(): Promise<{
    dir: string;
    write: (name: string, s: GateSummary) => Promise<string>;
  }> {
    const dir = await mkdtemp(join(tmpdir(), 'rge-gate-basis-'));
    return {
      dir,
      write: async (name, s) => {
        await writeFile(join(dir, name), JSON.stringify(s));
        return name;
      },
    };
  }
  const ci = run('ci-cur', {
    describe: { config: 'ci', configFile: 'configs/ci.yaml', runs: 2 },
    run: { seed: 'rge-ci-v1' },
  });

  it('gate: exit 2 naming the differences; --allow-different-config compares and notes them', async () => {
    const { dir, write } = await folder();
    await write('baseline.json', baseline);
    await write('ci.json', ci);
    const refused = await runRge(dir, 'gate', '--baseline', 'baseline.json', '--current', 'ci.json');
    expect(refused.code).toBe(2);
    expect(refused.out).toBe('');
    expect(refused.err).toContain(
      'config fixture (configs/fixture.yaml) -> ci (configs/ci.yaml); runs per question 3 -> 2',
    );
    expect(refused.err).toContain(
      'the baseline baseline.json (fixture-base, config fixture (configs/fixture.yaml)) and the current run ci.json (ci-cur, config ci (configs/ci.yaml)) differ',
    );
    expect(refused.err).toContain('--allow-different-config');
    const allowed = await runRge(
      dir,
      'gate',
      '--baseline',
      'baseline.json',
      '--current',
      'ci.json',
      '--allow-different-config',
    );
    expect(allowed.code, allowed.err).toBe(0);
    expect(allowed.out).toContain(
      'Compared although the runs differ beyond the change under test (--allow-different-config): config fixture (configs/fixture.yaml) -> ci (configs/ci.yaml); runs per question 3 -> 2.',
    );
  });

  it('gate: a changed prompt and seed of the same config is compared (a regression fails, exit 1)', async () => {
    const { dir, write } = await folder();
    await write('baseline.json', baseline);
    const worse = run('fixture-cur', {
      describe: { subjectPrompt: { version: 'v1-nocite', sha256: 'f'.repeat(64) } },
      run: { seed: 'other' },
      shift: -0.2,
    });
    await write('worse.json', worse);
    const gate = await runRge(dir, 'gate', '--baseline', 'baseline.json', '--current', 'worse.json');
    expect(gate.code, gate.err).toBe(1);
    expect(gate.out).toContain('**rge gate: REGRESSION**');
  });

  it('baseline update: refuses to replace a baseline of another config, says what; --force replaces it', async () => {
    const { dir, write } = await folder();
    await write('baseline.json', { ...baseline, baseline: { promotedAt: 'then', from: 'x' } });
    await write('ci.json', ci);
    const before = await readFile(join(dir, 'baseline.json'), 'utf8');
    const refused = await runRge(dir, 'baseline', 'update', '--from', 'ci.json', '--to', 'baseline.json');
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(
      'baseline.json is a baseline of another config or question set: replacing it would swap fixture-base (config fixture (configs/fixture.yaml)) -> ci-cur (config ci (configs/ci.yaml)), which differ in: config fixture (configs/fixture.yaml) -> ci (configs/ci.yaml); runs per question 3 -> 2',
    );
    expect(await readFile(join(dir, 'baseline.json'), 'utf8')).toBe(before);
    // another file is no replacement: promoted as before
    const elsewhere = await runRge(
      dir,
      'baseline',
      'update',
      '--from',
      'ci.json',
      '--to',
      'ci-baseline.json',
    );
    expect(elsewhere.code, elsewhere.err).toBe(0);
    expect(elsewhere.out).toBe(
      'baseline ci-baseline.json <- ci-cur (80 cells; subjects eager, extractive)\n',
    );
    const forced = await runRge(
      dir,
      'baseline',
      'update',
      '--from',
      'ci.json',
      '--to',
      'baseline.json',
      '--force',
    );
    expect(forced.code, forced.err).toBe(0);
    expect(forced.out).toContain(
      'replaced fixture-base (config fixture (configs/fixture.yaml)) -> ci-cur (config ci (configs/ci.yaml)) (--force; they differ in: config fixture (configs/fixture.yaml) -> ci (configs/ci.yaml); runs per question 3 -> 2)',
    );
    expect(JSON.parse(await readFile(join(dir, 'baseline.json'), 'utf8')).run.runId).toBe('ci-cur');
  });

  it('baseline update: a new run of the same config replaces its baseline and says which it replaced', async () => {
    const { dir, write } = await folder();
    await write('baseline.json', baseline);
    await write('new.json', run('fixture-new', { run: { seed: 'other' } }));
    const updated = await runRge(dir, 'baseline', 'update', '--from', 'new.json', '--to', 'baseline.json');
    expect(updated.code, updated.err).toBe(0);
    expect(updated.out).toContain(
      'replaced fixture-base (config fixture (configs/fixture.yaml)) -> fixture-new (config fixture (configs/fixture.yaml))',
    );
  });

  it('baseline update: a file there that is not a baseline is replaced only with --force', async () => {
    const { dir } = await folder();
    await writeFile(join(dir, 'ci.json'), JSON.stringify(ci));
    await writeFile(join(dir, 'baseline.json'), '{"not": "a summary"}');
    const refused = await runRge(dir, 'baseline', 'update', '--from', 'ci.json', '--to', 'baseline.json');
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/baseline\.json is there but is not a baseline the gate reads .*--force/);
    const forced = await runRge(
      dir,
      'baseline',
      'update',
      '--from',
      'ci.json',
      '--to',
      'baseline.json',
      '--force',
    );
    expect(forced.code, forced.err).toBe(0);
  });
});
