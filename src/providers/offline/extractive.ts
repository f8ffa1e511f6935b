/**
 * `offline/extractive`: a deterministic BASELINE subject, not a model. It does not understand language;
 * it exists so that the harness runs end to end with no API key and so that comparisons, rankings and
 * variance statistics have subjects with different behaviour to measure (see also `offline/eager`).
 *
 * It answers with the one or two sentences of the retrieved chunks that best match the question
 * (shared content words weighted by rarity, shared figures, the company, and the period words: fiscal
 * year, quarter, standalone/consolidated, interim/final), each quoted verbatim (whitespace normalised)
 * and followed by its `[chunk-id]`. When the best match is weak it abstains and says why ("The provided
 * context does not state ..."). At temperature 0 it is deterministic; above 0 it samples among the top
 * candidates (abstaining is one of them) with probability proportional to exp(4 x score / temperature)
 * (`SAMPLING_LOGIT_SCALE`), from a seedrandom stream seeded with
 * `${cell.seed}:${cell.questionId}:${cell.runIndex}`: runs differ, and each run is reproducible.
 *
 * Usage is approximate: tokens are characters / 4; cost is 0; latency is measured.
 */
import { figures } from '../../analysis/numbers.ts';
import { EXCLUSIVE_PAIRS, fiscalYears, quarterOf } from '../../analysis/periods.ts';
import { type ChunkSentence, chunkSentences } from '../../analysis/sentences.ts';
import { baselineWords, negatedWords, stem } from '../../analysis/tokens.ts';
import type { ModelRequest, SubjectInput } from '../types.ts';
import { cellRandom, EXTRACTIVE_FAMILY, OfflineSubject } from './common.ts';

/** Below this score the extractive baseline abstains (the evidence is weak). */
export const ABSTAIN_THRESHOLD = 0.55;
/**
 * ... or when the best sentence holds less than this share of the question's content words (weighted by
 * rarity): a question whose key terms no passage mentions ("net debt", "credit rating") is not answered.
 */
export const COVERAGE_FLOOR = 0.5;

/** Whether a sentence is evidence enough to answer with. */
export function answers(s: ScoredSentence): boolean {
  return s.score >= ABSTAIN_THRESHOLD && s.coverage >= COVERAGE_FLOOR && !s.otherPeriod;
}
/**
 * Scores span about 0-1.5, too narrow to act as logits: at temperature 0.7 a sentence 0.3 behind the
 * best would still be drawn almost half as often. Sampling uses score x this scale as the logit, so
 * that at 0.7 the baseline mostly gives its best answer and sometimes a close alternative or an
 * abstention, as a model does. Probability is proportional to exp(scale x score / temperature).
 */
export const SAMPLING_LOGIT_SCALE = 4;
/** How many of the best sentences compete when sampling at temperature > 0. */
export const SAMPLING_CANDIDATES = 4;

/** The opening of every extractive abstention, for checks that look for refusals. */
export const ABSTENTION_PREFIX = 'The provided context does not state';

export interface ScoredSentence extends ChunkSentence {
  score: number;
  /** the question's content words this sentence contains */
  covers: Set<string>;
  /** their rarity-weighted share of the question's content words, 0-1 */
  coverage: number;
  /**
   * the sentence is about another fiscal year, quarter or statement than the question names (FY23 for
   * FY24, the full year for Q2, interim for final): never an answer, however well its words match
   */
  otherPeriod: boolean;
}

export interface QuestionFeatures {
  words: Set<string>;
  negated: Set<string>;
  figures: Set<string>;
  years: Set<string>;
  quarter: number | null;
  /** exclusive period words the question asks for (standalone, final, ...) */
  picks: Set<string>;
  /** company slugs of the context whose name the question mentions */
  companies: Set<string>;
  /** the companies the question names, as lowercase words ("itc fixture infotech") */
  names: string[][];
  /** asks for a figure ("how much", "how many", "what was ... revenue") rather than a name */
  wantsFigure: boolean;
}

function slugWords(slug: string): string[] {
  return slug.split('-').filter((w) => w.length > 1);
}

export function questionFeatures(input: SubjectInput): QuestionFeatures {
  const { positive, negated } = negatedWords(input.question);
  const lower = positive.toLowerCase();
  const words = baselineWords(positive);
  const companies = new Set<string>();
  for (const c of input.chunks)
    if (slugWords(c.company).some((w) => new RegExp(`\\b${w}\\b`, 'i').test(positive)))
      companies.add(c.company);
  // the names of the companies asked about say nothing about which sentence answers; a sentence naming
  // one of them (a subsidiary, say) earns a bonus instead
  const names = namedCompanies(positive);
  for (const name of names) for (const w of name) words.delete(w);
  for (const slug of companies) for (const w of slugWords(slug)) words.delete(stem(w));
  const picks = new Set<string>();
  for (const pair of EXCLUSIVE_PAIRS) for (const w of pair) if (lower.includes(w)) picks.add(w);
  return {
    words,
    negated,
    figures: figures(positive.replace(/\bscope \d and \d\b/gi, '')),
    years: fiscalYears(positive),
    quarter: quarterOf(positive),
    picks,
    companies,
    names,
    wantsFigure: !/^\s*(?:who|which)\b/i.test(positive),
  };
}

