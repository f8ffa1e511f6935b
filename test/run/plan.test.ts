/**
 * The plan: computed once from the request, the config, the questions and the index's identity, with
 * the judge prompt chosen once. A config pinned to judge prompt v1 uses v1 everywhere: its run id, its
 * report's header, every verdict cell's identity and every case row carry v1's hash, and its judge
 * requests lay the case out as v1 does (before the plan, the run id and the report recorded v2's hash
 * while the rubric was v1's).
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHECKS_VERSION } from '../../src/checks/index.ts';
import { builtInJudgePrompt } from '../../src/judging/prompt.ts';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { summarise } from '../../src/report/summary.ts';
import { caseRow } from '../../src/run/case/case.ts';
import { planFromRequest } from '../../src/run/plan/load.ts';
import { parseRunRequest } from '../../src/run/plan/request.ts';
import type { RunSession } from '../../src/run/session/open.ts';
import { runStages } from '../../src/run/stages/stages.ts';
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
    expect(v1.sha256).not.toBe(v2.sha256);
    expect(run.plan.judgePrompt).toEqual(v1);
    expect(v2Run.plan.judgePrompt).toEqual(v2);
  });

  it("has v1's hash in its run id and in its report's header", () => {
    expect(run.plan.info.runId).toBe(runIdWith(run, v1.sha256));
    expect(run.plan.info.runId).not.toBe(runIdWith(run, v2.sha256));
    expect(run.plan.info.describe.judgePrompt).toEqual({ version: 'v1', sha256: v1.sha256 });
  });

  it("has v1's hash in every verdict cell and case row, and lays the case out as v1 does", async () => {
    const cells = await run.work.cells();
    expect(cells).toHaveLength(6);
    const rows = cells.map((cell) => caseRow(run, cell));
    expect(rows.every((r) => r.judge_prompt_hash === v1.sha256)).toBe(true);
    for (const cell of cells) {
      const answer = run.answers(cell.subject).get(cell.key);
      if (!answer) throw new Error(`${cell.id}: no answer`);
      for (const v of run.work.verdictCells(cell, answer)) {
        expect(v.identity.judge_prompt_hash).toBe(v1.sha256);
        expect(run.verdicts(v.judge).get(v.key)?.identity.judge_prompt_hash).toBe(v1.sha256);
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
    expect(renderMarkdown(summary)).toContain(`| judge prompt | v1 \`${v1.sha256.slice(0, 16)}\` |`);
  });
});

describe("a subject's answers are keyed by what it is, never by its label", () => {
  /** The answer keys of each subject of a plan of these overrides (2 questions, 2 runs). */
  async function keysBySubject(overrides: readonly string[]): Promise<Map<string, string[]>> {
    const run = await openTestRun({
      overrides: [...(await worldOverrides()), ...overrides],
      questions: 2,
      runs: 2,
      resultsDir: await mkdtemp(join(tmpdir(), 'rge-plan-keys-')),
      root,
      log: quiet,
    });
    const out = new Map<string, string[]>();
    for (const c of await run.work.cells()) out.set(c.subject.id, [...(out.get(c.subject.id) ?? []), c.key]);
    return out;
  }
  const disjoint = (a: readonly string[] = [], b: readonly string[] = []) =>
    a.length > 0 && b.length === a.length && a.every((k) => !b.includes(k));

  it('one model with other parameters, another output limit or another prompt: other cells; the same: the same cells', async () => {
    const entry = (id: string, more: string) =>
      `subjects.2={id: ${id}, provider: offline, model: extractive, family: rge-offline-extractive, max_tokens: 512, ${more}}`;
    const hot = await keysBySubject([entry('hot', 'temperature: 0.3')]);
    expect(disjoint(hot.get('extractive'), hot.get('hot'))).toBe(true);
    const longer = await keysBySubject([entry('longer', 'temperature: 0.7'), 'subjects.2.max_tokens=1024']);
    expect(disjoint(longer.get('extractive'), longer.get('longer'))).toBe(true);
    const same = await keysBySubject([entry('copy', 'temperature: 0.7')]);
    expect(same.get('copy')).toEqual(same.get('extractive'));
    const base = await keysBySubject([]);
    const prompt = join(await mkdtemp(join(tmpdir(), 'rge-plan-prompt-')), 'subject.md');
    await writeFile(prompt, `${await readFile(join(root, 'prompts/subject.md'), 'utf8')}\nBe brief.\n`);
    const edited = await keysBySubject([`subject_prompt.file=${prompt}`]);
    expect(disjoint(base.get('extractive'), edited.get('extractive'))).toBe(true);
  });

  it('two replay subjects of one label over different recordings: other cells', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-plan-replay-'));
    const ids = (
      await planFromRequest(parseRunRequest({ overrides: await worldOverrides(), questions: 2 }), {
        root,
        log: quiet,
      })
    ).questions.map((q) => q.id);
    const recording = async (name: string, answer: string) => {
      const file = join(dir, name);
      const lines = ids.flatMap((id) =>
        [0, 1].map((run) => JSON.stringify({ question_id: id, model: 'our-model', run_index: run, answer })),
      );
      await writeFile(file, `${lines.join('\n')}\n`);
      return file;
    };
    const [a, b] = [await recording('a.jsonl', 'Answer A.'), await recording('b.jsonl', 'Answer B.')];
    const replay = (i: number, id: string, file: string) =>
      `subjects.${i}={id: ${id}, provider: replay, model: our-model, family: rge-replay-${id}, max_tokens: 512, replay_file: ${file}}`;
    const keys = await keysBySubject([replay(0, 'first', a), replay(1, 'second', b)]);
    expect(disjoint(keys.get('first'), keys.get('second'))).toBe(true);
  });
});
