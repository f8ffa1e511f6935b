/**
 * rag-app's offline model: no language model, an extractive stand-in that follows the prompt's
 * settings and rules (prompt.ts). It reads the question (the terms it asks about, the fiscal years it
 * names, what it rules out with "not ..."), scores every sentence of the retrieved passages by its
 * SUPPORT for the question, and answers with the best-supported sentence (and a second one that adds
 * what the first lacks), in the passages' own words.
 *
 * Support, about 0-1: the share of the question's terms, each weighted by its rarity in the corpus
 * (the retriever's idf), that the sentence holds; a term only in the passage's document title or
 * section heading ("ITC Limited | Annual Report 2023-24") counts TITLE_CREDIT. It is then cut for each
 * sign that the sentence states another figure than the one asked (`cuts`: no figure, another year or
 * company, an unasked qualifier such as "monthly" or "interim", what the question rules out with
 * "not ..."), and a sentence with fewer words beside the question's gains up to FOCUS_BONUS.
 *
 * Grounded ("Answer only from the context"), it declines below `abstain_below`; otherwise it answers
 * from its best match however weak. At temperature 0 it takes the best sentence; above 0 it draws among
 * the top SAMPLING_CANDIDATES with weights exp(-(best - support) / (temperature / LOGIT_SCALE)), from a
 * seedrandom stream seeded with the prompt's seed and the question's.
 */
import seedrandom from 'seedrandom';
import type { AnswerPrompt } from './prompt.ts';
import type { Retrieved } from './retrieve.ts';
import {
  figuresOf,
  fiscalYearsOf,
  isTableRow,
  organisationsOf,
  sentencesOf,
  termSet,
  terms,
} from './text.ts';

/** What a term counts when only the passage's title or heading holds it. */
export const TITLE_CREDIT = 0.75;
/** How many of the best sentences compete when sampling. */
export const SAMPLING_CANDIDATES = 3;
/** Support gaps are small (0.01-0.2): logits are gap x this scale / temperature. */
export const LOGIT_SCALE = 15;
/** At most this is added for a sentence made only of the question's terms (a tie-break among equals). */
export const FOCUS_BONUS = 0.02;
/** A second sentence joins when its support is within this of the first's. */
export const SECOND_SENTENCE_GAP = 0.15;

/**
 * Words that qualify a figure (as stems): a sentence with one the question does not ask for states
 * another figure than the one asked (the monthly average, the quarter, the interim dividend, ...).
 */
const QUALIFIERS = new Set(terms('average monthly quarter interim final standalone consolidated'));

export interface QuestionReading {
  /** the question without what it rules out: what the retriever searches for */
  query: string;
  /** its distinct terms */
  terms: Set<string>;
  /** the terms of what it rules out ("not US dollars": us, dollar) */
  negated: Set<string>;
  /** the fiscal years it names */
  years: Set<string>;
  /** it asks for an amount or a count rather than a name or a place */
  wantsFigure: boolean;
}

const RULED_OUT = /\(?\bnot\s+([^),.;?]+)\)?/gi;

export function readQuestion(text: string): QuestionReading {
  const negated = new Set([...text.matchAll(RULED_OUT)].flatMap((m) => terms(m[1] ?? '')));
  const query = text.replace(RULED_OUT, ' ').replace(/\s+/g, ' ').trim();
  return {
    query,
    terms: termSet(query),
    negated,
    years: new Set(fiscalYearsOf(query)),
    wantsFigure: !/^\s*(?:who|where)\b/i.test(text),
  };
}

export interface Candidate {
  text: string;
  /** the passage it comes from, and that passage's retrieval rank (0 = best) */
  from: Retrieved;
  rank: number;
  support: number;
  /** the question's terms the sentence itself holds */
  covers: Set<string>;
}

/** The sentences of the retrieved passages that can be quoted: prose, not table rows or headings. */
function sentences(retrieved: readonly Retrieved[]): Omit<Candidate, 'support' | 'covers'>[] {
  return retrieved.flatMap((from, rank) =>
    from.passage.paragraphs
      .filter((p) => !isTableRow(p))
      .flatMap((p) => sentencesOf(p))
      .filter((s) => /[.!?]$/.test(s))
      .map((text) => ({ text, from, rank })),
  );
}

