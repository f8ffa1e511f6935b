/**
 * The work of a run, cell by cell: for every (subject, question, run index) the subject's request and
 * the identity of its answer; for an answer, each panel judge's request and the identity of its
 * verdict. Retrieval happens once per question (the same top-k chunks for every subject and run).
 *
 * A case's work is computed once and shared: the stages, the estimate, the case rows and the Vitest
 * slices each walk a case (its answer, its panel, each judge's verdict cell), and they used to derive it
 * again on every visit (the panel chosen anew, the judge prompt hashed anew, every judge request
 * rendered and hashed anew). The run's judge prompt is computed once per run, a subject's panel once per
 * run, and an answer's verdict cells once per cell and answer (`verdictCells`); all are pure functions
 * of the prepared run, so what they compute is the same.
 */
import { crossFamilyPanel } from '../judging/panel.ts';
import {
  type JudgePromptVersion,
  judgePromptHash,
  judgePromptText,
  renderJudgeRequest,
} from '../judging/prompt.ts';
import {
  type ContextChunk,
  type JudgeInput,
  type ModelRequest,
  parametersIdentity,
  type SubjectInput,
} from '../providers/types.ts';
import type { Question } from '../questions/schema.ts';
import type { Index } from '../retrieval/index.ts';
import { promptHash, renderSubjectRequest } from '../subject/prompt.ts';
import {
  type AnswerIdentity,
  type AnswerRecord,
  answerKey,
  identityHash,
  type VerdictIdentity,
  verdictKey,
} from './cells.ts';
import type { PreparedRun, RunJudge, RunSubject } from './prepare.ts';

/** One (subject, question, run index) of a run. */
export interface SubjectCell {
  /** `subject/question/run` for messages */
  id: string;
  subject: RunSubject;
  question: Question;
  runIndex: number;
  chunks: ContextChunk[];
  request: ModelRequest;
  identity: AnswerIdentity;
  key: string;
}

