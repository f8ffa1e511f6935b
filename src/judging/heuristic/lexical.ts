/**
 * `heuristic/lexical` (family `rge-heuristic-lexical`): an offline judge that reads sentences and words.
 * It shares no answer reading with the numeric judge (which checks atomic claims by figures, years and
 * names and compares figures unit- and scale-aware), so the two families' agreement is informative.
 *
 * - grounding: lexical entailment per answer SENTENCE. A sentence is held by a chunk when the chunk's
 *   best window (a sentence, table row or heading with its neighbours) contains at least 75% of the
 *   sentence's content words and every number token as written (grouping commas dropped). A number the
 *   window does not write counts when it is the question's recorded derivation (a difference, ratio,
 *   growth or sum) over figures the window prints, at the printed precision (analysis/derivation.ts;
 *   the cited chunks read together for a multi-hop sentence); for a question that records none, when
 *   it is one arithmetic step from two of the window's numbers, to its last written digit. When the
 *   sentence writes a number, the names and years the question gives count as held (a report's paragraph rarely
 *   names its own company). The evidence is the shortest run of whole units (sentences, table rows)
 *   that holds the sentence. Grounding is graded by the share of the answer's content words in held
 *   sentences: a sentence that cites chunks none of which holds it while another retrieved chunk does is
 *   citation theatre (0); otherwise 90% or more held and cited 2, held but some uncited 1, 70% or more
 *   held 1 (a minor claim unsupported), less 0. An answer that declines asserts nothing (2).
 * - correctness: token overlap with the gold answer (F1 of content words, numbers as written); with gold
 *   figures, the gold's number tokens must appear as written (no unit or scale conversion).
 * - calibration: the rubric (rubric.ts) with its own reading of the evidence: a gold quote, or the gold
 *   answer, whose content words a chunk covers.
 *
 * It is a heuristic, not a model: it rewards wording, so a paraphrase can fail and a sentence that
 * reuses a chunk's words with a wrong relation can pass.
 */
import {
  citationMarkers,
  contentWords,
  derivedFromPassages,
  extractQuantities,
  isRefusal,
  overlap,
  type Passage,
  type Quantity,
  recordsDerivation,
  sentences,
  stripCitations,
} from '../../analysis/index.ts';
import type { ContextChunk, JudgeInput } from '../../providers/types.ts';
import type { DimensionVerdict, JudgeVerdict } from '../verdict.ts';
import { chunkUnits, HeuristicJudge, oneStepFrom, questionGives, writtenHalfUnit } from './common.ts';
import { dimension, type Evidence, nothingClaimed, rubricCalibration, rubricCorrectness } from './rubric.ts';

export const LEXICAL_JUDGE_ID = 'heuristic/lexical';
export const LEXICAL_JUDGE_FAMILY = 'rge-heuristic-lexical';

/** Share of a sentence's content words a chunk window must contain to hold it. */
export const ENTAILMENT = 0.75;
/** Grounding thresholds on the share of the answer's content words in held sentences. */
export const HELD_FOR_2 = 0.9;
export const HELD_FOR_1 = 0.7;
/** Evidence: share of a gold quote's (or the gold answer's) content words one chunk must cover. */
export const EVIDENCE_COVERAGE = 0.8;

const isNumber = (w: string) => /^\d/.test(w);

interface Window {
  text: string;
  words: Set<string>;
  numbers: number[];
  /** what a recorded derivation's operands are looked for in */
  passages: Passage[];
}

/** A sentence with its neighbours (what is graded), and the spans of it a quote may be, shortest first. */
interface SentenceWindow extends Window {
  spans: Window[];
}

const windowsOf = new WeakMap<ContextChunk, SentenceWindow[]>();

function windowOf(id: string, parts: readonly string[]): Window {
  const text = parts.filter((p) => p !== '').join(' ');
  const words = contentWords(text);
  return {
    text,
    words: new Set(words),
    numbers: words.filter(isNumber).map(Number),
    passages: [{ id, text }],
  };
}

/**
 * A chunk's windows: each of its units (a sentence, its wrapped lines joined; a table row; a heading:
 * common.ts `chunkUnits`) with its neighbours (a claim may span a sentence boundary). The window is
 * what holds a claim; its quote is the shortest run of its units that holds as much, the centre first
 * (so the quote is the sentence that supports the claim, not its neighbour), each unit whole.
 */