/** The companies a question names ("... of ITC Limited") as lowercase words. */
function namedCompanies(text: string): string[][] {
  const re =
    /\b[A-Z][\w'’&-]*(?:\s+(?:and|&|[A-Z(][\w'’()&-]*))*\s+(?:Private\s+)?Limited\b(?:\s*\([^)]*\))?/g;
  return [...text.matchAll(re)].map((m) => [
    ...baselineWords(m[0].replace(/\b(?:Board|Chairperson|Company|Private|Limited)\b/g, ' ')),
  ]);
}

/** Inverse sentence frequency of each word over the candidate sentences (log(1 + N / (1 + df))). */
function rarity(sentences: readonly ChunkSentence[]): (word: string) => number {
  const df = new Map<string, number>();
  const bags = sentences.map((s) => baselineWords(s.text));
  for (const bag of bags) for (const w of bag) df.set(w, (df.get(w) ?? 0) + 1);
  const n = sentences.length;
  return (w) => Math.log(1 + n / (1 + (df.get(w) ?? 0)));
}

/**
 * Scores every sentence of the context against the question. The score is the rarity-weighted share of
 * the question's content words the sentence contains (0-1), plus bonuses and penalties for company,
 * figures and period words; a sentence about another period, statement or company falls below the
 * abstention threshold even when its words match.
 */
export function scoreSentences(input: SubjectInput): ScoredSentence[] {
  const q = questionFeatures(input);
  const sentences = input.chunks.flatMap((c, rank) => chunkSentences(c, rank));
  const weight = rarity(sentences);
  const totalWeight = [...q.words].reduce((sum, w) => sum + weight(w), 0);
  const companyOf = new Map(input.chunks.map((c) => [c.id, c.company]));
  const fyOf = new Map(input.chunks.map((c) => [c.id, c.fy]));

  return sentences.map((s) => {
    const words = baselineWords(s.text);
    const covers = new Set([...q.words].filter((w) => words.has(w)));
    const covered = [...covers].reduce((sum, w) => sum + weight(w), 0);
    const coverage = totalWeight > 0 ? covered / totalWeight : 0;
    let score = coverage;
    const lower = s.text.toLowerCase();
    let otherPeriod = false;

    // company: the chunk's report, and any company the sentence itself names
    const company = companyOf.get(s.chunkId) ?? '';
    if (q.companies.size > 0) score += q.companies.has(company) ? 0.1 : -0.5;
    if (q.names.some((name) => name.length > 0 && name.every((w) => words.has(w)))) score += 0.2;

    // figures
    const sentenceFigures = figures(s.text);
    if (q.wantsFigure) score += sentenceFigures.size > 0 ? 0.1 : -0.3;
    for (const f of q.figures) if (sentenceFigures.has(f)) score += 0.1;

    // fiscal year: the sentence's own (a stronger match), else its report's
    const years = fiscalYears(s.text);
    const explicit = years.size > 0;
    if (!explicit) {
      const fy = fyOf.get(s.chunkId);
      if (fy) years.add(fy);
    }
    if (q.years.size > 0) {
      const same = [...q.years].some((y) => years.has(y));
      score += same ? (explicit ? 0.15 : 0.05) : -0.4;
      if (!same) otherPeriod = true;
      // "Rs 64,062.04 crore in FY24, against Rs 46,148.70 crore in FY23": the first figure is the other year's
      if (same && years.size > 1 && !q.years.has([...years][0] ?? '')) score -= 0.15;
    }

    // quarter vs full year
    const quarter = quarterOf(s.text);
    if (q.quarter === null && quarter !== null) score -= 0.4;
    if (q.quarter !== null) {
      if (quarter === null) {
        score -= 0.3;
        // a full-year figure does not answer a question about a named quarter
        if (q.quarter !== 0) otherPeriod = true;
      } else if (q.quarter !== 0 && quarter !== 0 && quarter !== q.quarter) {
        score -= 0.6;
        otherPeriod = true;
      } else score += 0.15;
    }

    // standalone / consolidated, interim / final
    for (const [a, b] of EXCLUSIVE_PAIRS) {
      const hasA = lower.includes(a);
      const hasB = lower.includes(b);
      for (const [want, other, has, hasOther] of [
        [a, b, hasA, hasB],
        [b, a, hasB, hasA],
      ] as const) {
        if (!q.picks.has(want) || q.picks.has(other)) continue;
        if (has) score += 0.1;
        else if (hasOther) {
          score -= 0.5;
          otherPeriod = true;
        }
      }
    }

    // what the question rules out ("not consolidated", "not US dollars")
    for (const w of q.negated) if (words.has(w)) score -= 0.5;

    return { ...s, score, covers, coverage, otherPeriod };
  });
}

