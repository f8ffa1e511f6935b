/**
 * The pre-flight estimate: what the calls a run still has to make will cost, itemised per provider,
 * model and role, before anything is called (`rge eval run --dry-run` prints it; a run whose expected
 * cost exceeds what the ledger has left is refused). Stored cells cost nothing and are not counted.
 *
 * Input tokens are counted with cl100k on the rendered requests and scaled by the model's token ratio
 * (a conservative bound on the vendor's own count); when the index is not built (a dry run of the
 * published config on a fresh clone) the retrieved context is bounded by k x chunk_tokens. Output is
 * counted at the config's expected output tokens (`estimate:`), and at max_tokens for the worst case.
 *
 * Caching: every call of a model whose cacheable prefix (the subject's context; the judge's rubric and
 * case) is long enough reads it from the cache when another call of the same model and question wrote it
 * before, at the config's assumed hit rate; misses write it again. Batch calls get the batch discount.
 * Three figures per line: expected (this mode, caching), naive (sync calls, no caching) and worst
 * (max_tokens, no caching: what the ledger reserves). In batch mode, the batch plan (batch/plan.ts):
 * how the batches fit what the cap leaves, in how many waves.
 */
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { DEFAULT_CHUNK_TOKENS } from '../../ingest/config.ts';
import { parseVerdict, retryConversation } from '../../judging/parse.ts';
import { renderJudgeCaseParts } from '../../judging/prompt.ts';
import { hasBatchApi } from '../../models/kinds.ts';
import type { PricedModel } from '../../providers/catalogue.ts';
import type { ChatMessage, ContextChunk, ModelRequest } from '../../providers/types.ts';
import type { Question } from '../../questions/schema.ts';
import { type AnswerRecord, isJudgeable } from '../../store/cells.ts';
import type { Estimate, EstimateLine } from '../../store/run-state.ts';
import { leftForRun, type PlanInput, planOfCalls } from '../batch/plan.ts';
import { type PlannedJudge, type PlannedSubject, usesIndex } from '../plan/plan.ts';
import type { RunSession } from '../session/open.ts';
import { contextsOf, judgeInputFor, type SubjectCell } from '../session/work.ts';

/** One call to estimate. */
interface CallSpec {
  provider: string;
  model: string;
  role: 'subject' | 'judge';
  priced: PricedModel;
  batch: boolean;
  /** cl100k tokens of the cacheable prefix and of the rest */
  prefixTokens: number;
  restTokens: number;
  /** calls with the same group share a cacheable prefix */
  cacheGroup: string;
  expectedOutput: number;
  maxOutput: number;
}

const tokens = (text: string): number => encode(text).length;

function withBatch(usd: number, priced: PricedModel, batch: boolean): number {
  return batch ? usd * (1 - priced.prices.batch_discount) : usd;
}

/** The calls a run still has to make, as they are counted: one spec per call, and the cells seen. */
class CallSpecs {
  readonly specs: CallSpec[] = [];
  total = 0;
  stored = 0;
  verdictsStored = 0;
  private readonly batchMode: boolean;
  private readonly judgeSystem: number;
  private readonly subjectSystem: number;

  constructor(private readonly run: RunSession) {
    this.batchMode = run.plan.info.mode === 'batch';
    this.judgeSystem = tokens(run.plan.judgePrompt.text);
    this.subjectSystem = tokens(run.plan.subjectPrompt.system);
  }

  private get assumed() {
    return this.run.plan.config.estimate;
  }

  /** One call of a subject or judge of the run, with its cacheable prefix and the rest of its input. */
  private call(
    m: PlannedSubject | PlannedJudge,
    role: 'subject' | 'judge',
    questionId: string,
    tokens: { prefix: number; rest: number; output: number },
  ): void {
    this.specs.push({
      provider: m.provider,
      model: m.model,
      role,
      priced: m.priced,
      batch: this.batchMode && hasBatchApi(m.provider),
      prefixTokens: tokens.prefix,
      restTokens: tokens.rest,
      cacheGroup: `${m.id}:${questionId}`,
      expectedOutput: tokens.output,
      maxOutput: m.maxTokens,
    });
  }

  subjectCall(subject: PlannedSubject, questionId: string, userTokens: number): void {
    this.call(subject, 'subject', questionId, {
      prefix: this.subjectSystem + userTokens,
      rest: 0,
      output: this.assumed.subject_output_tokens,
    });
  }

  /** A judge call; `answerTokens` null when the answer is not in yet (the expected subject output). */
  judgeCall(
    judge: PlannedJudge,
    questionId: string,
    sharedTokens: number,
    answerTokens: number | null,
  ): void {
    this.call(judge, 'judge', questionId, {
      prefix: this.judgeSystem + sharedTokens,
      rest: (answerTokens ?? this.assumed.subject_output_tokens) + 8,
      output: this.assumed.judge_output_tokens,
    });
  }