function windows(chunk: ContextChunk): SentenceWindow[] {
  let out = windowsOf.get(chunk);
  if (!out) {
    const ss = chunkUnits(chunk).map((u) => u.text);
    out = ss.map((s, i) => {
      const prev = ss[i - 1];
      const next = ss[i + 1];
      const spans = [[s]];
      if (next !== undefined) spans.push([s, next]);
      if (prev !== undefined) spans.push([prev, s]);
      if (prev !== undefined && next !== undefined) spans.push([prev, s, next]);
      return {
        ...windowOf(chunk.id, [prev ?? '', s, next ?? '']),
        text: s,
        spans: spans.map((parts) => windowOf(chunk.id, parts)),
      };
    });
    windowsOf.set(chunk, out);
  }
  return out;
}

/**
 * What a sentence is checked for: its distinct content words; the names and years the question
 * gives, which count as held when the sentence writes a number (the figure is what is checked, and a
 * report's paragraph rarely names its own company); and whether a number it writes that a window does
 * not is computed there: by the question's recorded derivation over the window's figures
 * (analysis/derivation.ts), or, for a question that records none, one arithmetic step from two of
 * them, to its last written digit.
 */
interface Reading {
  distinct: string[];
  given: ReadonlySet<string>;
  computed: (word: string, w: Window) => boolean;
}

function readingOf(input: JudgeInput, sentence: string, words: readonly string[]): Reading {
  const distinct = [...new Set(words)];
  const writesNumber = distinct.some(isNumber);
  const given = writesNumber ? new Set(contentWords([...questionGives(input)].join(' '))) : new Set<string>();
  const quantities = new Map<string, Quantity>();
  for (const q of extractQuantities(sentence)) {
    const printed = /\d[\d,]*(?:\.\d+)?/.exec(q.raw)?.[0];
    const word = printed === undefined ? undefined : contentWords(printed)[0];
    if (word !== undefined && !quantities.has(word)) quantities.set(word, q);
  }
  const recorded = recordsDerivation(input.numericGold);
  const computed = (word: string, w: Window): boolean => {
    const q = quantities.get(word);
    if (recorded) return q !== undefined && derivedFromPassages(q, input.numericGold, w.passages) !== null;
    const slack = writtenHalfUnit(q?.raw ?? word);
    return oneStepFrom(Number(word), slack, w.numbers);
  };
  return { distinct, given, computed };
}

/**
 * The share of the sentence's words a window holds; 0 when a number is neither written nor computed
 * there (unless `partly`: then it only does not count, to find each chunk's part of a combined quote).
 */
function windowShare(r: Reading, w: Window, partly = false): number {
  let found = 0;
  for (const word of r.distinct) {
    if (w.words.has(word) || r.given.has(word)) found++;
    else if (isNumber(word)) {
      if (r.computed(word, w)) found++;
      else if (!partly) return 0;
    }
  }
  return found / r.distinct.length;
}

/** The shortest span of a window that holds `share` of the sentence (the whole window, at worst). */
function quoteOf(
  r: Reading,
  w: SentenceWindow,
  share: number,
  partly: boolean,
): { text: string; length: number } {
  for (const span of w.spans)
    if (windowShare(r, span, partly) >= share) return { text: span.text, length: span.text.length };
  return { text: w.text, length: Number.POSITIVE_INFINITY };
}

interface Best {
  share: number;
  quote: string | null;
  length: number;
}

/** A chunk's best window for the sentence: the largest share; of equal shares, the shortest quote. */
function bestWindow(r: Reading, chunk: ContextChunk, best: Best, partly = false): Best {
  for (const w of windows(chunk)) {
    const share = windowShare(r, w, partly);
    if (share === 0 || share < best.share) continue;
    // Of windows that hold as much, the one whose quote is shortest: the supporting sentence itself.
    const quote = quoteOf(r, w, share, partly);
    if (share > best.share || quote.length < best.length)
      best = { share, quote: quote.text, length: quote.length };
  }
  return best;
}

const NOTHING: Best = { share: 0, quote: null, length: Number.POSITIVE_INFINITY };

/**
 * The best window of the chunks for a sentence: its share of the words, and the quote that holds them.
 * With `combine` (the chunks a sentence cites) they are also read together: a multi-hop sentence
 * combines them, e.g. a difference of two figures stated in two chunks; its quote is each chunk's part
 * of it (the window that holds most of the sentence's words there), joined.
 */
function entailment(
  r: Reading,
  chunks: readonly ContextChunk[],
  combine = false,
): { share: number; quote: string | null } {
  if (r.distinct.length === 0) return { share: 1, quote: null };
  let best = NOTHING;
  for (const chunk of chunks) best = bestWindow(r, chunk, best);
  if (combine && chunks.length > 1 && best.share < ENTAILMENT) {
    const all = chunks.flatMap(windows);
    const together: Window = {
      text: '',
      words: new Set(all.flatMap((w) => [...w.words])),
      numbers: all.flatMap((w) => w.numbers),
      passages: chunks.map((c) => ({ id: c.id, text: c.text })),
    };
    const share = windowShare(r, together);
    if (share > best.share) {
      const parts = chunks.flatMap((c) => bestWindow(r, c, NOTHING, true).quote ?? []);
      return { share, quote: parts.join(' ... ') || null };
    }
  }
  return { share: best.share, quote: best.quote };
}

