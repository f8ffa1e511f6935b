/**
 * The work of a run, cell by cell: for every (subject, question, run index) the subject's request and
 * the identity of its answer; for an answer, each panel judge's request and the identity of its
 * verdict. Retrieval happens once per question (the same top-k chunks for every subject and run).
 *
 * A case's work is computed once per session and shared by the stages, the estimate, the case rows and
 * the Vitest slices: the cells are built once, a subject's panel is the plan's, and an answer's verdict
 * cells are computed once per cell and answer. All of it is a pure function of the plan and the index,
 * held by the session's `RunWork`, never in module state.
 */
import { type JudgePrompt, renderJudgeRequest } from '../../judging/prompt.ts';
import { KIND_TRAITS } from '../../models/kinds.ts';
import type { ContextChunk, JudgeInput, ModelRequest, SubjectInput } from '../../providers/types.ts';
import type { Question } from '../../questions/schema.ts';
import {
  type AnswerIdentity,
  type AnswerRecord,
  answerKey,
  identityHash,
  type VerdictIdentity,
  verdictKey,
} from '../../store/cells.ts';
import { cellSeed, promptHash, renderSubjectRequest } from '../../subject/prompt.ts';
import { contextChunkOf } from '../../system/contexts.ts';
import type { SystemQuestion } from '../../system/contract.ts';
import { type PlannedJudge, type PlannedSubject, panelOf, type RunPlan } from '../plan/plan.ts';
import { CheckIdentities } from './check-identity.ts';
import { JudgeRequestHashes, judgeRequestHash } from './judge-request-hash.ts';
import type { RunRetrieval } from './retrieval.ts';

/**
 * What a subject is asked for a cell: a model, inside rge's pipeline, its rendered request; a system (a
 * user's own RAG app), the question alone.
 */
export type SubjectAsk =
  | { kind: 'model'; request: ModelRequest }
  | { kind: 'system'; question: SystemQuestion };

/** One (subject, question, run index) of a run. */
export interface SubjectCell {
  /** `subject/question/run n` for messages */
  id: string;
  subject: PlannedSubject;
  question: Question;
  runIndex: number;
  /** rge's top-k for the question, which rge's pipeline answers from; none for a system (it retrieves) */
  chunks: ContextChunk[];
  ask: SubjectAsk;
  identity: AnswerIdentity;
  key: string;
}

/**
 * The passages a subject answered from, as the judges, checks and labelling page read them: a system's
 * own contexts (stored with its answer), else rge's top-k.
 */
export function contextsOf(
  cell: Pick<SubjectCell, 'chunks'>,
  answer: Pick<AnswerRecord, 'contexts'>,
): ContextChunk[] {
  return answer.contexts ? answer.contexts.map(contextChunkOf) : cell.chunks;
}

/** One judge's verdict on one answer. */
export interface VerdictCell {
  cell: SubjectCell;
  judge: PlannedJudge;
  answerKey: string;
  request: ModelRequest;
  identity: VerdictIdentity;
  key: string;
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
  plan: Pick<RunPlan, 'config' | 'subjectPrompt'>,
  subject: PlannedSubject,
  question: Question,
  chunks: readonly ContextChunk[],
  runIndex: number,
): ModelRequest {
  const input: SubjectInput = { kind: 'subject', questionId: question.id, question: question.text, chunks };
  return renderSubjectRequest(input, {
    model: subject.model,
    parameters: subject.parameters,
    maxTokens: subject.maxTokens,
    cell: { questionId: question.id, runIndex, subjectId: subject.id, seed: plan.config.seed },
    prompt: plan.subjectPrompt,
  });
}

/** The question a system is asked for a cell: the question, its run index and the cell's seed. */
export function systemQuestionFor(
  plan: Pick<RunPlan, 'config'>,
  question: Question,
  runIndex: number,
): SystemQuestion {
  return {
    id: question.id,
    text: question.text,
    run_index: runIndex,
    seed: cellSeed({ seed: plan.config.seed, questionId: question.id, runIndex }),
  };
}

/** An OpenAI-compatible model's endpoint (its base URL, without a trailing slash), part of its cells' identity. */
export function endpointOf(m: Pick<PlannedSubject | PlannedJudge, 'kind' | 'config'>): {
  endpoint?: string;
} {
  const url = m.config.base_url;
  return KIND_TRAITS[m.kind].identity === 'model+endpoint' && url
    ? { endpoint: url.replace(/\/+$/, '') }
    : {};
}

/**
 * The identity of a subject's answer (see the store's cells.ts): for a model, its request's hash and
 * rge's retrieval (index checksum and k); for a system, the subject's own id (its `model` is a label),
 * the question's hash (what it is asked) and no retrieval of rge's (it retrieves itself: index
 * 'system', k 0). `asked`: the model's request identity when the caller has it (`RunWork` computes it
 * once per subject and question), else from the rendered request.
 */
