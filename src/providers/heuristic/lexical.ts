/**
 * `heuristic/lexical` (family `rge-heuristic-lexical`): an offline judge centred on words and phrases.
 *
 * - correctness: with numeric gold, every gold figure must be stated (unit- and scale-aware, within the
 *   gold's tolerance) AND the gold answer's wording must be there: at least half of its content words
 *   (numbers normalised as tokens), unless the gold answer is only figures. Without numeric gold, a
 *   short gold answer (an entity, at most eight content words) must appear as a phrase (2), else the
 *   share of the gold answer's content words in the answer decides: 70% 2, 40% 1.
 * - grounding: a claim is held by a chunk when every number token of the claim is a token of the chunk
 *   (written the same way once grouping commas and trailing zeros are dropped: no scale conversion),
 *   and either 70% of the claim's distinct content words are in the chunk, or 50% are and 30% of its
 *   content-word bigrams (its phrases) are the chunk's too. A number token the chunk lacks is still held
 *   when it is one arithmetic step from two of the chunk's number tokens as written (a total,
 *   difference, share or change); a claim citing several chunks is tried against them together.
 * - calibration: shared with the numeric judge.
 *
 * It is a heuristic, not a model: it rewards wording, so a paraphrase can fail and a claim that reuses a
 * chunk's words with a wrong relation can pass. Its blind spots differ from the numeric judge's.
 */
import {
  contentWords,
  coverage,
  extractQuantities,
  type Quantity,
  quantityMatchesGold,
  stripCitations,
} from '../../analysis/index.ts';
import type { DimensionVerdict, JudgeVerdict } from '../../judging/verdict.ts';
import type { ContextChunk, JudgeInput } from '../types.ts';
import {
  calibrationVerdict,
  checkClaims,
  chunkSentences,
  correctnessByBehaviour,
  derivedFrom,
  dimension,
  groundingFromChecks,
  HeuristicJudge,
  type SupportFn,
  statedDecimals,
} from './common.ts';

export const LEXICAL_JUDGE_ID = 'heuristic/lexical';
export const LEXICAL_JUDGE_FAMILY = 'rge-heuristic-lexical';

const CLAIM_COVERAGE = 0.7;
const CLAIM_COVERAGE_WITH_PHRASES = 0.5;
const PHRASE_SHARE = 0.3;
const SHORT_GOLD_WORDS = 8;

const isNumberToken = (w: string) => /^\d/.test(w);

interface ChunkIndex {
  words: Set<string>;
  /** the chunk's number tokens as numbers, as written (no scale words applied) */
  numbers: number[];
  bigrams: Set<string>;
  sentences: { text: string; words: Set<string> }[];
}
const chunkIndexes = new WeakMap<ContextChunk, ChunkIndex>();

function bigrams(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < words.length; i++) out.push(`${words[i - 1]} ${words[i]}`);
  return out;
}

function indexOf(chunk: ContextChunk): ChunkIndex {
  let index = chunkIndexes.get(chunk);
  if (!index) {
    const words = contentWords(chunk.text);
    index = {
      words: new Set(words),
      numbers: words.filter(isNumberToken).map(Number),
      bigrams: new Set(bigrams(words)),
      sentences: chunkSentences(chunk.text).map((text) => ({ text, words: new Set(contentWords(text)) })),
    };
    chunkIndexes.set(chunk, index);
  }
  return index;
}

/** The chunk sentence sharing the most content words with the claim (verbatim). */
function bestSentence(words: ReadonlySet<string>, index: ChunkIndex): string | null {
  let best: string | null = null;
  let bestShared = 0;
  for (const s of index.sentences) {
    let shared = 0;
    for (const w of words) if (s.words.has(w)) shared++;
    if (shared > bestShared) {
      best = s.text;
      bestShared = shared;
    }
  }
  return best;
}

const lexicalSupport: SupportFn = (claim, chunk) => {
  const index = indexOf(chunk);
  const words = contentWords(claim);
  const distinct = new Set(words);
  if (distinct.size === 0) return index.sentences[0]?.text ?? null;
  let found = 0;
  for (const w of distinct) {
    if (index.words.has(w)) found++;
    else if (isNumberToken(w)) {
      // a number the chunk lacks must be computed from two of its numbers, else the claim is not held
      if (!derivedFrom(Number(w), statedDecimals(w), index.numbers)) return null;
      found++;
    }
  }
  const share = found / distinct.size;
  if (share < CLAIM_COVERAGE_WITH_PHRASES) return null;
  if (share < CLAIM_COVERAGE) {
    const phrases = [...new Set(bigrams(words))];
    const held = phrases.filter((b) => index.bigrams.has(b)).length;
    if (phrases.length === 0 || held / phrases.length < PHRASE_SHARE) return null;
  }
  return bestSentence(distinct, index);
};

function phrase(text: string): string {
  return contentWords(text).join(' ');
}

/** Correctness by the gold answer's words and phrase (and the numeric gold's figures when there are). */
export function lexicalCorrectness(input: JudgeInput): DimensionVerdict {
  const decided = correctnessByBehaviour(input);
  if (decided) return decided;
  const answer = stripCitations(input.answer);
  const gold = input.goldAnswer;
  const goldWords = contentWords(gold);
  const share = coverage(gold, answer);
  const pct = `${Math.round(share * 100)}%`;
  if (input.numericGold.length > 0) {
    const stated = extractQuantities(answer);
    const hits = input.numericGold.map((g) => stated.find((q) => quantityMatchesGold(q, g)));
    const matched = hits.filter((h): h is Quantity => h !== undefined);
    const onlyFigures = goldWords.every(isNumberToken);
    const quotes = matched.map((q) => q.raw);
    if (matched.length === hits.length && (onlyFigures || share >= 0.5))
      return dimension(
        2,
        `Every gold figure is stated and the answer carries the gold answer's wording (${pct} of "${gold}").`,
        quotes,
      );
    if (matched.length > 0)
      return dimension(
        1,
        matched.length === hits.length
          ? `The gold figures are stated, but only ${pct} of the gold answer's words ("${gold}") are in the answer.`
          : `${matched.length} of ${hits.length} gold figures are stated (${pct} of the gold answer's words).`,
        quotes,
      );
    return dimension(0, `No gold figure of "${gold}" is stated; ${pct} of its words are in the answer.`, []);
  }
  if (goldWords.length > 0 && goldWords.length <= SHORT_GOLD_WORDS) {
    if (` ${phrase(answer)} `.includes(` ${phrase(gold)} `))
      return dimension(2, `The answer contains the gold answer as a phrase ("${gold}").`, [gold]);
  }
  const score = share >= 0.7 ? 2 : share >= 0.4 ? 1 : 0;
  return dimension(score, `${pct} of the gold answer's content words ("${gold}") are in the answer.`, []);
}

/** The lexical judge's verdict for a case. */
export function lexicalVerdict(input: JudgeInput): JudgeVerdict {
  const correctness = lexicalCorrectness(input);
  const { grounding, unsupported } = groundingFromChecks(
    input,
    checkClaims(input, lexicalSupport),
    'content words and phrases matched against the chunk',
  );
  return {
    correctness,
    grounding,
    calibration: calibrationVerdict(input, correctness, grounding),
    unsupported_claims: unsupported,
  };
}

export function lexicalJudge(): HeuristicJudge {
  return new HeuristicJudge(LEXICAL_JUDGE_ID, LEXICAL_JUDGE_FAMILY, lexicalVerdict);
}
