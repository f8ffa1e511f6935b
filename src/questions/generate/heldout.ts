/**
 * Verification measured from outside (issue 55's last "Done means"): FinanceBench's human-written
 * questions over real filings, turned into candidates as a held-out generator would write them, each
 * labelled good or not by rules written here and NOT by verification's own code (its normal form, its
 * figure reader), plus planted bad variants of every good one. Pure; the documents' text is passed in.
 *
 * Two forms of candidate per question (FinanceBench's `evidence` items are what people copied from the
 * filings, often a whole page, often with punctuation lost):
 * - `whole-evidence`: each evidence text whole is a gold quote; the answer is the human answer.
 * - `evidence-lines`: the quotes are lines of the evidence texts that the document prints verbatim (by
 *   this file's rule): per evidence item the lines printing a figure of the answer, else its longest
 *   such line; as a generator that copies faithfully from the page would quote.
 * Category: grounded-multihop when the quotes come from evidence on two pages or more, else direct.
 *
 * A candidate is `good` (the issue's definition) when every quote is printed in its document verbatim,
 * whitespace, hyphenation, ligatures and quote marks aside, and every figure of the answer is printed in
 * the quotes (a rounding of a printed figure counts; FinanceBench records no arithmetic, so a computed
 * ratio or change is `figure-not-printed`). Else `quote-not-verbatim` or `figure-not-printed`.
 */
import {
  type Candidate,
  type CandidateBody,
  candidateId,
  type GeneratorRef,
  type RejectionReason,
} from './candidate.ts';

