/**
 * The heuristic judges' Provider shell (the verdict is computed from `structured` and returned as JSON
 * text, so it goes through the same parser as a live judge's reply), verbatim quoting, arithmetic
 * tracing of derived figures, and the claim bookkeeping of the numeric judge's grounding (cited and
 * supported, uncited, citation theatre, unsupported).
 *
 * The rubric's decisions live in rubric.ts. What the judges do NOT share is how they read an answer:
 * numeric.ts checks atomic claims by their figures, years and names and compares figures with the gold;
 * lexical.ts checks whole sentences by the words they share with a chunk and grades grounding by the
 * share of the answer's words that are supported. So the two families' agreement says something.
 */
import { performance } from 'node:perf_hooks';
import { type CitedClaim, sentences, splitCitedClaims } from '../../analysis/index.ts';
import type { ContextChunk, JudgeInput, ModelReply, ModelRequest, Provider } from '../../providers/types.ts';
import { RgeError } from '../../util/errors.ts';
import type { DimensionVerdict, JudgeVerdict } from '../verdict.ts';
import { dimension, nothingClaimed, shortQuote } from './rubric.ts';

export { dimension, shortQuote } from './rubric.ts';

/** A heuristic judge's method: the verdict for a case. Pure and deterministic. */
export type VerdictFn = (input: JudgeInput) => JudgeVerdict;

/**
 * Bump when a heuristic judge's verdicts may change (v3: the rubric as written: a refusal makes no claim,
 * calibration judges the decision and the evidence, not correctness; the lexical judge reads sentences;
 * v4: the lexical judge quotes the sentence that holds a claim, not the first of its window).
 */
export const HEURISTIC_JUDGE_VERSION = 'v4';

/** A judge Provider around a verdict function; replies with the verdict as JSON text. */

export class HeuristicJudge implements Provider {
  readonly version = HEURISTIC_JUDGE_VERSION;
  constructor(
    readonly id: string,
    readonly family: string,
    private readonly verdict: VerdictFn,
  ) {}

  async complete(request: ModelRequest): Promise<ModelReply> {
    const input = request.structured;
    if (input?.kind !== 'judge')
      throw new RgeError(`${this.id} judges cases only: the request has no structured judge input`);
    const started = performance.now();
    const verdict = this.verdict(input);
    const text = JSON.stringify(verdict);
    return {
      text,
      json: verdict,
      usage: {
        inputTokens: Math.ceil((request.system.length + (request.messages[0]?.content.length ?? 0)) / 4),
        outputTokens: Math.ceil(text.length / 4),
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
      },
      latencyMs: performance.now() - started,
      costUsd: 0,
      model: this.id,
    };
  }
}

/** Sentences of a chunk, verbatim (for quoting), split at sentence ends and line breaks. */
export function chunkSentences(text: string): string[] {
  return sentences(text, { lines: true });
}

/**
 * The claim as written in the answer: the claim text has its citation markers stripped, so the span of
 * the answer it came from (markers included) is found by matching its words in order, outside markers,
 * and extended over the markers and the full stop that follow. Falls back to the claim text when the
 * words are not found in order.
 */
export function verbatimClaim(answer: string, claim: string): string {
  if (answer.includes(claim)) return claim;
  const words = claim.match(WORD) ?? [];
  if (words.length === 0) return claim;
  const markers = [...answer.matchAll(/\[[^\]\n]*\]/g)].map((m) => [m.index, m.index + m[0].length] as const);
  const inMarker = (at: number) => markers.some(([a, b]) => at >= a && at < b);
  const tokens = [...answer.matchAll(WORD)].filter((m) => !inMarker(m.index));
  for (let i = 0; i + words.length <= tokens.length; i++) {
    if (!words.every((w, k) => tokens[i + k]?.[0] === w)) continue;
    const first = tokens[i] as RegExpExecArray;
    const last = tokens[i + words.length - 1] as RegExpExecArray;
    let end = last.index + last[0].length;
    const close = /[.!?;:,)]$/.exec(claim)?.[0];
    if (close) {
      const tail = /^(?:\s*\[[^\]\n]*\])*\s*/.exec(answer.slice(end))?.[0] ?? '';
      if (answer[end + tail.length] === close) end += tail.length + 1;
    }
    return answer.slice(first.index, end);
  }
  return claim;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** Where a claim stands against the chunks. */
export type ClaimStatus = 'cited-supported' | 'uncited-supported' | 'citation-theatre' | 'unsupported';

export interface ClaimCheck {
  claim: CitedClaim;
  status: ClaimStatus;
  /** verbatim evidence: the chunk sentence that supports it, if any */
  quote: string | null;
  /** the chunk that supports it, if any */
  chunkId: string | null;
  /** for citation theatre: the cited ids that do not hold it */
  badCitations: string[];
}

/** A judge's test of one claim against one chunk: the supporting sentence (verbatim), or null. */
export type SupportFn = (claim: string, chunk: ContextChunk) => string | null;

/**
 * Each claim against the chunks: supported by a chunk it cites; uncited but supported by some chunk;
 * citing chunks that do not hold it (citation theatre, including ids that were not retrieved); or
 * supported by no chunk. A claim that cites several chunks may combine them (a multi-hop answer), so it
 * is also tried against the cited chunks together; an uncited claim against all retrieved chunks
 * together.
 */
