/** What the offline baselines share: reading the typed subject input, seeding, and the reply with usage. */
import seedrandom from 'seedrandom';
import { approxTokens } from '../../analysis/tokens.ts';
import { RgeError } from '../../util/errors.ts';
import {
  type ModelReply,
  type ModelRequest,
  type Provider,
  type SubjectInput,
  ZERO_USAGE,
} from '../types.ts';

/**
 * The default families of the offline baselines, as configs/fixture.yaml names them. A run config's
 * `family` for a subject wins (the registry passes it on), since the cross-family panel reads the config.
 */
export const EXTRACTIVE_FAMILY = 'rge-offline-extractive';
export const EAGER_FAMILY = 'rge-offline-eager';

export function subjectInput(request: ModelRequest, provider: string): SubjectInput {
  const input = request.structured;
  if (input?.kind !== 'subject')
    throw new RgeError(
      `${provider} answers subject requests only: the request has no structured subject input`,
    );
  return input;
}

/**
 * Whether the prompt asks for citations: "cite" (citing, citation) in the system text or in the user
 * message outside the retrieved passages. The baselines follow that rule as a model would: without it
 * they answer the same sentences with no passage ids (how a prompt regression shows offline).
 */
export function asksToCite(request: ModelRequest, input: SubjectInput): boolean {
  const asks = (text: string) => /\bcit(?:e|es|ing|ation|ations)\b/i.test(text);
  if (asks(request.system ?? '')) return true;
  let instructions = request.messages.map((m) => m.content).join('\n');
  for (const chunk of input.chunks) instructions = instructions.split(chunk.text.trim()).join(' ');
  return asks(instructions);
}

/** The answer without the markers (`[id]`) of the retrieved passages, for a prompt that does not ask to cite. */
export function withoutCitations(text: string, input: SubjectInput): string {
  let out = text;
  for (const chunk of input.chunks)
    out = out.split(` [${chunk.id}]`).join('').split(`[${chunk.id}]`).join('');
  return out.trim();
}

/** A seeded stream for a cell: `${seed}:${questionId}:${runIndex}`. */
export function cellRandom(request: ModelRequest, provider: string): () => number {
  const cell = request.cell;
  if (!cell)
    throw new RgeError(
      `${provider} samples at temperature ${request.parameters.temperature ?? 0} and needs request.cell (seed, question id, run index)`,
    );
  return seedrandom(`${cell.seed}:${cell.questionId}:${cell.runIndex}`);
}

/**
 * The approximate input tokens of a request (characters / 4 over the system text and every message);
 * not `requestTokens` of ../metered.ts, which counts cl100k tokens for the live providers' budget.
 */
export function approxRequestTokens(request: ModelRequest): number {
  return approxTokens(request.system + request.messages.map((m) => m.content).join('\n'));
}

/** The reply: approximate tokens (characters / 4), cost 0, the measured latency. */
export function reply(request: ModelRequest, text: string, model: string, started: number): ModelReply {
  return {
    text,
    usage: { ...ZERO_USAGE, inputTokens: approxRequestTokens(request), outputTokens: approxTokens(text) },
    latencyMs: performance.now() - started,
    costUsd: 0,
    model,
  };
}

/**
 * An offline baseline subject: it reads the typed subject input, computes its answer (`answer`), drops
 * the citations when the prompt does not ask for them, and replies with approximate usage.
 */
export abstract class OfflineSubject implements Provider {
  readonly id: string;
  /** bump when the baseline's answers may change */
  readonly version: string;
  readonly family: string;
  /** the model name the reply carries */
  private readonly model: string;

  constructor(baseline: { id: string; version: string; model: string }, family: string) {
    this.id = baseline.id;
    this.version = baseline.version;
    this.model = baseline.model;
    this.family = family;
  }

  protected abstract answer(request: ModelRequest, input: SubjectInput): string;

  async complete(request: ModelRequest): Promise<ModelReply> {
    const started = performance.now();
    const input = subjectInput(request, this.id);
    const answer = this.answer(request, input);
    return reply(
      request,
      asksToCite(request, input) ? answer : withoutCitations(answer, input),
      this.model,
      started,
    );
  }
}
