/**
 * An answer's checks stored beside it (issue 53, src/run/stages/answer-checks.ts): the checks stage stores every
 * stored answer's checks and evidence recall, a warm case row read with them equals, field for field and
 * byte for byte, the row computed without them (cold), and a record of other rules (another
 * `CHECKS_VERSION`), question or passages is not read: the stage computes it again. The fixture run
 * (configs/fixture.yaml on the bm25 world), 8 questions of each category, 2 runs.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHECKS_VERSION } from '../../src/checks/index.ts';
import { type CaseRow, caseRow } from '../../src/run/case/case.ts';
import type { RunSession } from '../../src/run/session/open.ts';
import { runStages } from '../../src/run/stages/stages.ts';
import { CheckRecord, checkKey } from '../../src/store/cells.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { fixtureQuestionsPerCategory, openTestRun } from '../helpers/open-run.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const quiet = () => {};
const PER_CATEGORY = 8;

const lines = (file: string): string[] => readFileSync(file, 'utf8').trim().split('\n');

describe("an answer's checks stored beside it", () => {
  let dir: string;
  let cases: string[];
  let overrides: string[];
  let warm: RunSession;
  /** the rows computed without stored checks (a copy of the folder without cells/checks) */
  let cold: CaseRow[];

  const open = (resultsDir: string) =>
    openTestRun({ config: 'configs/fixture.yaml', root, resultsDir, log: quiet, cases, runs: 2, overrides });
  const rowsOf = async (run: RunSession) => (await run.work.cells()).map((cell) => caseRow(run, cell));
  /** a copy of the warm folder whose check records `edit` rewrote (their keys computed again) */
  const edited = (name: string, edit: (r: CheckRecord) => CheckRecord): string => {
    const to = join(dir, name);
    cpSync(join(dir, 'warm'), to, { recursive: true });
    for (const store of ['offline__extractive', 'offline__eager']) {
      const file = join(to, 'cells', 'checks', `${store}.jsonl`);
      const records = lines(file).map((l) => edit(CheckRecord.parse(JSON.parse(l))));
      writeFileSync(
        file,
        records.map((r) => `${JSON.stringify({ ...r, key: checkKey(r.identity) })}\n`).join(''),
      );
    }
    return to;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-answer-checks-'));
    cases = await fixtureQuestionsPerCategory(root, PER_CATEGORY);
    overrides = await worldOverrides('bm25');
    warm = await open(join(dir, 'warm'));
    await runStages(warm, { log: quiet });
    cpSync(join(dir, 'warm'), join(dir, 'cold'), { recursive: true });
    rmSync(join(dir, 'cold', 'cells', 'checks'), { recursive: true });
    cold = await rowsOf(await open(join(dir, 'cold')));
  }, 600_000);

  it('stores the checks of every answer, under the current rules', async () => {
    const cells = await warm.work.cells();
    for (const subject of warm.plan.subjects) {
      const records = lines(warm.checks(subject).file).map((l) => CheckRecord.parse(JSON.parse(l)));
      expect(records).toHaveLength(cells.filter((c) => c.subject.id === subject.id).length);
      expect(records.every((r) => r.identity.checks_version === CHECKS_VERSION)).toBe(true);
    }
  });

  it('gives a warm row equal to the cold one, field for field and byte for byte', async () => {
    const rows = await rowsOf(warm);
    expect(rows).toHaveLength(cold.length);
    // the sample has failed checks, answers with claims and without (refusals), and missing evidence
    const failed = (r: CaseRow) => Object.values(r.checks).some((c) => 'passed' in c && c.passed === false);
    expect(cold.some(failed)).toBe(true);
    expect(cold.some((r) => r.checks.claimFaithfulness.total > 0)).toBe(true);
    expect(cold.some((r) => r.checks.claimFaithfulness.score === null)).toBe(true);
    expect(cold.some((r) => (r.evidence?.recall ?? 1) < 1)).toBe(true);
    expect(cold.some((r) => (r.checks.claimFaithfulness.claims.length ?? 0) > 0)).toBe(true);
    for (const [i, row] of rows.entries()) {
      expect(row).toEqual(cold[i]);
      expect(JSON.stringify(row)).toBe(JSON.stringify(cold[i]));
    }
  });

  it('reads what is stored: a case shows the stored record, not a computation', async () => {
    const folder = edited('stored', (r) => ({
      ...r,
      checks: { ...r.checks, numbersTraced: { ...r.checks.numbersTraced, detail: 'as stored' } },
    }));
    const rows = await rowsOf(await open(folder));
    expect(rows.every((r) => r.checks.numbersTraced.detail === 'as stored')).toBe(true);
  });

  it('computes them again under other rules (CHECKS_VERSION), another answer text, question or passages', async () => {
    const stale = (r: CheckRecord) => ({
      ...r,
      checks: { ...r.checks, numbersTraced: { ...r.checks.numbersTraced, detail: 'stale' } },
    });
    for (const [name, identity] of [
      ['version', (r: CheckRecord) => ({ ...r.identity, checks_version: 'v0' })],
      // the answer's key with another text (a store merged from a folder where the race went the other way)
      ['answer', (r: CheckRecord) => ({ ...r.identity, answer_sha256: `${r.identity.answer_sha256}0` })],
      ['question', (r: CheckRecord) => ({ ...r.identity, question_hash: `${r.identity.question_hash}0` })],
      ['passages', (r: CheckRecord) => ({ ...r.identity, passages_hash: `${r.identity.passages_hash}0` })],
    ] as const) {
      const folder = edited(name, (r) => ({ ...stale(r), identity: identity(r) }));
      const run = await open(folder);
      // not read: the case computes them
      expect(await rowsOf(run)).toEqual(cold);
      // the stage computes and stores them under the current identity, beside the stale ones
      const before = run.plan.subjects.map((s) => lines(run.checks(s).file).length);
      await runStages(run, { log: quiet });
      const after = run.plan.subjects.map((s) => lines(run.checks(s).file).length);
      expect(after).toEqual(before.map((n) => 2 * n));
      const again = await open(folder);
      expect(await rowsOf(again)).toEqual(cold);
    }
  });

  it('computes nothing in a warm run: the stage finds every record', async () => {
    const before = warm.plan.subjects.map((s) => lines(warm.checks(s).file).length);
    await runStages(await open(join(dir, 'warm')), { log: quiet });
    expect(warm.plan.subjects.map((s) => lines(warm.checks(s).file).length)).toEqual(before);
  });
});