type SentenceStatus = 'cited' | 'uncited' | 'miscited' | 'unsupported';

interface SentenceCheck {
  sentence: string;
  weight: number;
  status: SentenceStatus;
  quote: string | null;
}

function checkSentences(input: JudgeInput): SentenceCheck[] {
  // A refusal that explains itself ("... does not state it. I will not guess.") asserts nothing.
  if (isRefusal(input.answer)) return [];
  const byId = new Map(input.chunks.map((c) => [c.id, c]));
  return sentences(input.answer, { lines: true }).flatMap((sentence): SentenceCheck[] => {
    const words = contentWords(sentence);
    if (words.length === 0 || isRefusal(sentence)) return [];
    const reading = readingOf(input, sentence, words);
    const ids = [...new Set(citationMarkers(sentence))];
    const cited = ids.flatMap((id) => {
      const c = byId.get(id);
      return c ? [c] : [];
    });
    const anywhere = entailment(reading, input.chunks);
    if (ids.length > 0) {
      const own = entailment(reading, cited, true);
      if (own.share >= ENTAILMENT)
        return [{ sentence, weight: words.length, status: 'cited', quote: own.quote }];
      return [
        {
          sentence,
          weight: words.length,
          status: anywhere.share >= ENTAILMENT || cited.length < ids.length ? 'miscited' : 'unsupported',
          quote: anywhere.quote,
        },
      ];
    }
    return [
      {
        sentence,
        weight: words.length,
        status: anywhere.share >= ENTAILMENT ? 'uncited' : 'unsupported',
        quote: anywhere.share >= ENTAILMENT ? anywhere.quote : null,
      },
    ];
  });
}

export function lexicalGrounding(input: JudgeInput): { grounding: DimensionVerdict; unsupported: string[] } {
  const checks = checkSentences(input);
  if (checks.length === 0)
    return nothingClaimed(
      input,
      'The answer asserts nothing (it declines or is empty), so nothing is ungrounded.',
    );
  const total = checks.reduce((n, c) => n + c.weight, 0);
  const held = checks.filter((c) => c.status === 'cited' || c.status === 'uncited');
  const share = held.reduce((n, c) => n + c.weight, 0) / total;
  const pct = `${Math.round(share * 100)}%`;
  const quotes = held.flatMap((c) => (c.quote ? [c.quote] : []));
  const notHeld = checks
    .filter((c) => c.status === 'miscited' || c.status === 'unsupported')
    .map((c) => c.sentence);
  const miscited = checks.filter((c) => c.status === 'miscited');
  if (miscited.length > 0)
    return {
      grounding: dimension(
        0,
        `Citation theatre: ${miscited.length} sentence(s) cite chunks that do not hold them (by shared words) while another retrieved chunk does, or cite ids that were not retrieved.`,
        [...miscited.map((c) => c.sentence), ...quotes],
      ),
      unsupported: notHeld,
    };
  if (share >= HELD_FOR_2 && held.every((c) => c.status === 'cited'))
    return {
      grounding: dimension(
        2,
        `${pct} of the answer's words are in sentences their cited chunks hold.`,
        quotes,
      ),
      unsupported: notHeld,
    };
  if (share >= HELD_FOR_2)
    return {
      grounding: dimension(
        1,
        `${pct} of the answer's words are held by the chunks, but some sentences carry no citation.`,
        quotes,
      ),
      unsupported: notHeld,
    };
  if (share >= HELD_FOR_1)
    return {
      grounding: dimension(
        1,
        `${pct} of the answer's words are held by the chunks; a minor part is unsupported.`,
        [...notHeld, ...quotes],
      ),
      unsupported: notHeld,
    };
  return {
    grounding: dimension(0, `Only ${pct} of the answer's words are in sentences a retrieved chunk holds.`, [
      ...notHeld,
      ...quotes,
    ]),
    unsupported: notHeld,
  };
}

/** The answer's number tokens, normalised as contentWords writes them, with the text they were written as. */
function writtenNumbers(answer: string): { value: string; raw: string }[] {
  return [...answer.matchAll(/\d[\d,]*(?:\.\d+)?/g)].map((m) => ({
    raw: m[0].replace(/,+$/, ''),
    value: contentWords(m[0].replace(/,+$/, ''))[0] ?? m[0],
  }));
}

