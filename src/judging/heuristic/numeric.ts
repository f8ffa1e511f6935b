/**
 * `heuristic/numeric` (family `rge-heuristic-numeric`): an offline judge centred on figures and names.
 *
 * - correctness: the answer's quantities against the numeric gold (within the gold's tolerance, 1% by
 *   default, unit- and scale-aware: crore, lakh, million, billion, %, per share), or against the
 *   quantities of the gold answer when there is no numeric gold; without figures, the gold answer's
 *   names must appear exactly (the whole gold answer contained is 2; all its names 2, half 1).
 * - grounding: a claim is held by a chunk when every quantity it states is in the chunk (same value
 *   within 1% and compatible unit; a bare table cell matches the figure before its scale word), every
 *   year it names is in the chunk, and at least three quarters of its names (capitalised words) are; a
 *   claim with no figure, year or name falls back to 60% of its content words. A figure the chunk does
 *   not state is still held when it is one arithmetic step from two of the chunk's figures (a total,
 *   difference, share or change, as a multi-hop answer computes), and a claim citing several chunks is
 *   tried against them together.
 * - calibration: shared with the lexical judge (abstention against the expected behaviour, hedging).
 *
 * It is a heuristic, not a model: it does not read meaning, so a claim whose names and figures are in a
 * chunk but whose relation is wrong passes. Its blind spots differ from the lexical judge's.
 */
import {
  coverage,
  extractQuantities,
  type Quantity,
  quantityMatchesGold,
  STOP_WORDS,
  sameQuantity,
  stripCitations,
  unitsCompatible,
  withinRelative,
} from '../../analysis/index.ts';
import type { ContextChunk, JudgeInput } from '../../providers/types.ts';
import { figureText } from '../../util/figure.ts';
import type { DimensionVerdict, JudgeVerdict } from '../verdict.ts';
import {
  checkClaims,
  chunkSentences,
  derivedFrom,
  groundingFromChecks,
  HeuristicJudge,
  type SupportFn,
  statedDecimals,
} from './common.ts';
import { dimension, type Evidence, rubricCalibration, rubricCorrectness } from './rubric.ts';

export const NUMERIC_JUDGE_ID = 'heuristic/numeric';
export const NUMERIC_JUDGE_FAMILY = 'rge-heuristic-numeric';

/** Grounding tolerance between a stated figure and the chunk's. */
const FIGURE_TOLERANCE = 0.01;
/** Share of a claim's names that must be in the chunk. */
const NAME_SHARE = 0.75;
/** Fallback for claims with no figure, year or name: share of content words in the chunk. */
const FALLBACK_COVERAGE = 0.6;

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
function yearsOf(text: string): string[] {
  return [...new Set(stripCitations(text).match(/\b(?:1[6-9]\d{2}|20\d{2})\b/g) ?? [])];
}

interface ChunkIndex {
  lower: string;
  quantities: Quantity[];
  sentences: string[];
}
const chunkIndexes = new WeakMap<ContextChunk, ChunkIndex>();

function indexOf(chunk: ContextChunk): ChunkIndex {
  let index = chunkIndexes.get(chunk);
  if (!index) {
    index = {
      lower: chunk.text.toLowerCase(),
      quantities: extractQuantities(chunk.text),
      sentences: chunkSentences(chunk.text),
    };
    chunkIndexes.set(chunk, index);
  }
  return index;
}

/** The chunk's quantity that states `q`: same figure, or a bare table cell equal to q before its scale. */
function figureIn(q: Quantity, index: ChunkIndex): Quantity | undefined {
  return index.quantities.find(
    (c) =>
      sameQuantity(q, c, FIGURE_TOLERANCE) ||
      (c.unit === null &&
        c.scale === 1 &&
        q.scale !== 1 &&
        withinRelative(q.value / q.scale, c.value, FIGURE_TOLERANCE)),
  );
}

/**
 * Whether `q` is computed from two of the chunk's figures (a total, a difference, a share, a change):
 * figures of a compatible unit for an amount, any figures for a percentage (a ratio or a change in
 * points); a bare table cell counts at q's scale.
 */
function derivedIn(q: Quantity, index: ChunkIndex): boolean {
  const pool = index.quantities.flatMap((c) => {
    if (q.unit === '%') return [c.value / q.scale];
    if (c.unit === null && c.scale === 1 && q.scale !== 1) return [c.value];
    return unitsCompatible(q.unit, c.unit) ? [c.value / q.scale] : [];
  });
  return derivedFrom(q.value / q.scale, statedDecimals(q.raw), pool);
}

function sentenceAt(index: ChunkIndex, text: string, offset: number): string {
  let from = 0;
  for (const s of index.sentences) {
    const at = text.indexOf(s, from);
    if (at < 0) continue;
    if (offset >= at && offset < at + s.length) return s;
    from = at;
  }
  return index.sentences[0] ?? text;
}

const numericSupport: SupportFn = (claim, chunk) => {
  const index = indexOf(chunk);
  const figures = extractQuantities(claim);
  const names = namesOf(claim);
  const years = yearsOf(claim);
  if (figures.length + names.length + years.length === 0) {
    if (coverage(claim, chunk.text) < FALLBACK_COVERAGE) return null;
    return index.sentences.find((s) => coverage(claim, s) > 0) ?? index.sentences[0] ?? null;
  }
  const found: Quantity[] = [];
  for (const q of figures) {
    const c = figureIn(q, index);
    if (c) found.push(c);
    else if (!derivedIn(q, index)) return null;
  }
  if (!years.every((y) => index.lower.includes(y))) return null;
  const namesFound = names.filter((n) => index.lower.includes(n));
  if (names.length > 0 && namesFound.length / names.length < NAME_SHARE) return null;
  const first = found[0];
  if (first) return sentenceAt(index, chunk.text, first.start);
  const anchor = namesFound[0] ?? years[0] ?? '';
  return index.sentences.find((s) => s.toLowerCase().includes(anchor)) ?? index.sentences[0] ?? null;
};

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
    // a multi-hop gold figure: one arithmetic step from two figures the chunks state
    if (
      input.numericGold.some((g) =>
        derivedFrom(
          g.value,
          statedDecimals(String(g.value)),
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
    checkClaims(input, numericSupport),
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