/** The normal form of this file's verbatim rule (written apart from verify/normalise.ts on purpose). */
export function plainForm(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u201a\u201b\u2032`\u00b4]/g, "'")
    .replace(/[\u201c-\u201f\u2033\u00ab\u00bb]/g, '"')
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/[\u00ad\u200b-\u200d\u2060\ufeff]/g, '')
    .replace(/(\p{L})-\s*(?=\p{L})/gu, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A figure an answer states: its value (sign dropped), its decimals, and whether it is in billions. */
export interface AnswerFigure {
  raw: string;
  value: number;
  decimals: number;
  billions: boolean;
}

const MONTH = '(?:January|February|March|April|May|June|July|August|September|October|November|December)';
const DATE = new RegExp(`${MONTH}\\s+\\d{1,2},?\\s+\\d{4}|\\d{1,2}\\s+${MONTH},?\\s+\\d{4}`, 'gi');
const NUMBER =
  /(?<![\p{L}\d.,]|\p{L}-)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s*(%|percent|billion|bn|million|mn)?(?![\p{L}\d])/giu;

/**
 * The figures of an answer: numbers other than dates, bare years (1900-2100), list markers "(1)" and
 * digits inside words or names (FY2023, Q2, 777X, 10-K, 3M, COVID-19).
 */
export function answerFigures(answer: string): AnswerFigure[] {
  const text = answer.replace(DATE, ' ').replace(/\(\d\)/g, ' ');
  const out: AnswerFigure[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const after = text.slice((m.index ?? 0) + m[0].length);
    if (/^-\p{L}/u.test(after)) continue;
    const digits = `${(m[1] as string).replace(/,/g, '')}${m[2] ?? ''}`;
    const value = Number(digits);
    const scale = (m[3] ?? '').toLowerCase();
    if (scale === '' && !m[2] && value >= 1900 && value <= 2100) continue;
    out.push({
      raw: m[0].trim(),
      value,
      decimals: m[2] ? m[2].length - 1 : 0,
      billions: scale === 'billion' || scale === 'bn',
    });
  }
  return out;
}

/** Every number printed in a text, sign and grouping dropped. */
function printedNumbers(text: string): number[] {
  return [...text.matchAll(/\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?/g)].map((m) =>
    Number(m[0].replace(/,/g, '')),
  );
}

/** Whether the quotes print the figure, or a figure it rounds (a billions figure: of millions printed). */
export function figurePrinted(f: AnswerFigure, quotes: readonly string[]): boolean {
  const half = 0.5 * 10 ** -f.decimals + 1e-9;
  const scales = f.billions ? [1, 1e-3] : [1];
  return quotes.some((q) =>
    printedNumbers(q).some((p) => scales.some((k) => Math.abs(p * k - f.value) <= half)),
  );
}

/** One FinanceBench record, as far as this file reads it. */
export interface HeldOutQuestion {
  id: string;
  split: 'dev' | 'test';
  /** the document's `Chunk.source` (its PDF's file name) */
  document: string;
  question: string;
  answer: string;
  evidence: { page: number; text: string }[];
}

export type HeldOutForm = 'whole-evidence' | 'evidence-lines';
export type HeldOutLabel = 'good' | 'quote-not-verbatim' | 'figure-not-printed';

export interface HeldOutCase {
  question: HeldOutQuestion;
  form: HeldOutForm;
  candidate: Candidate;
  label: HeldOutLabel;
  /** the answer's figures no quote prints (for `figure-not-printed`) */
  unprinted: string[];
}

export const HELDOUT_GENERATOR: GeneratorRef = {
  id: 'heldout/financebench',
  family: 'people',
  kind: 'offline',
  prompt_hash: 'financebench-evidence-v1',
  seed: 'heldout',
};

/** A candidate with its identity: the body, the document, the chunks it was drawn from. */
export function heldOutCandidate(
  body: CandidateBody,
  document: string,
  chunkIds: readonly string[],
): Candidate {
  return {
    id: candidateId(body, chunkIds),
    body,
    generator: HELDOUT_GENERATOR,
    document,
    source_chunk_ids: [...chunkIds],
  };
}

/** The quotes of the `evidence-lines` form: per evidence item, verbatim lines printing an answer figure, else the longest. */
function evidenceLines(
  q: HeldOutQuestion,
  printed: (text: string) => boolean,
): { page: number; text: string }[] {
  const figures = answerFigures(q.answer);
  const out: { page: number; text: string }[] = [];
  for (const e of q.evidence) {
    const lines = e.text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.split(/\s+/).length >= 4 && printed(l));
    const withFigure = lines.filter((l) => figures.some((f) => figurePrinted(f, [l])));
    const chosen =
      withFigure.length > 0 ? withFigure : [...lines].sort((a, b) => b.length - a.length).slice(0, 1);
    for (const text of chosen) if (!out.some((o) => o.text === text)) out.push({ page: e.page, text });
  }
  return out;
}

/**
 * The question's candidates in both forms, labelled. `printed(text)`: whether the document prints the
 * text verbatim by `plainForm`; `chunkIds`: the chunks covering the evidence pages (the candidate's
 * source). `numericGold`: the answer read as a figure (as `rge questions import` reads it), if it is one.
 */
export function heldOutCases(
  q: HeldOutQuestion,
  printed: (text: string) => boolean,
  chunkIds: readonly string[],
  numericGold: CandidateBody['numeric_gold'],
): HeldOutCase[] {
  const forms: [HeldOutForm, { page: number; text: string }[]][] = [
    ['whole-evidence', q.evidence.filter((e, i) => q.evidence.findIndex((x) => x.text === e.text) === i)],
    ['evidence-lines', evidenceLines(q, printed)],
  ];
  const out: HeldOutCase[] = [];
  for (const [form, quotes] of forms) {
    if (quotes.length === 0) continue;
    const body: CandidateBody = {
      category: new Set(quotes.map((x) => x.page)).size > 1 ? 'grounded-multihop' : 'grounded-direct',
      text: q.question,
      gold_answer: q.answer,
      gold_quotes: quotes.map((x) => ({ document: q.document, text: x.text })),
      expected_behavior: 'answer',
      numeric_gold: numericGold,
    };
    const texts = quotes.map((x) => x.text);
    const unprinted = answerFigures(q.answer)
      .filter((f) => !figurePrinted(f, texts))
      .map((f) => f.raw);
    const label: HeldOutLabel = !texts.every(printed)
      ? 'quote-not-verbatim'
      : unprinted.length > 0
        ? 'figure-not-printed'
        : 'good';
    out.push({
      question: q,
      form,
      candidate: heldOutCandidate(body, q.document, chunkIds),
      label,
      unprinted,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Planted bad variants

export type PlantKind =
  | 'fabricated-quote'
  | 'paraphrased-quote'
  | 'quote-of-another-document'
  | 'figure-changed'
  | 'answer-in-question'
  | 'multihop-one-chunk';

export interface Planted {
  parent: HeldOutCase;
  kind: PlantKind;
  expected: RejectionReason;
  candidate: Candidate;
}

/** What a planted variant needs to know of the documents. */
export interface PlantContext {
  /** whether `document` prints `text` verbatim (by `plainForm`) */
  printed(document: string, text: string): boolean;
  /** the documents of the index, to attribute a quote to the wrong one */
  documents: readonly string[];
}

function withBody(parent: HeldOutCase, body: CandidateBody): Candidate {
  return heldOutCandidate(body, parent.candidate.document, parent.candidate.source_chunk_ids);
}

/** A sentence no filing prints, in the document's voice. */
function fabricated(q: HeldOutQuestion): string {
  return `In the fourth quarter the Company recorded a one-time gain of $417 million on the sale of its ${q.id.slice(-3)} leasing unit to a consortium of pension funds.`;
}

/** The quote reworded: two neighbouring words in its middle swapped and the word after them dropped. */
export function paraphrase(text: string): string {
  const words = text.split(/\s+/);
  const i = Math.max(0, Math.floor(words.length / 2) - 1);
  const [a, b] = [words[i] as string, words[i + 1] as string];
  return [...words.slice(0, i), b, a, ...words.slice(i + 3)].join(' ');
}

/** The first figure of the answer that the quotes print, and a value near it that they do not. */
function changedFigure(parent: HeldOutCase): { raw: string; to: string } | null {
  const quotes = parent.candidate.body.gold_quotes.map((x) => x.text);
  const f = answerFigures(parent.question.answer).find((x) => figurePrinted(x, quotes));
  if (!f) return null;
  for (const k of [1.37, 1.61, 0.53, 2.9]) {
    const value = Number((f.value * k + 7).toFixed(f.decimals));
    const probe: AnswerFigure = { ...f, value };
    if (!figurePrinted(probe, quotes)) {
      const number = /\d[\d,]*(?:\.\d+)?/.exec(f.raw)?.[0] as string;
      return { raw: f.raw, to: f.raw.replace(number, value.toFixed(f.decimals)) };
    }
  }
  return null;
}

/** Where to cut a quote in two inside one chunk: between words, never after a hyphen. */
function halves(text: string): [string, string] | null {
  const words = text.split(/\s+/);
  if (words.length < 8) return null;
  for (let i = Math.floor(words.length / 2); i < words.length - 3; i++)
    if (!(words[i - 1] as string).endsWith('-'))
      return [words.slice(0, i).join(' '), words.slice(i).join(' ')];
  return null;
}

/** The bad variants of a good candidate, each one truly bad by this file's rules, with the reason expected. */
export function plantBad(parent: HeldOutCase, ctx: PlantContext): Planted[] {
  const body = parent.candidate.body;
  const doc = parent.candidate.document;
  const [first, ...rest] = body.gold_quotes;
  if (!first) return [];
  const out: Planted[] = [];
  const add = (kind: PlantKind, expected: RejectionReason, b: CandidateBody) =>
    out.push({ parent, kind, expected, candidate: withBody(parent, b) });
  const fake = fabricated(parent.question);
  if (!ctx.printed(doc, fake))
    add('fabricated-quote', 'quote-not-found', {
      ...body,
      gold_quotes: [{ document: doc, text: fake }, ...rest],
    });
  const reworded = paraphrase(first.text);
  if (first.text.split(/\s+/).length >= 5 && !ctx.printed(doc, reworded))
    add('paraphrased-quote', 'quote-not-found', {
      ...body,
      gold_quotes: [{ document: doc, text: reworded }, ...rest],
    });
  const other = ctx.documents.find(
    (d) => d.split('_')[0] !== doc.split('_')[0] && body.gold_quotes.every((x) => !ctx.printed(d, x.text)),
  );
  if (other)
    add('quote-of-another-document', 'quote-not-found', {
      ...body,
      gold_quotes: body.gold_quotes.map((x) => ({ document: other, text: x.text })),
    });
  const changed = changedFigure(parent);
  const answer = changed
    ? body.gold_answer.replace(changed.raw, changed.to)
    : `${body.gold_answer} It was 23.7% of the total.`;
  if (
    answerFigures(answer).some(
      (f) =>
        !figurePrinted(
          f,
          body.gold_quotes.map((x) => x.text),
        ),
    )
  )
    add('figure-changed', 'figure-not-in-quotes', { ...body, gold_answer: answer, numeric_gold: [] });
  const figure = answerFigures(body.gold_answer)[0];
  const leak = figure
    ? `${body.text} Is it ${figure.raw}?`
    : `${body.text} Consider: "${first.text.split(/\s+/).slice(0, 12).join(' ')}".`;
  if (figure || first.text.split(/\s+/).length >= 12)
    add('answer-in-question', 'answer-leaked', { ...body, text: leak });
  // one quote printing every figure of the answer, cut in two: both halves sit in its chunk
  const figures = answerFigures(body.gold_answer);
  const whole = body.gold_quotes.find((x) => figures.every((f) => figurePrinted(f, [x.text])));
  const cut = whole ? halves(whole.text) : null;
  if (cut)
    add('multihop-one-chunk', 'multihop-one-chunk', {
      ...body,
      category: 'grounded-multihop',
      gold_quotes: cut.map((text) => ({ document: doc, text })),
    });
  return out;
}

// ---------------------------------------------------------------------------------------------
// The tally

export interface HeldOutOutcome {
  /** the candidate's rejection reason, or null when it was kept */
  reason: (c: Candidate) => RejectionReason | null;
}

export interface SplitTally {
  good: { kept: number; n: number };
  figureNotPrinted: { rejected: number; n: number };
  quoteNotVerbatim: { rejected: number; n: number };
  planted: { rejected: number; rightReason: number; n: number };
  /** why good candidates were rejected: reason -> count */
  goodRejected: Map<string, number>;
}

function emptyTally(): SplitTally {
  return {
    good: { kept: 0, n: 0 },
    figureNotPrinted: { rejected: 0, n: 0 },
    quoteNotVerbatim: { rejected: 0, n: 0 },
    planted: { rejected: 0, rightReason: 0, n: 0 },
    goodRejected: new Map(),
  };
}

/** Counts per split (and both): good kept, the not-good rejected, the planted rejected (and for the right reason). */
export function tallyHeldOut(
  cases: readonly HeldOutCase[],
  planted: readonly Planted[],
  outcome: HeldOutOutcome,
): Record<'dev' | 'test' | 'all', SplitTally> {
  const t = { dev: emptyTally(), test: emptyTally(), all: emptyTally() };
  for (const c of cases) {
    const reason = outcome.reason(c.candidate);
    for (const s of [t[c.question.split], t.all]) {
      if (c.label === 'good') {
        s.good.n++;
        if (reason === null) s.good.kept++;
        else s.goodRejected.set(reason, (s.goodRejected.get(reason) ?? 0) + 1);
      } else {
        const bucket = c.label === 'figure-not-printed' ? s.figureNotPrinted : s.quoteNotVerbatim;
        bucket.n++;
        if (reason !== null) bucket.rejected++;
      }
    }
  }
  for (const p of planted) {
    const reason = outcome.reason(p.candidate);
    for (const s of [t[p.parent.question.split], t.all]) {
      s.planted.n++;
      if (reason !== null) s.planted.rejected++;
      if (reason === p.expected) s.planted.rightReason++;
    }
  }
  return t;
}

const pct = (k: number, n: number) => (n === 0 ? 'n/a' : `${((100 * k) / n).toFixed(1)}%`);

/** The tally as a table, a line per split. */
export function formatHeldOut(t: Record<'dev' | 'test' | 'all', SplitTally>): string {
  const lines = [
    'split | good kept | figure-not-printed rejected | quote-not-verbatim rejected | planted rejected (right reason)',
  ];
  for (const split of ['dev', 'test', 'all'] as const) {
    const s = t[split];
    const why = [...s.goodRejected].map(([r, n]) => `${r} ${n}`).join(', ');
    lines.push(
      `${split} | ${s.good.kept}/${s.good.n} (${pct(s.good.kept, s.good.n)}) | ` +
        `${s.figureNotPrinted.rejected}/${s.figureNotPrinted.n} | ${s.quoteNotVerbatim.rejected}/${s.quoteNotVerbatim.n} | ` +
        `${s.planted.rejected}/${s.planted.n} (${s.planted.rightReason})${why ? ` | good rejected: ${why}` : ''}`,
    );
  }
  return lines.join('\n');
}