/** Within the rubric's 1% relative (numbers as written: no unit or scale conversion). */
const near = (a: number, b: number) => Math.abs(a - b) <= 0.01 * Math.max(Math.abs(a), Math.abs(b));

/**
 * Correctness by the gold answer's words. With gold numbers (the gold answer's, or the numeric gold's
 * values): each must be written in the answer within 1% (as written, no scale conversion), and half of
 * the gold answer's other words must be there (unless it has none); without numbers, the gold answer's
 * words in order (2), else token F1.
 */
export function lexicalCorrectness(input: JudgeInput): DimensionVerdict {
  const decided = rubricCorrectness(input);
  if (decided) return decided;
  const answer = stripCitations(input.answer);
  const gold = input.goldAnswer;
  const goldWords = contentWords(gold);
  const goldNumbers = [
    ...new Set([...goldWords.filter(isNumber).map(Number), ...input.numericGold.map((g) => g.value)]),
  ];
  if (goldNumbers.length > 0) {
    const written = writtenNumbers(answer);
    const hits = goldNumbers.map((n) => written.find((w) => near(Number(w.value), n)));
    const found = hits.filter((h): h is { value: string; raw: string } => h !== undefined);
    const otherWords = goldWords.filter((w) => !isNumber(w));
    const answerWords = new Set(contentWords(answer));
    const share =
      otherWords.length === 0 ? 1 : otherWords.filter((w) => answerWords.has(w)).length / otherWords.length;
    const quotes = found.map((h) => h.raw);
    if (found.length === goldNumbers.length && share >= 0.5)
      return dimension(
        2,
        `Every gold number is written in the answer within 1% (${quotes.join(', ')}), with the gold answer's words ("${gold}").`,
        quotes,
      );
    if (found.length > 0)
      return dimension(
        1,
        `${found.length} of ${goldNumbers.length} gold numbers are written in the answer; ${Math.round(share * 100)}% of the gold answer's other words.`,
        quotes,
      );
    return dimension(0, `No gold number of "${gold}" is written in the answer.`, []);
  }
  const phrase = (t: string) => ` ${contentWords(t).join(' ')} `;
  if (goldWords.length > 0 && phrase(answer).includes(phrase(gold)))
    return dimension(2, `The answer contains the gold answer's words in order ("${gold}").`, [gold]);
  const f1 = overlap(answer, gold);
  return dimension(
    f1 >= 0.5 ? 2 : f1 >= 0.25 ? 1 : 0,
    `Token F1 ${f1.toFixed(2)} with the gold answer "${gold}".`,
    [],
  );
}

/**
 * Whether the chunks hold the evidence, by words: a chunk covers a gold quote's (or else the gold
 * answer's) content words; a gold number a chunk does not write counts when the chunks compute it (the
 * question's recorded derivation over their figures, or, for a question that records none, one
 * arithmetic step from two of their numbers).
 */
export function lexicalEvidence(input: JudgeInput): Evidence {
  const everything: Window = {
    text: '',
    words: new Set(),
    numbers: input.chunks.flatMap((c) => contentWords(c.text).filter(isNumber).map(Number)),
    passages: input.chunks.map((c) => ({ id: c.id, text: c.text })),
  };
  const covers = (text: string) => {
    const want = [...new Set(contentWords(text))];
    if (want.length === 0) return undefined;
    const r = readingOf(input, text, want);
    for (const c of input.chunks) {
      const have = new Set(contentWords(c.text));
      let found = 0;
      for (const w of want) if (have.has(w) || (isNumber(w) && r.computed(w, everything))) found++;
      if (found / want.length >= EVIDENCE_COVERAGE) return c;
    }
    return undefined;
  };
  for (const q of input.goldQuotes) {
    const chunk = covers(q);
    if (chunk) return { present: true, quotes: [q], how: `chunk ${chunk.id} covers a gold quote's words` };
  }
  const byAnswer = covers(input.goldAnswer);
  if (byAnswer)
    return { present: true, quotes: [], how: `chunk ${byAnswer.id} covers the gold answer's words` };
  return { present: false, quotes: [], how: "no chunk covers a gold quote's or the gold answer's words" };
}

/** The lexical judge's verdict for a case. */
export function lexicalVerdict(input: JudgeInput): JudgeVerdict {
  const { grounding, unsupported } = lexicalGrounding(input);
  return {
    correctness: lexicalCorrectness(input),
    grounding,
    calibration: rubricCalibration(input, lexicalEvidence(input)),
    unsupported_claims: unsupported,
  };
}

export function lexicalJudge(): HeuristicJudge {
  return new HeuristicJudge(LEXICAL_JUDGE_ID, LEXICAL_JUDGE_FAMILY, lexicalVerdict);
}