/** One judge's verdict on one answer. */
export interface VerdictCell {
  cell: SubjectCell;
  judge: RunJudge;
  answerKey: string;
  request: ModelRequest;
  identity: VerdictIdentity;
  key: string;
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

/** The top-k chunks of a question, retrieved once per run and shared by every subject and run index. */
export function retrieve(run: PreparedRun, question: Question): Promise<ContextChunk[]> {
  if (!run.index) throw new Error('the index is not built (dry run)');
  let pending = run.retrieved.get(question.id);
  if (!pending) {
    pending = retrieveContext(run.index, question, run.config.retrieval.k);
    run.retrieved.set(question.id, pending);
  }
  return pending;
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
): ModelRequest {
  const input: SubjectInput = { kind: 'subject', questionId: question.id, question: question.text, chunks };
  return renderSubjectRequest(input, {
    model: subject.config.model,
    parameters: subject.parameters,
    maxTokens: subject.maxTokens,
    cell: { questionId: question.id, runIndex, subjectId: subject.id, seed: run.config.seed },
    prompt: run.subjectPrompt,
  });
}

/** The identity of a subject's answer to a request (see cells.ts). */
export function answerIdentityFor(
  run: PreparedRun,
  subject: RunSubject,
  question: Question,
  runIndex: number,
  request: ModelRequest,
): AnswerIdentity {
  return {
    provider: subject.config.provider,
    model: subject.config.model,
    provider_version: subject.provider.version ?? '',
    question_id: question.id,
    questions_version: run.config.questions.version,
    run_index: runIndex,
    prompt_hash: promptHash(request),
    max_tokens: request.maxTokens,
    seed: run.config.seed,
    index_checksum: run.info.indexChecksum,
    k: run.config.retrieval.k,
  };
}

export async function subjectCell(
  run: PreparedRun,
  subject: RunSubject,
  question: Question,
  runIndex: number,
): Promise<SubjectCell> {
  const chunks = await retrieve(run, question);
  const request = subjectRequestFor(run, subject, question, chunks, runIndex);
  const identity = answerIdentityFor(run, subject, question, runIndex, request);
  return {
    id: `${subject.id}/${question.id}/run ${runIndex}`,
    subject,
    question,
    runIndex,
    chunks,
    request,
    identity,
    key: answerKey(identity),
  };
}

const cellsOf = new WeakMap<PreparedRun, Promise<SubjectCell[]>>();

/**
 * Every cell of a run, subject by subject, question by question, run by run; built once per prepared
 * run (the suite, the stages and the estimate walk the same cells), each caller given its own array.
 */
export async function subjectCells(run: PreparedRun): Promise<SubjectCell[]> {
  let pending = cellsOf.get(run);
  if (!pending) {
    pending = buildSubjectCells(run);
    cellsOf.set(run, pending);
    pending.catch(() => cellsOf.delete(run));
  }
  return [...(await pending)];
}

async function buildSubjectCells(run: PreparedRun): Promise<SubjectCell[]> {
  const cells: SubjectCell[] = [];
  for (const subject of run.subjects)
    for (const question of run.questions)
      for (let runIndex = 0; runIndex < run.runs; runIndex++)
        cells.push(await subjectCell(run, subject, question, runIndex));
  return cells;
}

const panels = new WeakMap<PreparedRun, Map<string, RunJudge[]>>();

/** The two judges of a subject, as the run built them (chosen once per run and subject). */
export function panelOf(run: PreparedRun, subject: RunSubject): RunJudge[] {
  let bySubject = panels.get(run);
  if (!bySubject) {
    bySubject = new Map();
    panels.set(run, bySubject);
  }
  let panel = bySubject.get(subject.id);
  if (!panel) {
    panel = crossFamilyPanel(subject.config.family, run.judges);
    bySubject.set(subject.id, panel);
  }
  return panel;
}

/** The judge prompt of a run: its version, the system text and the hash. */
export interface RunJudgePrompt {
  text: string;
  hash: string;
  version: JudgePromptVersion;
}

const judgePrompts = new WeakMap<PreparedRun, RunJudgePrompt>();

/**
 * The run's judge prompt: its version, the system text (the config's pinned copy, else built in) and
 * hash; computed once per run.
 */
export function judgePrompt(run: PreparedRun): RunJudgePrompt {
  let prompt = judgePrompts.get(run);
  if (!prompt) {
    const version = run.config.judge_prompt.version as JudgePromptVersion;
    const text = run.config.judge_prompt.text ?? judgePromptText(version);
    prompt = { text, hash: run.config.judge_prompt.sha256 ?? judgePromptHash(text), version };
    judgePrompts.set(run, prompt);
  }
  return prompt;
}

const verdictCellsOf = new WeakMap<SubjectCell, Map<string, VerdictCell[]>>();

/**
 * The verdict cells of an answer to a cell, one per panel judge in panel order: computed once per cell
 * and answer (its key and text), then shared by every stage and reader of the case.
 */
export function verdictCells(
  run: PreparedRun,
  cell: SubjectCell,
  answer: Pick<AnswerRecord, 'key' | 'text'>,
): VerdictCell[] {
  let byAnswer = verdictCellsOf.get(cell);
  if (!byAnswer) {
    byAnswer = new Map();
    verdictCellsOf.set(cell, byAnswer);
  }
  const at = `${answer.key}\n${answer.text}`;
  let cells = byAnswer.get(at);
  if (!cells) {
    cells = panelOf(run, cell.subject).map((judge) => verdictCell(run, cell, answer, judge));
    byAnswer.set(at, cells);
  }
  return cells;
}

/** A judge's request and verdict identity for an answer. */
export function verdictCell(
  run: PreparedRun,
  cell: SubjectCell,
  answer: Pick<AnswerRecord, 'key' | 'text'>,
  judge: RunJudge,
): VerdictCell {
  const prompt = judgePrompt(run);
  const request = renderJudgeRequest(
    judgeInputFor(cell.question, cell.chunks, answer.text),
    judge,
    prompt.text,
  );
  const identity: VerdictIdentity = {
    answer_key: answer.key,
    provider: judge.config.provider,
    model: judge.model,
    provider_version: judge.provider.version ?? '',
    ...(judge.parameters.temperature !== undefined ? { temperature: judge.parameters.temperature } : {}),
    judge_prompt_hash: prompt.hash,
    request_hash: identityHash({
      system: request.system,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
      model: request.model,
      ...parametersIdentity(request.parameters),
      max_tokens: request.maxTokens,
      schema: request.jsonSchema ?? null,
    }),
  };
  return { cell, judge, answerKey: answer.key, request, identity, key: verdictKey(identity) };
}

/** The answer store and verdict store of a cell's subject / a verdict's judge. */
export function answerStore(run: PreparedRun, subject: RunSubject) {
  return run.cells.answers(subject.config.provider, subject.config.model);
}

export function verdictStore(run: PreparedRun, judge: RunJudge) {
  return run.cells.verdicts(judge.config.provider, judge.model);
}
