/**
 * What generating candidates for a plan's tasks will cost, before anything is called
 * (`rge questions generate --dry-run`): one call per task still to ask (a stored cell costs nothing).
 *
 * Input is counted with cl100k on the rendered request (system and the task's message) and scaled by
 * the model's token ratio, as the run's estimate does (src/run/estimate). No prompt cache is assumed:
 * the system prompt is below every model's smallest cacheable prefix (1,024 tokens; the prompt file
 * says so and a test checks it) and each task's chunks differ. Output is expected at
 * `EXPECTED_CANDIDATE_TOKENS` per candidate asked (measured on candidates written to the schema, see
 * docs/reference/question-generators.md) and bounded by the request's max tokens for the worst case,
 * which is what the ledger reserves. A reasoning model's thinking tokens are billed as output and are
 * not in the expected figure; the worst case holds them (Gemini 3's allowance is in its max tokens).
 */
import { priceOf } from '../../models/registry.ts';
import type { ModelSpec } from '../../models/spec.ts';
import { requestTokens } from '../../providers/metered.ts';
import type { GenerationTask } from '../../questions/generate/generator.ts';
import { type GeneratorPrompt, readGeneratorPrompt } from '../../questions/generate/model-prompt.ts';
import type { QuestionCategory } from '../../questions/schema.ts';
import { cellWorstUsd, type GenerationCell, generationCells } from './cells.ts';

/**
 * Output tokens (cl100k) of one candidate written to the wire schema, by category: a multihop candidate
 * carries two quotes and a derivation; an out-of-domain one no quote.
 */
export const EXPECTED_CANDIDATE_TOKENS = {
  'grounded-direct': 190,
  'grounded-multihop': 360,
  adversarial: 260,
  'out-of-domain': 150,
} as const satisfies Record<QuestionCategory, number>;

/** `{"candidates":[` and its close. */
const REPLY_ENVELOPE_TOKENS = 6;

/** The cost of generating: calls, tokens, expected and worst-case USD; the largest single call's worst case. */
export interface GenerationEstimate {
  calls: number;
  /** input tokens, scaled by the model's token ratio */
  inputTokens: number;
  /** expected output tokens */
  outputTokens: number;
  /** expected USD */
  usd: number;
  /** every call at its max tokens: what the ledger would reserve */
  worstUsd: number;
  /** the worst case of the largest one call: a cap below it can pay for nothing */
  maxCallWorstUsd: number;
}

/** The expected output of a cell: its count of candidates of its category, and the reply's envelope. */
export function expectedOutputTokens(task: GenerationTask): number {
  return REPLY_ENVELOPE_TOKENS + task.count * EXPECTED_CANDIDATE_TOKENS[task.category];
}

/** The estimate of cells (already rendered) of a model entry. */
export function estimateCells(cells: readonly GenerationCell[], spec: ModelSpec): GenerationEstimate {
  const priced = priceOf(spec, `generator ${spec.id}`);
  const p = priced.prices;
  const out: GenerationEstimate = {
    calls: cells.length,
    inputTokens: 0,
    outputTokens: 0,
    usd: 0,
    worstUsd: 0,
    maxCallWorstUsd: 0,
  };
  for (const cell of cells) {
    const input = Math.ceil(requestTokens(cell.request) * priced.tokenRatio);
    const output = Math.min(expectedOutputTokens(cell.task), cell.request.maxTokens);
    const worst = cellWorstUsd(cell, spec);
    out.inputTokens += input;
    out.outputTokens += output;
    out.usd += (input * p.input + output * p.output) / 1e6;
    out.worstUsd += worst;
    out.maxCallWorstUsd = Math.max(out.maxCallWorstUsd, worst);
  }
  return out;
}

/**
 * The estimate of generating `tasks` with a model entry (default: the packaged prompt, the seed only
 * naming cells). `isStored` leaves out the cells a run would reuse (`ModelGenerator.isStored`).
 */
export function estimateGeneration(
  tasks: readonly GenerationTask[],
  spec: ModelSpec,
  opts: { prompt?: GeneratorPrompt; seed?: string; isStored?: (cell: GenerationCell) => boolean } = {},
): GenerationEstimate {
  const cells = generationCells(tasks, spec, opts.prompt ?? readGeneratorPrompt(), opts.seed ?? 'estimate');
  return estimateCells(opts.isStored ? cells.filter((c) => !opts.isStored?.(c)) : cells, spec);
}
