/**
 * The heuristic judges' Provider shell (the verdict is computed from `structured` and returned as JSON
 * text, so it goes through the same parser as a live judge's reply), verbatim quoting (a quote is whole
 * sentences or table rows of the chunk: `passageQuote`), the names a question gives, the one-step
 * arithmetic of a question that records none, and the claim bookkeeping of the numeric judge's grounding
 * (cited and supported, uncited, citation theatre, unsupported). A figure computed by the question's
 * recorded derivation is decided by analysis/derivation.ts, for both judges and the checks.
 *
 * The rubric's decisions live in rubric.ts. What the judges do NOT share is how they read an answer:
 * numeric.ts checks atomic claims by their figures, years and names and compares figures with the gold;
 * lexical.ts checks whole sentences by the words they share with a chunk and grades grounding by the
 * share of the answer's words that are supported. So the two families' agreement says something.
 */
import { performance } from 'node:perf_hooks';
import {
  type CitedClaim,
  type PassageUnit,
  passageUnits,
  STOP_WORDS,
  splitCitedClaims,
  stripCitations,
} from '../../analysis/index.ts';
import type { ContextChunk, JudgeInput, ModelReply, ModelRequest, Provider } from '../../providers/types.ts';
import { RgeError } from '../../util/errors.ts';
import type { DimensionVerdict, JudgeVerdict } from '../verdict.ts';
import { dimension, nothingClaimed } from './rubric.ts';

export { dimension, shortQuote } from './rubric.ts';

/** A heuristic judge's method: the verdict for a case. Pure and deterministic. */
export type VerdictFn = (input: JudgeInput) => JudgeVerdict;

/**
 * Bump when a heuristic judge's verdicts may change (v3: the rubric as written: a refusal makes no claim,
 * calibration judges the decision and the evidence, not correctness; the lexical judge reads sentences;
 * v4: the lexical judge quotes the sentence that holds a claim, not the first of its window; v5: a
 * figure computed by the question's recorded derivation is held, figures agree to their printed
 * precision, the question's names need not be repeated, quotes are whole sentences and table rows).
 */
export const HEURISTIC_JUDGE_VERSION = 'v5';

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

/** A chunk cut into what may be quoted whole: sentences (wrapped lines joined), table rows, headings. */
const unitsByChunk = new WeakMap<ContextChunk, PassageUnit[]>();

export function chunkUnits(chunk: ContextChunk): PassageUnit[] {
  let units = unitsByChunk.get(chunk);
  if (!units) {
    units = passageUnits(chunk.text);
    unitsByChunk.set(chunk, units);
  }
  return units;
}

/** A place in a chunk's text: a figure that holds a claim, or an operand it is computed from. */
export interface QuotePlace {
  chunk: ContextChunk;
  offset: number;
}

/**
 * The quote that holds the places: the whole sentences or table rows they stand in, each once and in
 * order; units next to each other are joined by a space, the others (and other chunks') by " ... ".
 */
export function passageQuote(places: readonly QuotePlace[]): string | null {
  const byChunk = new Map<ContextChunk, Set<number>>();
  for (const { chunk, offset } of places) {
    const i = chunkUnits(chunk).findIndex((u) => offset >= u.start && offset < u.end);
    if (i < 0) continue;
    const set = byChunk.get(chunk) ?? new Set<number>();
    set.add(i);
    byChunk.set(chunk, set);
  }
  const parts: string[] = [];
  for (const [chunk, set] of byChunk) {
    const units = chunkUnits(chunk);
    const at = [...set].sort((a, b) => a - b);
    at.forEach((i, k) => {
      const text = units[i]?.text ?? '';
      if (k > 0 && at[k - 1] === i - 1) parts[parts.length - 1] += ` ${text}`;
      else parts.push(text);
    });
  }
  return parts.length > 0 ? parts.join(' ... ') : null;
}

const SENTENCE_OPENERS = new Set([
  'first',
  'second',
  'third',
  'finally',
  'overall',
  'additionally',
  'also',
  'yes',
  'many',
  'furthermore',
  'moreover',
  'in',
  'on',
  'for',
  'during',
  'as',
]);

