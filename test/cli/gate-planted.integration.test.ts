/**
 * The regression gate end to end, as CI runs it: `rge eval run` on configs/ci.yaml (offline), `rge
 * baseline update`, then `rge gate` against two changed runs:
 * - a planted regression: the subject prompt without its citation rule (the baselines, like models,
 *   stop citing when not asked), which the gate must fail (exit 1);
 * - noise: the unchanged prompt with another sampling seed (the subject samples at temperature 0.7),
 *   which the gate must pass (exit 0).
 * Also the eval flags a CI job uses: --case, --json, --min-pass-rate.
 */
import { copyFile, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnRge } from '../helpers/child.ts';
import { runRge } from '../helpers/cli.ts';
import { worldSetArgs } from '../helpers/fixture-world.ts';

/** prompts/subject.md without rule 2 (cite every claim) and without "citing" in the user template. */
async function noCitePrompt(dir: string): Promise<string> {
  const text = await readFile('prompts/subject.md', 'utf8');
  const planted = text
    .replace(/^2\. Cite every claim[\s\S]*?appear in the context\.\n/m, '')
    .replace(', citing passage ids in square brackets.', '.')
    .replace('# Subject prompt v1', '# Subject prompt v1-nocite');
  expect(planted).not.toMatch(/\bcit/i);
  const file = join(dir, 'subject-nocite.md');
  await writeFile(file, planted);
  return file;
}

