/**
 * `heuristic/numeric` (family `rge-heuristic-numeric`): an offline judge centred on figures and names.
 *
 * - correctness: the answer's quantities against the numeric gold (within the gold's tolerance, 1% by
 *   default, unit- and scale-aware: crore, lakh, million, billion, %, per share), or against the
 *   quantities of the gold answer when there is no numeric gold; without figures, the gold answer's
 *   names must appear exactly (the whole gold answer contained is 2; all its names 2, half 1).
 * - grounding: a claim is held by a chunk when every figure it states is printed there (the same figure
 *   to the precision each is written with, compatible unit: "Rs 9.14 lakh crore" is "Rs 9,14,472.00
 *   crore", "Rs 19,446.49 crore" is not "Rs 19,476.72 crore"; a bare table cell matches the figure
 *   before its scale word), every year it names is in the chunk, and at least three quarters of its
 *   names (capitalised words) are, the names and years the question itself gives aside when the claim
 *   states a figure; a claim with no figure, year or name falls back to 60% of its content words. A
 *   figure the chunk does not print is still held when it is the question's recorded derivation (a
 *   difference, ratio, growth or sum) over figures the chunks print, at the printed precision
 *   (analysis/derivation.ts); for a question that records none, when it is one arithmetic step from two
 *   of the chunk's figures, to its last written digit. A claim citing several chunks is tried against
 *   them together. Its evidence is the whole sentences or table rows that print the claim's figures
 *   (or a derived figure's operands).
 * - calibration: shared with the lexical judge (abstention against the expected behaviour, hedging).
 *
 * It is a heuristic, not a model: it does not read meaning, so a claim whose names and figures are in a
 * chunk but whose relation is wrong passes. Its blind spots differ from the lexical judge's.
 */
import {
  coverage,
  derivedFromPassages,
  extractQuantities,
  printedOperands,
  type Quantity,
  quantityMatchesGold,
  recordsDerivation,
  samePrinted,
  sameQuantity,
  stripCitations,
  unitsCompatible,
} from '../../analysis/index.ts';
import type { ContextChunk, JudgeInput } from '../../providers/types.ts';
import { figureText } from '../../util/figure.ts';
import type { DimensionVerdict, JudgeVerdict } from '../verdict.ts';
import {
  checkClaims,
  chunkUnits,
  groundingFromChecks,
  HeuristicJudge,
  namesOf,
  oneStepFrom,
  passageQuote,
  type QuotePlace,
  questionGives,
  type SupportFn,
  writtenHalfUnit,
  yearsOf,
} from './common.ts';
import { dimension, type Evidence, rubricCalibration, rubricCorrectness } from './rubric.ts';

export const NUMERIC_JUDGE_ID = 'heuristic/numeric';
export const NUMERIC_JUDGE_FAMILY = 'rge-heuristic-numeric';

/** Share of a claim's names that must be in the chunk. */
const NAME_SHARE = 0.75;
/** Fallback for claims with no figure, year or name: share of content words in the chunk. */
const FALLBACK_COVERAGE = 0.6;

interface ChunkIndex {
  lower: string;
  quantities: Quantity[];
}
const chunkIndexes = new WeakMap<ContextChunk, ChunkIndex>();

function indexOf(chunk: ContextChunk): ChunkIndex {
  let index = chunkIndexes.get(chunk);
  if (!index) {
    index = { lower: chunk.text.toLowerCase(), quantities: extractQuantities(chunk.text) };
    chunkIndexes.set(chunk, index);
  }
  return index;
}

/** Where the chunks print `q`: the first figure that agrees with it to the precision each is printed with. */
function printedIn(q: Quantity, chunks: readonly ContextChunk[]): QuotePlace | null {
  for (const chunk of chunks) {
    const c = indexOf(chunk).quantities.find((c) => samePrinted(q, c));
    if (c) return { chunk, offset: c.start };
  }
  return null;
}

/**
 * For a question that records no derivation: whether `q` is one step from two of the chunks' figures
 * (a total, a difference, a share, a change) to half a unit of its last written digit (a round number
 * is not widened here: over all pairs some sum is always near it): figures of a compatible unit
 * for an amount, any figures for a percentage; a bare table cell counts at q's scale.
 */
function oneStepIn(q: Quantity, chunks: readonly ContextChunk[]): boolean {
  const pool = chunks.flatMap((chunk) =>
    indexOf(chunk).quantities.flatMap((c) => {
      if (q.unit === '%') return [c.value / q.scale];
      if (c.unit === null && c.scale === 1 && q.scale !== 1) return [c.value];
      return unitsCompatible(q.unit, c.unit) ? [c.value / q.scale] : [];
    }),
  );
  return oneStepFrom(q.value / q.scale, writtenHalfUnit(q.raw), pool);
}

