/**
 * One evaluation case end to end: retrieve (top-k, the same chunks for every subject and run), ask the
 * subject, run the deterministic checks, have the cross-family panel judge the answer, score it, and
 * store the row. A cell already in the results store (same question, subject, run index and prompt
 * hash) is returned as stored, not recomputed.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { CHECKS_VERSION, CheckResults, runChecks } from '../checks/index.ts';
import { crossFamilyPanel } from '../judging/panel.ts';
import { judgeCase } from '../judging/parse.ts';
import { judgePromptHash, judgePromptText, renderJudgeRequest } from '../judging/prompt.ts';
import { JudgeOutcome } from '../judging/verdict.ts';
import { heuristicJudge } from '../providers/heuristic/index.ts';
import { createSubjectProvider } from '../providers/registry.ts';
import {
  type ContextChunk,
  type JudgeInput,
  type Provider,
  type SubjectInput,
  Usage,
} from '../providers/types.ts';
import { loadQuestions } from '../questions/load.ts';
import type { Question } from '../questions/schema.ts';
import { type Index, openIndex } from '../retrieval/index.ts';
import { CaseScores, caseScores } from '../scoring/index.ts';
import { promptHash, renderSubjectRequest, subjectPromptHash } from '../subject/prompt.ts';
import { RgeError } from '../util/errors.ts';
import { sha256 } from '../util/fs.ts';
import { type Judge, loadRunConfig, type RunConfig, type Subject } from './config.ts';
import { ensureCorpusIndex } from './corpus-index.ts';
import { ResultsStore, type RunHeader, resultsFile } from './results.ts';

export const CaseRow = z
  .object({
    question_id: z.string(),
    category: z.string(),
    expected_behavior: z.string(),
    subject_id: z.string(),
    model: z.string(),
    family: z.string(),
    run_index: z.number().int().min(0),
    /** sha256 of the exact subject request (system, messages, model, temperature): the cache key */
    prompt_hash: z.string(),
    subject_prompt_hash: z.string(),
    judge_prompt_hash: z.string(),
    retrieved_ids: z.array(z.string()),
    answer: z.string(),
    usage: Usage,
    latency_ms: z.number().min(0),
    cost_usd: z.number().min(0),
    verdicts: z.array(JudgeOutcome),
    scores: CaseScores,
    checks: CheckResults,
  })
  .strict();
export type CaseRow = z.infer<typeof CaseRow>;

export interface RunSubject {
  id: string;
  config: Subject;
  provider: Provider;
}

export interface RunJudge {
  id: string;
  family: string;
  model: string;
  temperature: number;
  provider: Provider;
}

export interface PreparedRun {
  config: RunConfig;
  root: string;
  questions: Question[];
  subjects: RunSubject[];
  judges: RunJudge[];
  runs: number;
  index: Index;
  info: {
    runId: string;
    seed: string;
    configHash: string;
    indexChecksum: string;
    questionsHash: string;
    reportsDir: string;
  };
  stores: Map<string, ResultsStore<CaseRow>>;
  retrieved: Map<string, Promise<ContextChunk[]>>;
  spentUsd: number;
  warnings: string[];
}

export interface PrepareOptions {
  config: string;
  root: string;
  resultsDir?: string;
  reportsDir?: string;
  subjects?: readonly string[];
  questions?: number;
  runs?: number;
  /** read stored results, write nothing (for `rge eval run --dry-run`) */
  dryRun?: boolean;
}

async function createJudgeProvider(judge: Judge): Promise<Provider> {
  if (judge.provider === 'heuristic') return heuristicJudge(judge.model);
  throw new RgeError(
    `judge ${judge.id}: live judge providers (${judge.provider}) arrive in a later issue; use heuristic`,
  );
}

/** A stable JSON form (sorted keys) for hashing. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

export async function prepareRun(opts: PrepareOptions): Promise<PreparedRun> {
  const at = (p: string) => (isAbsolute(p) ? p : resolve(opts.root, p));
  const config = await loadRunConfig(at(opts.config));
  await ensureCorpusIndex(config, at);
  const index = await openIndex(at(config.corpus.index));
  const questionsPath = at(config.questions.file);
  let questions = (await loadQuestions(questionsPath)).map((r) => r.value);
  if (opts.questions !== undefined) questions = questions.slice(0, opts.questions);
  const chosen = opts.subjects
    ? config.subjects.filter((s) => opts.subjects?.includes(s.id))
    : config.subjects;
  if (chosen.length === 0)
    throw new RgeError(`no subject of ${opts.config} matches ${opts.subjects?.join(', ')}`);
  const subjects = await Promise.all(
    chosen.map(async (s) => ({
      id: s.id,
      config: s,
      provider: await createSubjectProvider(s, { root: opts.root }),
    })),
  );
  const judges = await Promise.all(
    config.judges.map(async (j) => ({
      id: j.id,
      family: j.family,
      model: j.model,
      temperature: j.temperature,
      provider: await createJudgeProvider(j),
    })),
  );
  const runs = opts.runs ?? config.runs;
  const configHash = sha256(
    canonical({ config, narrowing: { subjects: opts.subjects, questions: opts.questions, runs } }),
  );
  const questionsHash = sha256(await readFile(questionsPath));
  const judgeHash = config.judge_prompt.sha256 ?? judgePromptHash();
  // Offline providers' own versions (code or recorded data) belong to the run's identity too.
  const providerVersions = [...subjects.map((s) => s.provider), ...judges.map((j) => j.provider)]
    .map((p) => `${p.id}@${p.version ?? ''}`)
    .concat(`checks@${CHECKS_VERSION}`)
    .join(',');
  const runId = `${config.name}-${sha256([configHash, index.checksum, questionsHash, judgeHash, subjectPromptHash, providerVersions].join(':')).slice(0, 12)}`;
  const resultsDir = at(opts.resultsDir ?? 'data/results');
  const stores = new Map<string, ResultsStore<CaseRow>>();
  const warnings: string[] = [];
  for (const s of subjects) {
    const header: RunHeader = {
      kind: 'run',
      run_id: runId,
      subject_id: s.id,
      seed: config.seed,
      config_hash: configHash,
      index_checksum: index.checksum,
      questions_hash: questionsHash,
      created_at: new Date().toISOString(),
    };
    const store = ResultsStore.open(resultsFile(resultsDir, s.id, runId), header, CaseRow, {
      readOnly: opts.dryRun === true,
    });
    if (store.tornLine) warnings.push(store.tornLine);
    stores.set(s.id, store);
  }
  return {
    config,
    root: opts.root,
    questions,
    subjects,
    judges,
    runs,
    index,
    info: {
      runId,
      seed: config.seed,
      configHash,
      indexChecksum: index.checksum,
      questionsHash,
      reportsDir: at(opts.reportsDir ?? 'reports'),
    },
    stores,
    retrieved: new Map(),
    spentUsd: 0,
    warnings,
  };
}

/** The retrieved chunks as subjects and judges see them. */
export async function retrieveContext(index: Index, question: Question, k: number): Promise<ContextChunk[]> {
  const hits = await index.retrieve(question.text, { k });
  return hits.map((h) => ({
    id: h.id,
    company: h.company,
    fy: h.fy,
    heading: h.heading,
    pages: h.pages,
    text: h.text,
  }));
}

