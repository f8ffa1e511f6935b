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
 * (max_tokens, no caching: what the ledger reserves).
 */
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { renderJudgeCaseParts } from '../judging/prompt.ts';
import { isLiveProvider } from '../models/registry.ts';
import type { PricedModel } from '../providers/catalogue.ts';
import type { RunSession } from './open.ts';
import type { PlannedJudge, PlannedSubject } from './plan.ts';
import { judgeInputFor } from './work.ts';

export interface EstimateLine {
  provider: string;
  model: string;
  role: 'subject' | 'judge';
  batch: boolean;
  calls: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  expectedUsd: number;
  naiveUsd: number;
  worstUsd: number;
  priceSource: string;
}

export interface Estimate {
  runId: string;
  mode: string;
  lines: EstimateLine[];
  totals: { calls: number; expectedUsd: number; naiveUsd: number; worstUsd: number };
  /** cells of the run, and how many are already stored */
  cells: { total: number; stored: number; verdictsStored: number };
  assumptions: {
    subjectOutputTokens: number;
    judgeOutputTokens: number;
    cacheHitRate: number;
    /** true when the context was bounded by k x chunk_tokens (no index) */
    contextBounded: boolean;
  };
}

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

/** Can this provider's calls go in a batch? Live providers but openai-compatible. */
function batchable(provider: string): boolean {
  return isLiveProvider(provider) && provider !== 'openai-compatible';
}

async function callSpecs(
  run: RunSession,
): Promise<{ specs: CallSpec[]; total: number; stored: number; verdictsStored: number }> {
  const est = run.plan.config.estimate;
  const batchMode = run.plan.info.mode === 'batch';
  const specs: CallSpec[] = [];
  const judgeSystem = tokens(run.plan.judgePrompt.text);
  const subjectSystem = tokens(run.plan.subjectPrompt.system);
  let total = 0;
  let stored = 0;
  let verdictsStored = 0;
  const subjectCall = (subject: PlannedSubject, questionId: string, userTokens: number) =>
    specs.push({
      provider: subject.provider,
      model: subject.model,
      role: 'subject',
      priced: subject.priced,
      batch: batchMode && batchable(subject.provider),
      prefixTokens: subjectSystem + userTokens,
      restTokens: 0,
      cacheGroup: `${subject.id}:${questionId}`,
      expectedOutput: est.subject_output_tokens,
      maxOutput: subject.maxTokens,
    });
  const judgeCall = (judge: PlannedJudge, questionId: string, sharedTokens: number, answerTokens: number) =>
    specs.push({
      provider: judge.provider,
      model: judge.model,
      role: 'judge',
      priced: judge.priced,
      batch: batchMode && batchable(judge.provider),
      prefixTokens: judgeSystem + sharedTokens,
      restTokens: answerTokens + 8,
      cacheGroup: `${judge.id}:${questionId}`,
      expectedOutput: est.judge_output_tokens,
      maxOutput: judge.maxTokens,
    });

  if (!run.index) {
    // No index (dry run on a fresh clone): bound the context by k chunks of chunk_tokens, plus headers.
    const context = run.plan.config.retrieval.k * (run.plan.config.corpus.chunk_tokens + 30);
    for (const subject of run.plan.subjects)
      for (const question of run.plan.questions) {
        const shared =
          tokens(renderJudgeCaseParts(judgeInputFor(question, [], ''), run.plan.judgePrompt.version)[0]) +
          context;
        for (let runIndex = 0; runIndex < run.plan.runs; runIndex++) {
          total++;
          subjectCall(subject, question.id, tokens(question.text) + context + 30);
          for (const judge of run.work.panel(subject))
            judgeCall(judge, question.id, shared, est.subject_output_tokens);
        }
      }
    return { specs, total, stored, verdictsStored };
  }

  const sharedTokens = new Map<string, number>();
  for (const cell of await run.work.cells()) {
    total++;
    const answer = run.answers(cell.subject).get(cell.key);
    if (answer) stored++;
    else subjectCall(cell.subject, cell.question.id, tokens(cell.request.messages[0]?.content ?? ''));
    let shared = sharedTokens.get(cell.question.id);
    if (shared === undefined) {
      shared = tokens(
        renderJudgeCaseParts(judgeInputFor(cell.question, cell.chunks, ''), run.plan.judgePrompt.version)[0],
      );
      sharedTokens.set(cell.question.id, shared);
    }
    const verdicts = answer ? run.work.verdictCells(cell, answer) : [];
    for (const [at, judge] of run.work.panel(cell.subject).entries()) {
      const v = verdicts[at];
      if (v && run.verdicts(judge).get(v.key)) {
        verdictsStored++;
        continue;
      }
      judgeCall(judge, cell.question.id, shared, answer ? tokens(answer.text) : est.subject_output_tokens);
    }
  }
  return { specs, total, stored, verdictsStored };
}