/**
 * Where the chunks hold a claim's figure: where they print it, else where they print the operands of
 * the question's recorded derivation it is (analysis/derivation.ts), else (for a question that records
 * none) nowhere in particular but one arithmetic step away; null when it is none of these.
 */
function figureHeld(
  q: Quantity,
  input: JudgeInput,
  chunks: readonly ContextChunk[],
): { places: QuotePlace[] } | null {
  const printed = printedIn(q, chunks);
  if (printed) return { places: [printed] };
  const derived = derivedFromPassages(q, input.numericGold, chunks);
  if (derived)
    return {
      places: derived.operands.flatMap((o) => {
        const chunk = chunks.find((c) => c.id === o.passageId);
        return chunk ? [{ chunk, offset: o.hit.start }] : [];
      }),
    };
  if (!recordsDerivation(input.numericGold) && oneStepIn(q, chunks)) return { places: [] };
  return null;
}

/** The unit of the chunks that holds most of the claim's words (for a claim with no figure). */
function bestUnitFor(claim: string, chunks: readonly ContextChunk[], anchor?: string): string | null {
  let best: { text: string; share: number } | null = null;
  for (const chunk of chunks)
    for (const u of chunkUnits(chunk)) {
      const share =
        anchor !== undefined ? Number(u.text.toLowerCase().includes(anchor)) : coverage(claim, u.text);
      if (share > 0 && (best === null || share > best.share)) best = { text: u.text, share };
    }
  return best?.text ?? chunkUnits(chunks[0] as ContextChunk)[0]?.text ?? null;
}

/**
 * The numeric judge's support: every figure of the claim held (printed, or computed as above), every
 * year it names in the chunks, and three quarters of its names; when the claim states a figure, the
 * names and years the question gives need not be there. The quote is the whole sentences or table rows
 * that print the claim's figures (or their operands); for a claim without figures, the unit naming it.
 */
function numericSupport(input: JudgeInput): SupportFn {
  const given = questionGives(input);
  return (claim, chunks) => {
    const lower = chunks.map((c) => indexOf(c).lower).join('\n');
    const figures = extractQuantities(claim);
    const own = (words: string[]) => (figures.length > 0 ? words.filter((w) => !given.has(w)) : words);
    const years = own(yearsOf(claim));
    const names = own(namesOf(claim));
    if (figures.length + names.length + years.length === 0) {
      if (coverage(claim, chunks.map((c) => c.text).join('\n')) < FALLBACK_COVERAGE) return null;
      return bestUnitFor(claim, chunks);
    }
    const places: QuotePlace[] = [];
    for (const q of figures) {
      const held = figureHeld(q, input, chunks);
      if (!held) return null;
      places.push(...held.places);
    }
    if (!years.every((y) => lower.includes(y))) return null;
    const namesFound = names.filter((n) => lower.includes(n));
    if (names.length > 0 && namesFound.length / names.length < NAME_SHARE) return null;
    const quote = passageQuote(places);
    if (quote !== null) return quote;
    return bestUnitFor(claim, chunks, namesFound[0] ?? years[0]);
  };
}