/**
 * What a sentence's support is multiplied by for each sign that it states another figure than the one
 * asked: no figure at all (x0.6), only other fiscal years (x0.5) or another year first (x0.8: "FY24 was
 * X, against Y in FY23" for FY23), a qualifier the question does not ask for (x0.8), what the question
 * rules out (x0.5), another company by name (x0.5: a peer, a subsidiary).
 */
function cuts(text: string, own: ReadonlySet<string>, q: QuestionReading): number {
  let factor = 1;
  if (q.wantsFigure && figuresOf(text).length === 0) factor *= 0.6;
  const years = fiscalYearsOf(text);
  if (q.years.size > 0 && years.length > 0) {
    if (!years.some((y) => q.years.has(y))) factor *= 0.5;
    else if (!q.years.has(years[0] as string)) factor *= 0.8;
  }
  if ([...QUALIFIERS].some((t) => own.has(t) && !q.terms.has(t))) factor *= 0.8;
  if ([...q.negated].some((t) => own.has(t))) factor *= 0.5;
  if (organisationsOf(text).some((org) => [...org].some((t) => !q.terms.has(t)))) factor *= 0.5;
  return factor;
}

/** A sentence's support for the question (see the file's comment). */
function supportOf(
  s: Omit<Candidate, 'support' | 'covers'>,
  q: QuestionReading,
  idf: (term: string) => number,
): Candidate {
  const own = termSet(s.text);
  const around = termSet(`${s.from.passage.title}\n${s.from.passage.heading}`);
  let total = 0;
  let held = 0;
  const covers = new Set<string>();
  for (const t of q.terms) {
    const w = idf(t);
    total += w;
    if (own.has(t)) {
      held += w;
      covers.add(t);
    } else if (around.has(t)) held += TITLE_CREDIT * w;
  }
  const support = total > 0 ? (held / total) * cuts(s.text, own, q) : 0;
  // among equals, the sentence with fewer words beside the question's is the more to the point
  const focus = own.size > 0 ? covers.size / own.size : 0;
  return { ...s, support: support + FOCUS_BONUS * focus, covers };
}

/** Every quotable sentence of the passages, best-supported first (ties: retrieval rank, then order). */
export function rankSentences(
  retrieved: readonly Retrieved[],
  q: QuestionReading,
  idf: (term: string) => number,
): Candidate[] {
  const scored = sentences(retrieved).map((s) => supportOf(s, q, idf));
  return scored.sort((a, b) => b.support - a.support || a.rank - b.rank);
}

/** The first sentence: the best, or at temperature > 0 one drawn among the best few. */
function draw(pool: readonly Candidate[], temperature: number, random: () => number): Candidate | undefined {
  const best = pool[0];
  if (!best || temperature <= 0) return best;
  const top = pool.slice(0, SAMPLING_CANDIDATES);
  const weights = top.map((c) => Math.exp(-((best.support - c.support) * LOGIT_SCALE) / temperature));
  let u = random() * weights.reduce((a, b) => a + b, 0);
  for (const [i, c] of top.entries()) {
    u -= weights[i] ?? 0;
    if (u <= 0) return c;
  }
  return best;
}

export interface ModelAnswer {
  text: string;
  /** it declined */
  declined: boolean;
  /** the best sentence's support (0 when nothing was retrieved) */
  support: number;
}

/** The answer the offline model gives to the question from the retrieved passages, following the prompt. */
export function offlineAnswer(
  question: { text: string; seed: number },
  retrieved: readonly Retrieved[],
  prompt: AnswerPrompt,
  idf: (term: string) => number,
): ModelAnswer {
  const { settings } = prompt;
  const ranked = rankSentences(retrieved, readQuestion(question.text), idf);
  const support = ranked[0]?.support ?? 0;
  const pool = prompt.grounded ? ranked.filter((c) => c.support >= settings.abstain_below) : ranked;
  const random = seedrandom(`${settings.seed}:${question.seed}`);
  const first = draw(pool, settings.temperature, random);
  if (!first) return { text: prompt.refusal, declined: true, support };
  const chosen = [first];
  const second = pool.find(
    (c) =>
      c !== first &&
      c.text !== first.text &&
      c.support >= first.support - SECOND_SENTENCE_GAP &&
      [...c.covers].some((t) => !first.covers.has(t)),
  );
  if (second && settings.max_sentences >= 2) chosen.push(second);
  const text = chosen.map((c) => (prompt.cite ? `${c.text} [${c.from.passage.id}]` : c.text)).join(' ');
  return { text, declined: false, support };
}