  /**
   * The retry of a judge's first reply that an earlier run kept (cells/attempts/): the first reply is
   * paid and settled, so only the retry is new spend; it is a sync call (a kept reply never goes into a
   * batch again: batch/batches.ts) whose input is the first request's plus the reply and the turn that asks
   * again (`retryTokens`).
   */
  judgeRetry(
    judge: PlannedJudge,
    questionId: string,
    sharedTokens: number,
    answerTokens: number,
    retryTokens: number,
  ): void {
    this.keptReplies++;
    this.specs.push({
      provider: judge.provider,
      model: judge.model,
      role: 'judge',
      priced: judge.priced,
      batch: false,
      prefixTokens: this.judgeSystem + sharedTokens,
      restTokens: answerTokens + 8 + retryTokens,
      cacheGroup: `${judge.id}:${questionId}`,
      expectedOutput: this.assumed.judge_output_tokens,
      maxOutput: judge.maxTokens,
    });
  }

  /** judges' first replies kept by an earlier run, whose retries are counted instead (`judgeRetry`) */
  keptReplies = 0;
}

/**
 * What a judge's retry adds to its first request: the kept reply as the assistant's turn and the turn
 * that says what was wrong (judging/parse.ts `retryConversation`), in cl100k tokens.
 */
function retryTokens(request: ModelRequest, kept: string): number {
  const parsed = parseVerdict(kept);
  const retry = retryConversation(request.messages, kept, parsed.ok ? '' : parsed.error);
  const count = (ms: readonly ChatMessage[]) => ms.reduce((n, m) => n + tokens(m.content) + 4, 0);
  return Math.max(0, count(retry) - count(request.messages));
}

/** The judge case's shared part (everything but the answer), in tokens. */
function sharedCaseTokens(run: RunSession, question: Question, chunks: readonly ContextChunk[]): number {
  return tokens(renderJudgeCaseParts(judgeInputFor(question, chunks, ''), run.plan.judgePrompt.version)[0]);
}

/**
 * What a context holds at most, in tokens, when it is not known: k chunks of chunk_tokens, plus headers
 * (a config of systems only may have no corpus section: its default chunk size).
 */
function contextBound(run: RunSession): number {
  const chunkTokens = run.plan.config.corpus?.chunk_tokens ?? DEFAULT_CHUNK_TOKENS;
  return run.plan.config.retrieval.k * (chunkTokens + 30);
}

/** No index (a dry run on a fresh clone): each context bounded by k chunks of chunk_tokens, plus headers. */
function boundedSpecs(run: RunSession, calls: CallSpecs): void {
  const context = contextBound(run);
  for (const subject of run.plan.subjects)
    for (const question of run.plan.questions) {
      const shared = sharedCaseTokens(run, question, []) + context;
      for (let runIndex = 0; runIndex < run.plan.runs; runIndex++) {
        calls.total++;
        calls.subjectCall(subject, question.id, tokens(question.text) + context + 30);
        for (const judge of run.work.panel(subject)) calls.judgeCall(judge, question.id, shared, null);
      }
    }
}

/**
 * The judge case's shared part of a cell, in tokens: over rge's top-k (the same for every answer to the
 * question: counted once), or over a system's own contexts (its answer's; before it answers, bounded by
 * k chunks of chunk_tokens).
 */
function judgeCaseTokens(
  run: RunSession,
  cell: SubjectCell,
  answer: AnswerRecord | undefined,
  byQuestion: Map<string, number>,
): number {
  if (cell.ask.kind === 'system') {
    if (answer) return sharedCaseTokens(run, cell.question, contextsOf(cell, answer));
    return sharedCaseTokens(run, cell.question, []) + contextBound(run);
  }
  let shared = byQuestion.get(cell.question.id);
  if (shared === undefined) {
    shared = sharedCaseTokens(run, cell.question, cell.chunks);
    byQuestion.set(cell.question.id, shared);
  }
  return shared;
}

/** The calls of the run's cells that are not stored, on their rendered requests (a system's: its question). */
async function cellSpecs(run: RunSession, calls: CallSpecs): Promise<void> {
  const byQuestion = new Map<string, number>();
  for (const cell of await run.work.cells()) {
    calls.total++;
    const answer = run.answers(cell.subject).get(cell.key);
    if (answer) calls.stored++;
    else {
      const asked =
        cell.ask.kind === 'model' ? (cell.ask.request.messages[0]?.content ?? '') : cell.question.text;
      calls.subjectCall(cell.subject, cell.question.id, tokens(asked));
    }
    // counted only for a judge call still to make: a warm run tokenises no judge case
    let sharedTokens: number | undefined;
    const shared = () => (sharedTokens ??= judgeCaseTokens(run, cell, answer, byQuestion));
    const verdicts = answer ? run.work.verdictCells(cell, answer) : [];
    let stored = 0;
    for (const [at, judge] of run.work.panel(cell.subject).entries()) {
      const v = verdicts[at];
      if (v && run.verdicts(judge).has(v.key)) {
        calls.verdictsStored++;
        stored++;
        continue;
      }
      const kept = v && answer ? run.attempts(judge).get(v.key) : undefined;
      if (v && answer && kept)
        calls.judgeRetry(
          judge,
          cell.question.id,
          shared(),
          tokens(answer.text),
          retryTokens(v.request, kept.text),
        );
      else calls.judgeCall(judge, cell.question.id, shared(), answer ? tokens(answer.text) : null);
    }
    if (answer && isJudgeable(answer) && stored === verdicts.length) run.work.markWhole(cell);
  }
}