function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Correctness by figures (numeric gold, else the gold answer's figures), then by exact names. */
export function numericCorrectness(input: JudgeInput): DimensionVerdict {
  const decided = rubricCorrectness(input);
  if (decided) return decided;
  const answer = stripCitations(input.answer);
  const stated = extractQuantities(answer);
  const golds =
    input.numericGold.length > 0
      ? input.numericGold.map((g) => ({
          label: `${g.label} = ${figureText(g.value)} ${g.unit}`,
          match: (q: Quantity) => quantityMatchesGold(q, g),
        }))
      : extractQuantities(input.goldAnswer).map((g) => ({
          label: g.raw,
          match: (q: Quantity) => sameQuantity(q, g, 0.01),
        }));
  if (golds.length > 0) {
    const hits = golds.map((g) => ({ gold: g.label, hit: stated.find(g.match) }));
    const matched = hits.filter((h) => h.hit !== undefined);
    const quotes = [...matched.map((h) => (h.hit as Quantity).raw), ...stated.map((q) => q.raw)];
    if (matched.length === golds.length)
      return dimension(
        2,
        `Every gold figure is stated within tolerance, unit and scale considered: ${hits.map((h) => `${h.gold} as "${h.hit?.raw}"`).join('; ')}.`,
        quotes,
      );
    const missing = hits.filter((h) => h.hit === undefined).map((h) => h.gold);
    if (matched.length > 0)
      return dimension(
        1,
        `Partly correct: ${matched.length} of ${golds.length} gold figures stated; missing or wrong: ${missing.join('; ')}.`,
        quotes,
      );
    return dimension(
      0,
      stated.length === 0
        ? `The answer states no figure; the gold is ${missing.join('; ')}.`
        : `No stated figure (${stated.map((q) => q.raw).join(', ')}) matches the gold ${missing.join('; ')} within tolerance.`,
      quotes,
    );
  }
  const gold = input.goldAnswer;
  if (normalise(gold) !== '' && ` ${normalise(answer)} `.includes(` ${normalise(gold)} `))
    return dimension(2, `The answer states the gold answer exactly ("${gold}").`, [gold]);
  const names = namesOf(gold);
  if (names.length > 0) {
    const lower = answer.toLowerCase();
    const found = names.filter((n) => lower.includes(n));
    const score = found.length === names.length ? 2 : found.length * 2 >= names.length ? 1 : 0;
    return dimension(
      score,
      `${found.length} of ${names.length} names of the gold answer ("${gold}") appear exactly in the answer` +
        `${found.length < names.length ? `; missing: ${names.filter((n) => !found.includes(n)).join(', ')}` : ''}.`,
      found.flatMap((n) => {
        const at = lower.indexOf(n);
        return at < 0 ? [] : [answer.slice(at, at + n.length)];
      }),
    );
  }
  const share = coverage(gold, answer);
  return dimension(
    share >= 0.6 ? 2 : share >= 0.3 ? 1 : 0,
    `The gold answer has no figure or name; ${Math.round(share * 100)}% of its content words are in the answer.`,
    [],
  );
}

/**
 * Whether the chunks hold the evidence, by figures and names: a chunk states a gold figure (numeric gold,
 * unit and scale considered), else one of the gold answer's figures, else every name of the gold answer;
 * without figures or names, a gold quote verbatim.
 */
export function numericEvidence(input: JudgeInput): Evidence {
  const chunkQuantities = input.chunks.flatMap((c) => extractQuantities(c.text));
  if (input.numericGold.length > 0) {
    const found = input.numericGold.flatMap((g) =>
      chunkQuantities.filter((q) => quantityMatchesGold(q, g)).slice(0, 1),
    );
    if (found.length > 0)
      return { present: true, quotes: found.map((q) => q.raw), how: 'a chunk states a gold figure' };
    // a multi-hop gold figure: its recorded derivation's operands printed in the chunks (or, for a
    // question that records none, one arithmetic step from two figures the chunks state)
    for (const g of input.numericGold) {
      const operands = g.derivation ? printedOperands(g.derivation, input.chunks) : null;
      if (operands)
        return {
          present: true,
          quotes: operands.map((o) => o.hit.raw),
          how: `a gold figure is computed (${g.derivation?.op}) from figures the chunks state`,
        };
    }
    if (
      !recordsDerivation(input.numericGold) &&
      input.numericGold.some((g) =>
        oneStepFrom(
          g.value,
          Math.max(writtenHalfUnit(String(g.value)), 0.005 * Math.abs(g.value)),
          chunkQuantities.map((q) => q.value),
        ),
      )
    )
      return { present: true, quotes: [], how: 'a gold figure is computed from figures the chunks state' };
  } else {
    const goldFigures = extractQuantities(input.goldAnswer);
    const found = goldFigures.flatMap((g) =>
      chunkQuantities.filter((q) => sameQuantity(q, g, 0.01)).slice(0, 1),
    );
    if (found.length > 0)
      return {
        present: true,
        quotes: found.map((q) => q.raw),
        how: "a chunk states the gold answer's figure",
      };
    const names = goldFigures.length === 0 ? namesOf(input.goldAnswer) : [];
    if (names.length > 0 && input.chunks.some((c) => names.every((n) => c.text.toLowerCase().includes(n))))
      return { present: true, quotes: [], how: `a chunk names ${names.join(', ')}` };
  }
  const spaced = (t: string) => t.replace(/\s+/g, ' ').trim();
  const quoted = input.goldQuotes.find((q) => input.chunks.some((c) => spaced(c.text).includes(spaced(q))));
  if (quoted !== undefined)
    return { present: true, quotes: [quoted], how: 'a chunk holds a gold quote verbatim' };
  return {
    present:
      input.goldQuotes.length === 0 &&
      input.numericGold.length === 0 &&
      extractQuantities(input.goldAnswer).length === 0 &&
      namesOf(input.goldAnswer).length === 0,
    quotes: [],
    how: 'no chunk states a gold figure, names the gold answer or holds a gold quote',
  };
}

/** The numeric judge's verdict for a case. */
export function numericVerdict(input: JudgeInput): JudgeVerdict {
  const correctness = numericCorrectness(input);
  const { grounding, unsupported } = groundingFromChecks(
    input,
    checkClaims(input, numericSupport(input)),
    'figures, years and names matched against the chunk',
  );
  return {
    correctness,
    grounding,
    calibration: rubricCalibration(input, numericEvidence(input)),
    unsupported_claims: unsupported,
  };
}

export function numericJudge(): HeuristicJudge {
  return new HeuristicJudge(NUMERIC_JUDGE_ID, NUMERIC_JUDGE_FAMILY, numericVerdict);
}