export function answerIdentityFor(
  plan: Pick<RunPlan, 'config' | 'info'>,
  subject: PlannedSubject,
  question: Question,
  runIndex: number,
  ask: SubjectAsk,
  asked?: RequestIdentity,
): AnswerIdentity {
  const model = ask.kind === 'model';
  const request = ask.kind === 'model' ? (asked ?? requestIdentityOf(ask.request)) : null;
  return {
    provider: subject.provider,
    model: subject.model,
    provider_version: subject.identity.version,
    ...(model ? endpointOf(subject) : { subject: subject.id }),
    question_id: question.id,
    questions_version: plan.config.questions.version,
    run_index: runIndex,
    prompt_hash: request ? request.promptHash : identityHash(ask.kind === 'system' ? ask.question : null),
    max_tokens: request ? request.maxTokens : 0,
    seed: plan.config.seed,
    index_checksum: model ? plan.info.indexChecksum : 'system',
    k: model ? plan.config.retrieval.k : 0,
  };
}

/**
 * What of a model's rendered request its answer's identity holds: the prompt's hash (`promptHash`: not
 * over the cell's seed or run index) and the output limit. The same for every run of a question.
 */
export interface RequestIdentity {
  promptHash: string;
  maxTokens: number;
}

export function requestIdentityOf(request: ModelRequest): RequestIdentity {
  return { promptHash: promptHash(request), maxTokens: request.maxTokens };
}

/**
 * A judge's request and verdict identity for an answer, under the run's judge prompt. The request's hash
 * is the rendered request's (`judgeRequestHash`); a run's `RunWork` passes one it computed without
 * rendering the request (judge-request-hash.ts), the same bit for bit.
 */
export function verdictCellOf(
  prompt: JudgePrompt,
  cell: SubjectCell,
  answer: Pick<AnswerRecord, 'key' | 'text' | 'contexts'>,
  judge: PlannedJudge,
  requestHash?: string,
): VerdictCell {
  const input = { question: cell.question, chunks: contextsOf(cell, answer), text: answer.text };
  const render = () =>
    renderJudgeRequest(judgeInputFor(input.question, input.chunks, input.text), judge, prompt);
  const identity: VerdictIdentity = {
    answer_key: answer.key,
    provider: judge.provider,
    model: judge.model,
    provider_version: judge.identity.version,
    ...endpointOf(judge),
    ...(judge.parameters.temperature !== undefined ? { temperature: judge.parameters.temperature } : {}),
    judge_prompt_hash: prompt.sha256,
    request_hash: requestHash ?? judgeRequestHash(render()),
  };
  return {
    cell,
    judge,
    answerKey: answer.key,
    // rendered again when read (to call the judge): a verdict cell holds no rendered prompt
    get request(): ModelRequest {
      return render();
    },
    identity,
    key: verdictKey(identity),
  };
}

/** How many cells' verdict cells a session keeps computed. */
const VERDICT_CELLS_KEPT = 4_096;

/** The cells of a plan and what follows from them, each computed once. */
export class RunWork {
  private cellsPending: Promise<SubjectCell[]> | null = null;
  private readonly panels = new Map<string, PlannedJudge[]>();
  /** verdict cells by cell id, then by answer (its key and text) */
  private readonly verdictCellsOf = new Map<string, Map<string, VerdictCell[]>>();
  /** cells whose answer and every verdict the stores held when last looked (the stores only grow) */
  private readonly whole = new Set<string>();
  /** the judges' request hashes, each question's shared part hashed once */
  private readonly requestHashes: JudgeRequestHashes;
  /** each model subject's request identity by question (the same for every run: `promptHash` has no seed) */
  private readonly requestIdentities = new Map<string, RequestIdentity>();
  /** the identities of the answers' stored checks, each question and set of passages hashed once */
  readonly checkIdentities = new CheckIdentities();

  constructor(
    readonly plan: RunPlan,
    readonly retrieval: RunRetrieval,
  ) {
    this.requestHashes = new JudgeRequestHashes(plan.judgePrompt, judgeInputFor);
  }