export function checkClaims(input: JudgeInput, supports: SupportFn): ClaimCheck[] {
  const byId = new Map(input.chunks.map((c) => [c.id, c]));
  const together = new Map<string, ContextChunk>();
  const combined = (chunks: readonly ContextChunk[]): ContextChunk => {
    const id = chunks.map((c) => c.id).join(', ');
    let chunk = together.get(id);
    if (!chunk) {
      const first = chunks[0] as ContextChunk;
      chunk = { ...first, id, text: chunks.map((c) => c.text).join('\n') };
      together.set(id, chunk);
    }
    return chunk;
  };
  return splitCitedClaims(input.answer).map((claim) => {
    const find = (chunks: readonly ContextChunk[]) => {
      for (const chunk of chunks) {
        const quote = supports(claim.text, chunk);
        if (quote !== null) return { quote, chunkId: chunk.id };
      }
      if (chunks.length < 2) return null;
      const all = combined(chunks);
      const quote = supports(claim.text, all);
      return quote === null ? null : { quote, chunkId: all.id };
    };
    if (claim.citations.length > 0) {
      const cited = [...new Set(claim.citations)].flatMap((id) => {
        const c = byId.get(id);
        return c ? [c] : [];
      });
      const hit = find(cited);
      if (hit) return { claim, status: 'cited-supported', ...hit, badCitations: [] };
      return {
        claim,
        status: 'citation-theatre',
        quote: null,
        chunkId: null,
        badCitations: [...claim.citations],
      };
    }
    const hit = find(input.chunks);
    if (hit) return { claim, status: 'uncited-supported', ...hit, badCitations: [] };
    return { claim, status: 'unsupported', quote: null, chunkId: null, badCitations: [] };
  });
}

/** Most figures of a chunk considered as operands of a derived figure (pairs grow quadratically). */
const MAX_OPERANDS = 80;

/**
 * Whether `value` (stated with `decimals` decimal places) is one arithmetic step from two figures of
 * `pool`: a + b, a - b, a / b x 100 (a share or margin) or (a - b) / b x 100 (a change), equal once
 * rounded to the stated precision or within 0.5% relative. This is how a multi-hop answer's computed
 * figure (a total, a difference, a margin, a growth rate) is traced to the figures it was computed from.
 */
export function derivedFrom(value: number, decimals: number, pool: readonly number[]): boolean {
  const operands = [...new Set(pool)].slice(0, MAX_OPERANDS);
  const halfUnit = 0.5 * 10 ** -decimals + 1e-9;
  const close = (x: number) => Math.abs(x - value) <= Math.max(halfUnit, 0.005 * Math.abs(value));
  for (const a of operands)
    for (const b of operands) {
      if (a === b) continue;
      if (close(a + b) || close(a - b)) return true;
      if (b !== 0 && (close((a / b) * 100) || close(((a - b) / b) * 100))) return true;
    }
  return false;
}

/** Decimal places of the first number written in a text ("Rs 2,06,808.53 crore" has 2). */
export function statedDecimals(text: string): number {
  return /\d[\d,]*(?:\.(\d+))?/.exec(text)?.[1]?.length ?? 0;
}

/** The largest share of unsupported claims that still earns grounding 1 ("a minor claim unsupported"). */
export const MINOR_UNSUPPORTED_SHARE = 0.25;

/**
 * Grounding from the claim checks: citation theatre anywhere is 0; unsupported claims are 0 unless they
 * are a minor share (at most a quarter, with at least four claims), then 1; all supported but some
 * uncited is at most 1; all supported by the chunks they cite is 2. No claims: a refusal or an empty
 * answer makes no claim and is grounded (2).
 */
export function groundingFromChecks(
  input: JudgeInput,
  checks: readonly ClaimCheck[],
  method: string,
): {
  grounding: DimensionVerdict;
  unsupported: string[];
} {
  const verbatim = (c: ClaimCheck) => verbatimClaim(input.answer, c.claim.text);
  const theatre = checks.filter((c) => c.status === 'citation-theatre');
  const unsupported = checks.filter((c) => c.status === 'unsupported');
  const uncited = checks.filter((c) => c.status === 'uncited-supported');
  const quotes = checks.flatMap((c) => (c.quote === null ? [] : [shortQuote(c.quote)]));
  const unsupportedClaims = [...theatre, ...unsupported].map(verbatim);
  if (checks.length === 0)
    return nothingClaimed(
      input,
      'The answer makes no factual claim (it declines or is empty), so nothing is ungrounded.',
    );
  if (theatre.length > 0) {
    const first = theatre[0] as ClaimCheck;
    return {
      grounding: dimension(
        0,
        `Citation theatre: ${theatre.length} of ${checks.length} claim(s) cite ${first.badCitations.map((id) => `[${id}]`).join(', ')}, ` +
          `which does not hold the claim (${method}).`,
        [...theatre.map(verbatim), ...quotes],
      ),
      unsupported: unsupportedClaims,
    };
  }
  if (unsupported.length > 0) {
    const minor = checks.length >= 4 && unsupported.length / checks.length <= MINOR_UNSUPPORTED_SHARE;
    return {
      grounding: dimension(
        minor ? 1 : 0,
        `${unsupported.length} of ${checks.length} claim(s) are supported by no retrieved chunk (${method})` +
          `${minor ? '; a minor share, the rest is supported' : ''}.`,
        [...unsupported.map(verbatim), ...quotes],
      ),
      unsupported: unsupportedClaims,
    };
  }
  if (uncited.length > 0)
    return {
      grounding: dimension(
        1,
        `Every claim is supported by a retrieved chunk (${method}), but ${uncited.length} of ${checks.length} carry no citation.`,
        quotes,
      ),
      unsupported: [],
    };
  return {
    grounding: dimension(
      2,
      `Every claim (${checks.length}) is supported by the chunk it cites (${method}).`,
      quotes,
    ),
    unsupported: [],
  };
}