describe('rge gate on real runs (configs/ci.yaml, offline)', () => {
  let dir: string;
  /** `--set` arguments that point configs/ci.yaml at the test run's fixture world */
  let world: string[];
  const summaries: Record<string, string> = {};

  /** An eval run in a child process; the changed runs keep their cells apart from the baseline's. */
  async function run(name: string, ...extra: string[]): Promise<string> {
    const outcome = await spawnRge([
      'eval',
      'run',
      '--config',
      'configs/ci.yaml',
      '--results-dir',
      join(dir, name === 'baseline' ? 'results' : `results-${name}`),
      '--reports-dir',
      join(dir, 'reports'),
      '--min-pass-rate',
      '0',
      // one run per question keeps the test quick; the noise is the other seed's samples
      '--runs',
      '1',
      ...world,
      ...extra,
    ]);
    expect(outcome.code, outcome.err).toBe(0);
    const report = /report (\S+)summary\.md/.exec(outcome.out)?.[1] as string;
    summaries[name] = join(report, 'summary.json');
    return summaries[name] as string;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-gate-planted-'));
    world = await worldSetArgs();
    const planted = await noCitePrompt(dir);
    // three independent runs (own results folders): the baseline first, which embeds the 200
    // questions into the index's query cache, then the two changed runs at once, which read it
    await run('baseline');
    await Promise.all([
      run('noise', '--set', 'seed=rge-ci-other-seed'),
      run('planted', '--set', `subject_prompt.file=${planted}`),
    ]);
  }, 600_000);

  it('promotes the baseline and passes the noise change (exit 0)', async () => {
    const promoted = await runRge(
      dir,
      'baseline',
      'update',
      '--from',
      summaries.baseline as string,
      '--to',
      'baseline.json',
    );
    expect(promoted.code, promoted.err).toBe(0);
    const gate = await runRge(
      dir,
      'gate',
      '--baseline',
      'baseline.json',
      '--current',
      summaries.noise as string,
      '--json',
      'noise.json',
    );
    expect(gate.code, gate.out + gate.err).toBe(0);
    expect(gate.out).toContain('**rge gate: pass.**');
    expect(gate.out).toContain('sampling seed rge-ci-v1 -> rge-ci-other-seed');
    const verdicts = JSON.parse(await readFile(join(dir, 'noise.json'), 'utf8'));
    const overall = verdicts.rows.find((r: { slice: string }) => r.slice === 'overall');
    expect(overall).toMatchObject({ subject: 'extractive', cells: 200, questions: 200, fails: false });
    expect(overall.verdict).toBe('within noise');
    // the seed changed the answers (noise, not nothing), by less than the minimum effect
    expect(overall.delta).not.toBe(0);
    expect(Math.abs(overall.delta)).toBeLessThan(0.02);
    for (const row of verdicts.rows) expect(row.fails).toBe(false);
    // the minimal detectable difference beside every slice; within noise with an MDD above the minimum
    // effect says the run was too small to tell
    expect(gate.out).toMatch(/\| level \| MDD \| verdict \|/);
    expect(overall.mdd).toBeGreaterThan(0);
    for (const row of verdicts.rows)
      expect(row.tooSmallToTell).toBe(row.verdict === 'within noise' && row.mdd > 0.02);
    if (overall.tooSmallToTell)
      expect(gate.out).toMatch(/within noise: too small to tell \(MDD 0\.\d{3} > 0\.02\)/);
  });

  it("refuses (exit 2) to gate a ci.yaml run against the committed fixture config's baseline, and will not replace it without --force", async () => {
    const tracked = resolve('reports/baseline.json');
    const committed = JSON.parse(await readFile(tracked, 'utf8')) as { run: { runId: string } };
    const gate = await runRge(dir, 'gate', '--baseline', tracked, '--current', summaries.noise as string);
    expect(gate.code, gate.out + gate.err).toBe(2);
    expect(gate.out).toBe('');
    expect(gate.err).toMatch(
      new RegExp(
        `\\(${committed.run.runId}, config fixture( \\(configs/fixture\\.yaml\\))?\\) and the current run`,
      ),
    );
    expect(gate.err).toMatch(
      /: config fixture( \(configs\/fixture\.yaml\))? -> ci \(configs\/ci\.yaml\); .*runs per question 3 -> 1\./,
    );
    expect(gate.err).toContain('--allow-different-config');
    const allowed = await runRge(
      dir,
      'gate',
      '--baseline',
      tracked,
      '--current',
      summaries.noise as string,
      '--allow-different-config',
    );
    expect(allowed.code, allowed.err).toBe(0);
    expect(allowed.out).toMatch(/Compared although the runs differ beyond the change under test/);
    // a copy of the committed baseline: rge baseline update will not swap in the ci run silently
    const copy = join(dir, 'committed-baseline.json');
    await copyFile(tracked, copy);
    const update = await runRge(dir, 'baseline', 'update', '--from', summaries.noise as string, '--to', copy);
    expect(update.code).toBe(2);
    expect(update.err).toMatch(
      new RegExp(
        `would swap ${committed.run.runId} \\(config fixture( \\(configs/fixture\\.yaml\\))?\\) -> ci-[0-9a-f]{12} \\(config ci \\(configs/ci\\.yaml\\)\\)`,
      ),
    );
    expect(await readFile(copy, 'utf8')).toBe(await readFile(tracked, 'utf8'));
    const forced = await runRge(
      dir,
      'baseline',
      'update',
      '--from',
      summaries.noise as string,
      '--to',
      copy,
      '--force',
    );
    expect(forced.code, forced.err).toBe(0);
    expect(forced.out).toMatch(
      new RegExp(
        `replaced ${committed.run.runId} \\(config fixture( \\(configs/fixture\\.yaml\\))?\\) -> ci-`,
      ),
    );
  });

  it("rge plan on the ci run (one subject, one run per question): needs the change's spread, then plans", async () => {
    const unknown = await runRge(dir, 'plan', '--from', summaries.baseline as string, '--effect', '0.03');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(
      /extractive: the run had one run per question, so its run-to-run noise is unknown/,
    );
    const plan = await runRge(
      dir,
      'plan',
      '--from',
      summaries.baseline as string,
      '--effect',
      '0.03',
      '--between-variance',
      '0.005',
    );
    expect(plan.code, plan.err).toBe(0);
    expect(plan.out).toContain('## rge plan: extractive against its baseline');
    expect(plan.out.match(/^\| \d+ \| [1-5] \|/gm)).toHaveLength(5);
  });

  it('fails the planted regression (a prompt that stops citing), exit 1, with the table in the job summary', async () => {
    const stepSummary = join(dir, 'step-summary.md');
    const gate = await spawnRge(
      [
        'gate',
        '--baseline',
        join(dir, 'baseline.json'),
        '--current',
        summaries.planted as string,
        '--json',
        join(dir, 'planted.json'),
      ],
      { GITHUB_STEP_SUMMARY: stepSummary },
    );
    expect(gate.code, gate.out + gate.err).toBe(1);
    expect(gate.out).toMatch(/\*\*rge gate: REGRESSION\*\* in extractive \(overall\)/);
    expect(gate.out).toMatch(/subject prompt v1 [0-9a-f]{12} -> v1-nocite [0-9a-f]{12}/);
    expect(await readFile(stepSummary, 'utf8')).toContain(gate.out.trim());
    const verdicts = JSON.parse(await readFile(join(dir, 'planted.json'), 'utf8'));
    const overall = verdicts.rows.find((r: { slice: string }) => r.slice === 'overall');
    expect(overall.high).toBeLessThan(0);
    expect(overall.delta).toBeLessThan(-0.02);
    // out-of-domain answers are refusals with nothing to cite: the planted change does not touch them
    expect(verdicts.rows.find((r: { slice: string }) => r.slice === 'out-of-domain').fails).toBe(false);
    // --pass-all adds the pass^k table: questions whose every run passed, lost and gained
    const passAll = await spawnRge([
      'gate',
      '--baseline',
      join(dir, 'baseline.json'),
      '--current',
      summaries.planted as string,
      '--pass-all',
      '--json',
      join(dir, 'planted-pass-all.json'),
    ]);
    expect(passAll.code, passAll.err).toBe(1);
    expect(passAll.out).toContain('### pass^k: questions whose runs all pass');
    const rows = JSON.parse(await readFile(join(dir, 'planted-pass-all.json'), 'utf8')).passAll;
    const passAllOverall = rows.find((r: { slice: string }) => r.slice === 'overall');
    expect(passAllOverall).toMatchObject({ subject: 'extractive', runs: 1, questions: 200 });
    expect(passAllOverall.lost).toBeGreaterThan(passAllOverall.gained);
    expect(passAllOverall.baseline - passAllOverall.current).toBeCloseTo(
      (passAllOverall.lost - passAllOverall.gained) / 200,
      12,
    );
  });

  it('--case runs only the named questions, --json lists every case, --min-pass-rate decides the exit', async () => {
    const base = [
      'eval',
      'run',
      '--config',
      'configs/ci.yaml',
      '--results-dir',
      join(dir, 'results'),
      '--reports-dir',
      join(dir, 'reports'),
      ...world,
    ];
    const cases = ['--case', 'gd-001', '--case', 'gm-006', '--case', 'ood-001'];
    const strict = ['--set', 'thresholds.correctness=1'];
    // gm-006 needs two figures added: the extractive baseline's answer is at best half right, below correctness 1
    const failing = await spawnRge([
      ...base,
      ...cases,
      ...strict,
      '--json',
      join(dir, 'cases.json'),
      '--min-pass-rate',
      '0.7',
    ]);
    expect(failing.code).toBe(1);
    expect(failing.out).toMatch(/6 cases, \d reused, 2 failed \(pass rate 66\.7%, minimum 70\.0%\)/);
    expect(failing.err).toMatch(
      /failed: extractive > grounded-multihop › gm-006 › run 0: gm-006: correctness 0\.[05]00 < threshold 1/,
    );
    const json = JSON.parse(await readFile(join(dir, 'cases.json'), 'utf8'));
    expect(json).toMatchObject({ total: 6, passed: 4, failed: 2, ok: false, min_pass_rate: 0.7 });
    expect(new Set(json.cases.map((c: { question_id: string }) => c.question_id))).toEqual(
      new Set(['gd-001', 'gm-006', 'ood-001']),
    );
    for (const c of json.cases) expect(c.state).toBe(c.question_id === 'gm-006' ? 'failed' : 'passed');
    // consistency across runs (pass^k, flip, never) in --json, as the report's cells count passing cases
    const all = json.consistency.bySubject.extractive.all;
    expect(all).toMatchObject({ runs: 2, questions: 3, incomplete: 0 });
    const report = /report (\S+)summary\.md/.exec(failing.out)?.[1] as string;
    const cells = JSON.parse(await readFile(join(report, 'summary.json'), 'utf8')).diagnostics.cells as {
      question_id: string;
      passed: boolean;
    }[];
    const runsPassed = ['gd-001', 'gm-006', 'ood-001'].map(
      (q) => cells.filter((c) => c.question_id === q && c.passed).length,
    );
    expect(all.allPass.successes).toBe(runsPassed.filter((n) => n === 2).length);
    expect(all.flip.successes).toBe(runsPassed.filter((n) => n === 1).length);
    expect(all.never.successes).toBe(runsPassed.filter((n) => n === 0).length);
    expect(json.cases.find((c: { question_id: string }) => c.question_id === 'gm-006').failures[0]).toMatch(
      /correctness 0\.[05]00 < threshold 1/,
    );
    const lenient = await spawnRge([...base, ...cases, ...strict, '--min-pass-rate', '0.6']);
    expect(lenient.code, lenient.err).toBe(0);
    expect(lenient.out).toMatch(/6 cases, 6 reused, 2 failed \(pass rate 66\.7%, minimum 60\.0%\)/);
    // usage errors come before anything runs
    const unknown = await runRge(process.cwd(), ...base, '--case', 'gd-999', '--dry-run');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/no question gd-999 in fixtures\/questions\.jsonl/);
    expect((await runRge(process.cwd(), ...base, ...cases, '--min-pass-rate', '1.5')).code).toBe(2);
  }, 300_000);
});