/** Names: capitalised words (not sentence openers or stop-words), lowercased, distinct. */
export function namesOf(text: string): string[] {
  const out = new Set<string>();
  for (const m of stripCitations(text).matchAll(/(?<![\p{L}\p{N}])\p{Lu}[\p{L}\p{N}&'’-]*/gu)) {
    const word = m[0].replace(/['’](?:s|m|re|ve|ll|d|t)$/i, '').replace(/[-'’]+$/, '');
    const lower = word.toLowerCase();
    if (word.length < 2 || STOP_WORDS.has(lower)) continue;
    const before = text.slice(0, m.index).trimEnd();
    const opener = before === '' || /[.!?:]$/.test(before);
    if (opener && (SENTENCE_OPENERS.has(lower) || lower.endsWith('ly'))) continue;
    out.add(lower);
  }
  return [...out];
}

/** Four-digit years (which are not quantities). */
export function yearsOf(text: string): string[] {
  return [...new Set(stripCitations(text).match(/\b(?:1[6-9]\d{2}|20\d{2})\b/g) ?? [])];
}

/**
 * The names and years the question gives ("... ITC Limited or Zomato Limited (renamed Eternal Limited
 * in 2025) ..."), lowercased: the question's, not the answer's claims, so a chunk need not repeat them
 * (an annual report's paragraph rarely names its own company) when the claim states a figure to check.
 */
export function questionGives(input: JudgeInput): Set<string> {
  return new Set([...namesOf(input.question), ...yearsOf(input.question)]);
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

/**
 * A judge's test of one claim against one chunk, or against several read together: the quote that
 * supports it (whole sentences or table rows, verbatim), or null.
 */
export type SupportFn = (claim: string, chunks: readonly ContextChunk[]) => string | null;

/**
 * Each claim against the chunks: supported by a chunk it cites; uncited but supported by some chunk;
 * citing chunks that do not hold it (citation theatre, including ids that were not retrieved); or
 * supported by no chunk. A claim that cites several chunks may combine them (a multi-hop answer), so it
 * is also tried against the cited chunks together; an uncited claim against all retrieved chunks
 * together.
 */
export function checkClaims(input: JudgeInput, supports: SupportFn): ClaimCheck[] {
  const byId = new Map(input.chunks.map((c) => [c.id, c]));
  return splitCitedClaims(input.answer).map((claim) => {
    const find = (chunks: readonly ContextChunk[]) => {
      for (const chunk of chunks) {
        const quote = supports(claim.text, [chunk]);
        if (quote !== null) return { quote, chunkId: chunk.id };
      }
      if (chunks.length < 2) return null;
      const quote = supports(claim.text, chunks);
      return quote === null ? null : { quote, chunkId: chunks.map((c) => c.id).join(', ') };
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
 * For a question that records no derivation: whether `value` is one arithmetic step from two figures
 * of `pool` (a + b, a - b, a / b x 100 for a share or margin, (a - b) / b x 100 for a change), within
 * `slack`. The judges pass half a unit of the figure's last written digit (its printed precision), so
 * "4,208" is not 4,260 - 31; a question that records its arithmetic is judged by that alone
 * (analysis/derivation.ts).
 */
export function oneStepFrom(value: number, slack: number, pool: readonly number[]): boolean {
  const operands = [...new Set(pool)].slice(0, MAX_OPERANDS);
  const close = (x: number) => Math.abs(x - value) <= slack + 1e-9;
  for (const a of operands)
    for (const b of operands) {
      if (a === b) continue;
      if (close(a + b) || close(a - b)) return true;
      if (b !== 0 && (close((a / b) * 100) || close(((a - b) / b) * 100))) return true;
    }
  return false;
}

/** Half a unit of the last decimal of the first number written in a text ("2,06,808.53" 0.005). */
export function writtenHalfUnit(text: string): number {
  return 0.5 * 10 ** -(/\d[\d,]*(?:\.(\d+))?/.exec(text)?.[1]?.length ?? 0);
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
  const quotes = checks.flatMap((c) => (c.quote === null ? [] : [c.quote]));
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