async function callSpecs(run: RunSession): Promise<CallSpecs> {
  const calls = new CallSpecs(run);
  // a run of systems only has no index of rge's and needs none: its cells are known without it
  if (run.index || !usesIndex(run.plan.subjects)) await cellSpecs(run, calls);
  else boundedSpecs(run, calls);
  return calls;
}

/** The estimate's lines (a line per provider, model, role and mode) and the batch calls the plan places. */
function priceSpecs(specs: readonly CallSpec[], hit: number): { lines: EstimateLine[]; priced: PlanInput[] } {
  const priced: PlanInput[] = [];
  const lines = new Map<string, EstimateLine>();
  const seen = new Set<string>();
  for (const s of specs) {
    const key = `${s.provider}\u0000${s.model}\u0000${s.role}\u0000${s.batch}`;
    const line =
      lines.get(key) ??
      ({
        provider: s.provider,
        model: s.model,
        role: s.role,
        batch: s.batch,
        calls: 0,
        inputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        outputTokens: 0,
        expectedUsd: 0,
        naiveUsd: 0,
        worstUsd: 0,
        priceSource: s.priced.priceSource,
      } satisfies EstimateLine);
    lines.set(key, line);
    const ratio = s.priced.tokenRatio;
    const prefix = Math.ceil(s.prefixTokens * ratio);
    const rest = Math.ceil(s.restTokens * ratio);
    const p = s.priced.prices;
    let input = rest;
    let read = 0;
    let write = 0;
    const group = `${s.provider}\u0000${s.model}\u0000${s.cacheGroup}`;
    if (prefix >= s.priced.minCacheTokens) {
      if (seen.has(group)) {
        read = Math.round(prefix * hit);
        write = prefix - read;
      } else write = prefix;
      seen.add(group);
    } else input += prefix;
    const expected = withBatch(
      (input * p.input + read * p.cache_read + write * p.cache_write + s.expectedOutput * p.output) / 1e6,
      s.priced,
      s.batch,
    );
    const naive = ((prefix + rest) * p.input + s.expectedOutput * p.output) / 1e6;
    const worst = withBatch(
      ((prefix + rest) * Math.max(p.input, p.cache_write) + s.maxOutput * p.output) / 1e6,
      s.priced,
      s.batch,
    );
    line.calls++;
    line.inputTokens += input;
    line.cacheReadTokens += read;
    line.cacheWriteTokens += write;
    line.outputTokens += s.expectedOutput;
    line.expectedUsd += expected;
    line.naiveUsd += naive;
    line.worstUsd += worst;
    if (s.batch)
      priced.push({
        ...{ provider: s.provider, model: s.model, role: s.role },
        expectedUsd: expected,
        worstUsd: worst,
        // as a batch's byte limit counts them: about 4 bytes a cl100k token, and the item's envelope
        bytes: 4 * (s.prefixTokens + s.restTokens) + 512,
      });
  }
  return { lines: [...lines.values()], priced };
}

export async function estimateRun(run: RunSession): Promise<Estimate> {
  const est = run.plan.config.estimate;
  const { specs, total, stored, verdictsStored, keptReplies } = await callSpecs(run);
  const hit = est.cache_hit_rate;
  const { lines, priced } = priceSpecs(specs, hit);
  const sorted = lines.sort(
    (a, b) =>
      a.role.localeCompare(b.role) * -1 ||
      a.provider.localeCompare(b.provider) ||
      a.model.localeCompare(b.model),
  );
  const sum = (f: (l: EstimateLine) => number) => sorted.reduce((acc, l) => acc + f(l), 0);
  return {
    runId: run.plan.info.runId,
    mode: run.plan.info.mode,
    lines: sorted,
    totals: {
      calls: sum((l) => l.calls),
      expectedUsd: sum((l) => l.expectedUsd),
      naiveUsd: sum((l) => l.naiveUsd),
      worstUsd: sum((l) => l.worstUsd),
    },
    cells: { total, stored, verdictsStored, keptReplies },
    assumptions: {
      subjectOutputTokens: est.subject_output_tokens,
      judgeOutputTokens: est.judge_output_tokens,
      cacheHitRate: hit,
      contextBounded: run.index === null && usesIndex(run.plan.subjects),
    },
    batchPlan: planOfCalls(priced, leftForRun(run.ledger)),
  };
}
