/**
 * The plan: computed once from the request, the config, the questions and the index's identity, with
 * the judge prompt chosen once. A config pinned to judge prompt v1 uses v1 everywhere: its run id, its
 * report's header, every verdict cell's identity and every case row carry v1's hash, and its judge
 * requests lay the case out as v1 does (before the plan, the run id and the report recorded v2's hash
 * while the rubric was v1's).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHECKS_VERSION } from '../../src/checks/index.ts';
import { builtInJudgePrompt } from '../../src/judging/prompt.ts';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { summarise } from '../../src/report/summary.ts';
import { caseRow } from '../../src/run/case.ts';
import { planFromRequest } from '../../src/run/load.ts';
import type { RunSession } from '../../src/run/open.ts';
import { parseRunRequest } from '../../src/run/request.ts';
import { runStages } from '../../src/run/stages.ts';
import { sha256 } from '../../src/util/fs.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { openTestRun } from '../helpers/open-run.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const quiet = () => {};

/** The run id as the methodology defines it, from a plan's parts and a judge prompt hash. */
function runIdWith(run: RunSession, judgeHash: string): string {
  const { plan } = run;
  const providers = [...plan.subjects, ...plan.judges]
    .map((m) => `${m.identity.id}@${m.identity.version}`)
    .concat(`checks@${CHECKS_VERSION}`)
    .join(',');
  const parts = [
    plan.info.configHash,
    plan.info.indexChecksum,
    plan.info.questionsHash,
    judgeHash,
    plan.subjectPrompt.sha256,
    providers,
  ];
  return `${plan.config.name}-${sha256(parts.join(':')).slice(0, 12)}`;
}

describe('the plan of a run', () => {
  it('is a value: the same request plans the same run, and it survives a structured clone', async () => {
    const request = parseRunRequest({ overrides: await worldOverrides(), questions: 6, runs: 2 });
    const a = await planFromRequest(request, { root, log: quiet });
    const b = await planFromRequest(request, { root, log: quiet });
    expect(b).toEqual(a);
    expect(structuredClone(a)).toEqual(a);
    expect(a.questions).toHaveLength(6);
    expect(a.info.cells).toBe(2 * 6 * 2);
    expect(a.panels).toEqual({ extractive: ['numeric', 'lexical'], eager: ['numeric', 'lexical'] });
    expect(a.notes).toEqual([expect.stringMatching(/^questions: the first 6 of 200 questions/)]);
  });

  it('refuses a question id the set does not have, and a subject the config does not have', async () => {
    const overrides = await worldOverrides();
    await expect(
      planFromRequest(parseRunRequest({ overrides, cases: ['gd-001', 'zz-404'] }), { root, log: quiet }),
    ).rejects.toThrow(/no question zz-404 in/);
    await expect(
      planFromRequest(parseRunRequest({ overrides, subjects: ['nobody'] }), { root, log: quiet }),
    ).rejects.toThrow(/no subject nobody in configs\/fixture\.yaml; its subjects are extractive, eager/);
  });
});

describe('a config pinned to judge prompt v1', () => {
  const v1 = builtInJudgePrompt('v1');
  const v2 = builtInJudgePrompt('v2');
  let run: RunSession;
  let v2Run: RunSession;

  beforeAll(async () => {
    const resultsDir = await mkdtemp(join(tmpdir(), 'rge-judge-v1-'));
    const opts = { root, resultsDir, log: quiet, questions: 3, runs: 1 };
    const overrides = await worldOverrides();
    run = await openTestRun({ ...opts, overrides: [...overrides, 'judge_prompt.version=v1'] });
    v2Run = await openTestRun({ ...opts, overrides });
    await runStages(run, { log: quiet });
  }, 600_000);

  it('plans v1: its version, text and hash', () => {
    expect(v1.hash).not.toBe(v2.hash);
    expect(run.plan.judgePrompt).toEqual(v1);
    expect(v2Run.plan.judgePrompt).toEqual(v2);
  });

  it("has v1's hash in its run id and in its report's header", () => {
    expect(run.plan.info.runId).toBe(runIdWith(run, v1.hash));
    expect(run.plan.info.runId).not.toBe(runIdWith(run, v2.hash));
    expect(run.plan.info.describe.judgePrompt).toEqual({ version: 'v1', sha256: v1.hash });
  });

  it("has v1's hash in every verdict cell and case row, and lays the case out as v1 does", async () => {
    const cells = await run.work.cells();
    expect(cells).toHaveLength(6);
    const rows = cells.map((cell) => caseRow(run, cell));
    expect(rows.every((r) => r.judge_prompt_hash === v1.hash)).toBe(true);
    for (const cell of cells) {
      const answer = run.answers(cell.subject).get(cell.key);
      if (!answer) throw new Error(`${cell.id}: no answer`);
      for (const v of run.work.verdictCells(cell, answer)) {
        expect(v.identity.judge_prompt_hash).toBe(v1.hash);
        expect(run.verdicts(v.judge).get(v.key)?.identity.judge_prompt_hash).toBe(v1.hash);
        expect(v.request.system).toBe(v1.text);
        const user = v.request.messages[0]?.content ?? '';
        expect(user).toContain('RETRIEVED CHUNKS:');
        expect(user).not.toContain('== FOR GROUNDING');
      }
    }
    const summary = summarise(rows, {
      seed: run.plan.info.seed,
      run: {
        runId: run.plan.info.runId,
        configHash: run.plan.info.configHash,
        indexChecksum: run.plan.info.indexChecksum,
        questionsHash: run.plan.info.questionsHash,
      },
      describe: run.plan.info.describe,
      resamples: 200,
    });
    expect(renderMarkdown(summary)).toContain(`| judge prompt | v1 \`${v1.hash.slice(0, 16)}\` |`);
  });
});