  /** The cell of (subject, question, run index): its chunks, request and answer identity. */
  async subjectCell(subject: PlannedSubject, question: Question, runIndex: number): Promise<SubjectCell> {
    const system = subject.kind === 'system';
    const chunks = system ? [] : await this.retrieval.of(question);
    const plan = this.plan;
    // A model's request is rendered to hash it, then again whenever it is read (to call the model): a
    // cell holds no rendered prompt, so a run of a hundred thousand cells does not hold as many (issue 41).
    const ask: SubjectAsk = system
      ? { kind: 'system', question: systemQuestionFor(plan, question, runIndex) }
      : {
          kind: 'model',
          get request(): ModelRequest {
            return subjectRequestFor(plan, subject, question, chunks, runIndex);
          },
        };
    // the request's identity is the same for every run of the question: rendered and hashed once
    const asked =
      ask.kind === 'model' ? this.requestIdentity(subject, question, () => ask.request) : undefined;
    const identity = answerIdentityFor(plan, subject, question, runIndex, ask, asked);
    return {
      id: `${subject.id}/${question.id}/run ${runIndex}`,
      subject,
      question,
      runIndex,
      chunks,
      ask,
      identity,
      key: answerKey(identity),
    };
  }

  /** The identity of a model subject's request for a question (any run of it), computed once. */
  private requestIdentity(
    subject: PlannedSubject,
    question: Question,
    request: () => ModelRequest,
  ): RequestIdentity {
    const at = `${subject.id}\u0000${question.id}`;
    let identity = this.requestIdentities.get(at);
    if (!identity) {
      identity = requestIdentityOf(request());
      this.requestIdentities.set(at, identity);
    }
    return identity;
  }

  /**
   * Every cell of the plan, subject by subject, question by question, run by run; built once (the
   * suite, the stages and the estimate walk the same cells), each caller given its own array.
   */
  async cells(): Promise<SubjectCell[]> {
    if (!this.cellsPending) {
      this.cellsPending = this.buildCells();
      this.cellsPending.catch(() => {
        this.cellsPending = null;
      });
    }
    return [...(await this.cellsPending)];
  }

  private async buildCells(): Promise<SubjectCell[]> {
    const cells: SubjectCell[] = [];
    for (const subject of this.plan.subjects)
      for (const question of this.plan.questions)
        for (let runIndex = 0; runIndex < this.plan.runs; runIndex++)
          cells.push(await this.subjectCell(subject, question, runIndex));
    return cells;
  }

  /**
   * Records that the stores hold a cell's judgeable answer and every verdict of its panel (the estimate
   * looks at every cell first): the sync stage then counts it reused without computing its verdict cells
   * again, which a run of a hundred thousand stored cells would otherwise do twice (issue 41).
   */
  markWhole(cell: Pick<SubjectCell, 'id'>): void {
    this.whole.add(cell.id);
  }

  isWhole(cell: Pick<SubjectCell, 'id'>): boolean {
    return this.whole.has(cell.id);
  }

  /** The two judges of a subject, in panel order (the plan's). */
  panel(subject: Pick<PlannedSubject, 'id'>): PlannedJudge[] {
    let panel = this.panels.get(subject.id);
    if (!panel) {
      panel = panelOf(this.plan, subject.id);
      this.panels.set(subject.id, panel);
    }
    return panel;
  }

  /**
   * The verdict cells of an answer to a cell, one per panel judge in panel order: computed once per cell
   * and answer (its key and text), then shared by every stage and reader of the case.
   */
  verdictCells(cell: SubjectCell, answer: Pick<AnswerRecord, 'key' | 'text' | 'contexts'>): VerdictCell[] {
    let byAnswer = this.verdictCellsOf.get(cell.id);
    if (!byAnswer) {
      byAnswer = new Map();
      this.verdictCellsOf.set(cell.id, byAnswer);
    }
    const at = `${answer.key}\n${answer.text}`;
    let cells = byAnswer.get(at);
    if (!cells) {
      cells = this.panel(cell.subject).map((judge) => this.verdictCell(cell, answer, judge));
      byAnswer.set(at, cells);
      // the last VERDICT_CELLS_KEPT cells' verdict cells are kept (a cell's stages and case read them
      // close together); older ones are computed again if asked for
      if (this.verdictCellsOf.size > VERDICT_CELLS_KEPT) {
        const oldest = this.verdictCellsOf.keys().next();
        if (!oldest.done) this.verdictCellsOf.delete(oldest.value);
      }
    }
    return cells;
  }

  /**
   * A judge's request and verdict identity for an answer; the request's hash from the run's judge prompt
   * and the question's shared part, hashed once (judge-request-hash.ts), not from the answer's rendered
   * request.
   */
  verdictCell(
    cell: SubjectCell,
    answer: Pick<AnswerRecord, 'key' | 'text' | 'contexts'>,
    judge: PlannedJudge,
  ): VerdictCell {
    const passages = contextsOf(cell, answer);
    const hash = this.requestHashes.of(judge, cell.question, passages, answer.text, !answer.contexts);
    return verdictCellOf(this.plan.judgePrompt, cell, answer, judge, hash);
  }
}