export async function estimateRun(run: RunSession): Promise<Estimate> {
  const est = run.plan.config.estimate;
  const { specs, total, stored, verdictsStored } = await callSpecs(run);
  const lines = new Map<string, EstimateLine>();
  const seen = new Set<string>();
  const hit = est.cache_hit_rate;
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
    const expected =
      (input * p.input + read * p.cache_read + write * p.cache_write + s.expectedOutput * p.output) / 1e6;
    const naive = ((prefix + rest) * p.input + s.expectedOutput * p.output) / 1e6;
    const worst = ((prefix + rest) * Math.max(p.input, p.cache_write) + s.maxOutput * p.output) / 1e6;
    line.calls++;
    line.inputTokens += input;
    line.cacheReadTokens += read;
    line.cacheWriteTokens += write;
    line.outputTokens += s.expectedOutput;
    line.expectedUsd += withBatch(expected, s.priced, s.batch);
    line.naiveUsd += naive;
    line.worstUsd += withBatch(worst, s.priced, s.batch);
  }
  const sorted = [...lines.values()].sort(
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
    cells: { total, stored, verdictsStored },
    assumptions: {
      subjectOutputTokens: est.subject_output_tokens,
      judgeOutputTokens: est.judge_output_tokens,
      cacheHitRate: hit,
      contextBounded: run.index === null,
    },
  };
}

/** Dollars at one precision: cents, or four places below a dollar (a loopback run's fractions of a cent). */
export const usd = (x: number) => `$${x.toFixed(Math.abs(x) >= 1 ? 2 : 4)}`;
const num = (x: number) => x.toLocaleString('en');
const pctOf = (a: number, b: number) => (b === 0 ? 'none' : `${Math.round((100 * a) / b)}%`);

/** The estimate as a table for the terminal. */
export function formatEstimate(e: Estimate, budget: { capUsd: number; leftUsd: number }): string {
  const rows = e.lines.map((l) => [
    l.role,
    `${l.provider}/${l.model}`,
    l.batch ? 'batch' : 'sync',
    num(l.calls),
    num(l.inputTokens),
    num(l.cacheReadTokens),
    num(l.cacheWriteTokens),
    num(l.outputTokens),
    usd(l.expectedUsd),
    usd(l.naiveUsd),
    usd(l.worstUsd),
  ]);
  const header = [
    'role',
    'model',
    'mode',
    'calls',
    'input',
    'cache read',
    'cache write',
    'output',
    'expected',
    'naive sync',
    'worst case',
  ];
  const all = [
    header,
    ...rows,
    [
      'total',
      '',
      '',
      num(e.totals.calls),
      '',
      '',
      '',
      '',
      usd(e.totals.expectedUsd),
      usd(e.totals.naiveUsd),
      usd(e.totals.worstUsd),
    ],
  ];
  const cacheRead = e.lines.reduce((a, l) => a + l.cacheReadTokens, 0);
  const cacheWrite = e.lines.reduce((a, l) => a + l.cacheWriteTokens, 0);
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const fmtRow = (r: string[]) =>
    r.map((c, i) => (i <= 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  const out = [
    `estimate for run ${e.runId} (${e.mode}): ${num(e.cells.total)} cells, ${num(e.cells.stored)} answers and ${num(e.cells.verdictsStored)} verdicts already stored`,
    ...all.map(fmtRow),
    `tokens: input counted with cl100k x each model's token ratio${e.assumptions.contextBounded ? '; the index is not built, so each context is bounded by k x chunk_tokens' : ''}; ` +
      `expected output ${e.assumptions.subjectOutputTokens} (subject) / ${e.assumptions.judgeOutputTokens} (judge) tokens a call, ` +
      `cache hit rate ${e.assumptions.cacheHitRate}; worst case at max_tokens, which the ledger reserves call by call`,
    `cache: each prompt prefix (per model and question: the system prompt and the question's chunks, shared by its runs) is written by the first call; a later call reads ${e.assumptions.cacheHitRate} of it and writes the rest again, so cache reads are ${pctOf(cacheRead, cacheRead + cacheWrite)} of cache tokens here`,
    `budget: cap ${usd(budget.capUsd)}, ${usd(budget.leftUsd)} left`,
    ...(e.totals.worstUsd > budget.leftUsd
      ? [
          `warning: the worst case (${usd(e.totals.worstUsd)}) is above what the cap leaves (${usd(budget.leftUsd)}): every call and batch reserves its worst case before it is sent, so the run can stop at the cap before its end; a rerun goes on from there`,
        ]
      : []),
  ];
  return `${out.join('\n')}\n`;
}