function bestFirst(a: ScoredSentence, b: ScoredSentence): number {
  return b.score - a.score || a.chunkRank - b.chunkRank || a.position - b.position;
}

/** The answer text: each sentence verbatim (whitespace normalised), followed by its citation. */
function cite(sentences: readonly ScoredSentence[]): string {
  return sentences.map((s) => `${s.text} [${s.chunkId}]`).join(' ');
}

/** The question's own spelling of stemmed content words ("debt", "tonnes"), in question order. */
function surfaceWords(question: string, stems: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const m of question.matchAll(/\p{L}[\p{L}\p{N}'’-]*/gu)) {
    const word = m[0].replace(/['’]s$/i, '');
    if ([...baselineWords(word)].some((w) => stems.has(w)) && !out.includes(word)) out.push(word);
  }
  return out;
}

function abstention(input: SubjectInput, best: ScoredSentence | undefined): string {
  if (!best) return `${ABSTENTION_PREFIX} this: no passages were retrieved.`;
  const q = questionFeatures(input);
  const missing = surfaceWords(input.question, new Set([...q.words].filter((w) => !best.covers.has(w))));
  const why =
    best.otherPeriod || missing.length === 0
      ? 'the closest passages are about a different company, period or statement than the question asks'
      : `no retrieved passage says it; the closest one does not mention ${missing
          .slice(0, 4)
          .map((w) => `"${w}"`)
          .join(', ')}`;
  return `${ABSTENTION_PREFIX} the answer to this question: ${why}. I will not guess.`;
}

/** A second sentence joins the first when it scores nearly as well and covers question words the first does not. */
function complement(first: ScoredSentence, ranked: readonly ScoredSentence[]): ScoredSentence | undefined {
  return ranked.find(
    (s) =>
      s !== first &&
      s.text !== first.text &&
      answers(s) &&
      s.score >= first.score - 0.25 &&
      [...s.covers].some((w) => !first.covers.has(w)),
  );
}

/** The extractive answer for a request; `random` is used only at temperature > 0. */
export function extractiveAnswer(input: SubjectInput, temperature: number, random: () => number): string {
  const ranked = scoreSentences(input).sort(bestFirst);
  const best = ranked[0];
  const eligible = ranked.filter(answers);
  if (temperature <= 0) {
    const first = eligible[0];
    if (!first) return abstention(input, best);
    const second = complement(first, ranked);
    return cite(second ? [first, second] : [first]);
  }
  // sampling: the top sentences that are evidence enough, and abstention (scored at the threshold), compete
  const candidates: (ScoredSentence | null)[] = [...eligible.slice(0, SAMPLING_CANDIDATES), null];
  const scoreOf = (c: ScoredSentence | null) => (c ? c.score : ABSTAIN_THRESHOLD);
  const top = Math.max(...candidates.map(scoreOf));
  const weights = candidates.map((c) => Math.exp((SAMPLING_LOGIT_SCALE * (scoreOf(c) - top)) / temperature));
  const total = weights.reduce((a, b) => a + b, 0);
  let u = random() * total;
  let pick: ScoredSentence | null = null;
  for (const [i, c] of candidates.entries()) {
    u -= weights[i] ?? 0;
    if (u <= 0) {
      pick = c;
      break;
    }
  }
  if (!pick) return abstention(input, best);
  const second = complement(pick, ranked);
  return cite(second ? [pick, second] : [pick]);
}

export class ExtractiveProvider extends OfflineSubject {
  constructor(opts: { family?: string } = {}) {
    // version v2: the shared sentence splitter and words; no rules that mirrored the fixture
    // generator's distractor templates; v3: cites only when the prompt asks
    super({ id: 'offline/extractive', version: 'v3', model: 'extractive' }, opts.family ?? EXTRACTIVE_FAMILY);
  }

  protected answer(request: ModelRequest, input: SubjectInput): string {
    const temperature = request.parameters.temperature ?? 0;
    const random = temperature > 0 ? cellRandom(request, this.id) : () => 0;
    return extractiveAnswer(input, temperature, random);
  }
}
