/** What the offline baselines share: reading the typed subject input, seeding, and the reply with usage. */
import seedrandom from 'seedrandom';
import { RgeError } from '../../util/errors.ts';
import { type ModelReply, type ModelRequest, type SubjectInput, ZERO_USAGE } from '../types.ts';
import { approxTokens, requestTokens } from './text.ts';

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

/** A seeded stream for a cell: `${seed}:${questionId}:${runIndex}`. */
export function cellRandom(request: ModelRequest, provider: string): () => number {
  const cell = request.cell;
  if (!cell)
    throw new RgeError(
      `${provider} samples at temperature ${request.temperature} and needs request.cell (seed, question id, run index)`,
    );
  return seedrandom(`${cell.seed}:${cell.questionId}:${cell.runIndex}`);
}

/** The reply: approximate tokens (characters / 4), cost 0, the measured latency. */
export function reply(request: ModelRequest, text: string, model: string, started: number): ModelReply {
  return {
    text,
    usage: { ...ZERO_USAGE, inputTokens: requestTokens(request), outputTokens: approxTokens(text) },
    latencyMs: performance.now() - started,
    costUsd: 0,
    model,
  };
}