/** What a judge is shown for a case. */
export function judgeInputFor(
  question: Question,
  chunks: readonly ContextChunk[],
  answer: string,
): JudgeInput {
  return {
    kind: 'judge',
    questionId: question.id,
    question: question.text,
    category: question.category,
    expectedBehavior: question.expected_behavior,
    goldAnswer: question.gold_answer,
    goldQuotes: question.gold_quotes,
    numericGold: question.numeric_gold,
    chunks,
    answer,
  };
}

/** The subject's request for a cell. */
export function subjectRequestFor(
  run: PreparedRun,
  subject: RunSubject,
  question: Question,
  chunks: readonly ContextChunk[],
  runIndex: number,
) {
  const input: SubjectInput = { kind: 'subject', questionId: question.id, question: question.text, chunks };
  return renderSubjectRequest(input, {
    model: subject.config.model,
    temperature: subject.config.temperature,
    maxTokens: subject.config.max_tokens,
    cell: { questionId: question.id, runIndex, subjectId: subject.id, seed: run.config.seed },
  });
}

/** The top-k chunks for a question, retrieved once per run and shared by every subject and run index. */
function retrieve(run: PreparedRun, question: Question): Promise<ContextChunk[]> {
  let pending = run.retrieved.get(question.id);
  if (!pending) {
    pending = retrieveContext(run.index, question, run.config.retrieval.k);
    run.retrieved.set(question.id, pending);
  }
  return pending;
}

function spend(run: PreparedRun, usd: number): void {
  run.spentUsd += usd;
  if (run.spentUsd > run.config.budget.cap_usd)
    throw new RgeError(
      `budget cap of $${run.config.budget.cap_usd} exceeded (spent $${run.spentUsd.toFixed(4)}); stopping`,
    );
}

export async function runCase(
  run: PreparedRun,
  subject: RunSubject,
  question: Question,
  runIndex: number,
): Promise<{ row: CaseRow; reused: boolean }> {
  const store = run.stores.get(subject.id);
  if (!store) throw new RgeError(`no results store for subject ${subject.id}`);
  const chunks = await retrieve(run, question);
  const request = subjectRequestFor(run, subject, question, chunks, runIndex);
  const key = {
    question_id: question.id,
    subject_id: subject.id,
    run_index: runIndex,
    prompt_hash: promptHash(request),
  };
  const stored = store.get(key);
  if (stored) return { row: stored, reused: true };

  const reply = await subject.provider.complete(request);
  spend(run, reply.costUsd);
  const checks = runChecks({
    question,
    answer: reply.text,
    chunks,
    latencyMs: reply.latencyMs,
    latencyBudgetMs: run.config.latency_budget_ms,
  });
  const judgeInput = judgeInputFor(question, chunks, reply.text);
  const promptText = run.config.judge_prompt.text ?? judgePromptText();
  const panel = crossFamilyPanel(subject.config.family, run.judges);
  const verdicts = await Promise.all(
    panel.map((j) => judgeCase(j.provider, renderJudgeRequest(judgeInput, j, promptText))),
  );
  for (const v of verdicts) spend(run, v.costUsd);
  const row: CaseRow = {
    ...key,
    category: question.category,
    expected_behavior: question.expected_behavior,
    model: subject.config.model,
    family: subject.config.family,
    subject_prompt_hash: subjectPromptHash,
    judge_prompt_hash: run.config.judge_prompt.sha256 ?? judgePromptHash(promptText),
    retrieved_ids: chunks.map((c) => c.id),
    answer: reply.text,
    usage: reply.usage,
    latency_ms: reply.latencyMs,
    cost_usd: reply.costUsd + verdicts.reduce((s, v) => s + v.costUsd, 0),
    verdicts,
    scores: caseScores(verdicts, {
      grounding: run.config.gfs_weights.grounding,
      correctness: run.config.gfs_weights.correctness,
      calibration: run.config.gfs_weights.calibration,
    }),
    checks,
  };
  store.put(row);
  return { row, reused: false };
}
