/**
 * Gold evidence is resolved, never typed: given an evidence text (a snippet a person copied from a
 * filing), `locateEvidence` finds the page of the document that holds it. Pure; no I/O.
 *
 * Two steps. First verbatim containment after normalising case, whitespace and punctuation (every run
 * of characters other than letters and digits becomes one space), so "Net sales\n$\n34,229 $" meets
 * "Net sales $ 34,229". Failing that, overlap: the share of the evidence's word shingles (3-grams of
 * `contentWords`, numbers normalised; shorter evidence uses what it has) that a page holds, blended
 * with the share of its distinct content words, because a table reconstruction can put the cells of a
 * row in another order than the copied text and so break shingles that the words survive. The best
 * page wins, ties to the lower page; below `MIN_SCORE` no page is close enough and the page is null.
 *
 * `pagesPrinting` is the strict question (a golden set's gold quotes, `golden-documents.ts`): which
 * pages print the quote, by the same normalisation and tolerant of words hyphenated across lines.
 */
import { createHash } from 'node:crypto';
import { contentWords } from '../analysis/tokens.ts';
import type { FinanceBenchQuestion } from './financebench.ts';

/** A page's text; `page` is 1-based, as rge's extractor (corpus/pdf.ts) numbers them. */
export interface PageText {
  page: number;
  text: string;
}

export interface EvidenceLocation {
  /** the best page, or null when no page is close enough */
  page: number | null;
  /** 0..1, how much of the evidence the page holds */
  score: number;
  how: 'verbatim' | 'overlap' | 'none';
  /** the next best pages with their scores, best first (at most 3), for "nearest candidates" messages */
  candidates: { page: number; score: number }[];
}

/** words per shingle */
const SHINGLE = 3;
/** weight of the shingle share in the overlap score; the rest is the share of distinct content words */
const SHINGLE_WEIGHT = 0.5;
/** below this overlap score no page is close enough */
export const MIN_SCORE = 0.3;
const CANDIDATES = 3;

/** Lowercased, every run of characters other than letters and digits one space, padded by spaces. */
function normalise(text: string): string {
  return ` ${text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()} `;
}

function shingles(words: readonly string[], n: number): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i + n <= words.length; i++) out.add(words.slice(i, i + n).join(' '));
  return out;
}

interface PageFeatures {
  normalised: string;
  words: Set<string>;
  /** shingles by length, built on demand */
  shingles: Map<number, Set<string>>;
  contentWords: string[];
}

// Memoised per page object: a document's pages are searched once per evidence text, and re-reading a
// 500-page filing for each would dominate. The cache holds nothing a caller can observe.
const features = new WeakMap<PageText, PageFeatures>();

function pageFeatures(page: PageText): PageFeatures {
  let f = features.get(page);
  if (!f) {
    const words = contentWords(page.text);
    f = { normalised: normalise(page.text), words: new Set(words), shingles: new Map(), contentWords: words };
    features.set(page, f);
  }
  return f;
}

function pageShingles(f: PageFeatures, n: number): Set<string> {
  let s = f.shingles.get(n);
  if (!s) {
    s = shingles(f.contentWords, n);
    f.shingles.set(n, s);
  }
  return s;
}

function share(wanted: ReadonlySet<string>, held: ReadonlySet<string>): number {
  if (wanted.size === 0) return 0;
  let found = 0;
  for (const w of wanted) if (held.has(w)) found += 1;
  return found / wanted.size;
}

const byScoreThenPage = (a: { page: number; score: number }, b: { page: number; score: number }) =>
  b.score - a.score || a.page - b.page;

/** The page that holds the evidence text, how it was found, and the nearest other pages. */
export function locateEvidence(evidence: string, pages: readonly PageText[]): EvidenceLocation {
  const words = contentWords(evidence);
  const n = Math.min(SHINGLE, words.length);
  const wanted = n > 0 ? shingles(words, n) : new Set<string>();
  const distinct = new Set(words);
  const needle = normalise(evidence);
  const verbatim = needle.trim() !== '';

  const scored: { page: number; score: number; verbatim: boolean }[] = [];
  for (const p of pages) {
    const f = pageFeatures(p);
    const isVerbatim = verbatim && f.normalised.includes(needle);
    const score = isVerbatim
      ? 1
      : n === 0
        ? 0
        : SHINGLE_WEIGHT * share(wanted, pageShingles(f, n)) +
          (1 - SHINGLE_WEIGHT) * share(distinct, f.words);
    if (score > 0) scored.push({ page: p.page, score, verbatim: isVerbatim });
  }
  // A verbatim page outranks any overlap, even one that rounds to 1.
  scored.sort((a, b) => Number(b.verbatim) - Number(a.verbatim) || byScoreThenPage(a, b));
  const best = scored[0];
  const strip = ({ page, score }: { page: number; score: number }) => ({ page, score });
  if (!best || (!best.verbatim && best.score < MIN_SCORE)) {
    return {
      page: null,
      score: best?.score ?? 0,
      how: 'none',
      candidates: scored.slice(0, CANDIDATES).map(strip),
    };
  }
  if (!best.verbatim && verbatim) {
    // Straddling: the evidence runs from the end of one page onto the next. It is found where it begins.
    const at = pages.findIndex((p) => p.page === best.page);
    for (const [first, second] of [
      [pages[at - 1], pages[at]],
      [pages[at], pages[at + 1]],
    ]) {
      if (!first || !second || !normalise(`${first.text}\n${second.text}`).includes(needle)) continue;
      const rest = scored.filter((s) => s.page !== first.page).map(strip);
      return { page: first.page, score: 1, how: 'verbatim', candidates: rest.slice(0, CANDIDATES) };
    }
  }
  const candidates = scored.slice(1, 1 + CANDIDATES).map(strip);
  return { page: best.page, score: best.score, how: best.verbatim ? 'verbatim' : 'overlap', candidates };
}

/**
 * A word hyphenated across a line break joined up: "opera-\ntions" and "opera- tions" (a hyphen between
 * letters with whitespace after it) become "operations"; soft hyphens are dropped.
 */
function dehyphenate(text: string): string {
  return text.replace(/\u00ad/g, '').replace(/(\p{L})[-\u2010\u2011]\s+(?=\p{L})/gu, '$1');
}

/** A page's text normalised as `normalise` does, after `dehyphenate` (memoised with its features). */
const joinedText = new WeakMap<PageText, string>();
function joinedOf(page: PageText): string {
  let joined = joinedText.get(page);
  if (joined === undefined) {
    joined = normalise(dehyphenate(page.text));
    joinedText.set(page, joined);
  }
  return joined;
}

/**
 * The pages that print `quote`: verbatim after `locateEvidence`'s normalisation (case, whitespace and
 * punctuation aside), or once a word hyphenated across a line break is joined up, in the page or in
 * the quote ("opera-\ntions" meets "operations", and "opera- tions" copied from a PDF meets either).
 * A quote that runs from the end of one page onto the next is printed on the page where it begins.
 * Empty when no page prints it (`locateEvidence` then gives the nearest pages).
 */
export function pagesPrinting(quote: string, pages: readonly PageText[]): number[] {
  const plain = normalise(quote);
  const joined = normalise(dehyphenate(quote));
  if (plain.trim() === '') return [];
  const holds = (plainText: string, joinedPage: string) =>
    plainText.includes(plain) || joinedPage.includes(plain) || joinedPage.includes(joined);
  const found = pages.filter((p) => holds(pageFeatures(p).normalised, joinedOf(p))).map((p) => p.page);
  if (found.length > 0) return found;
  // straddling: the end of a page and the start of the next, read as one text
  return pages.flatMap((p, i) => {
    const next = pages[i + 1];
    if (!next) return [];
    const plainPair = `${pageFeatures(p).normalised.trimEnd()}${pageFeatures(next).normalised}`;
    return holds(plainPair, `${joinedOf(p).trimEnd()}${joinedOf(next)}`) ? [p.page] : [];
  });
}

/**
 * Whether a location agrees with a labelled page: the labelled page is the best, or a candidate that
 * holds at least as much as the best (a tie the lower-page rule broke the other way).
 */
export function agreesWithPage(location: EvidenceLocation, page: number): boolean {
  if (location.page === page) return true;
  return (
    location.page !== null && location.candidates.some((c) => c.page === page && c.score >= location.score)
  );
}

/** One FinanceBench evidence snippet with its labelled page (1-based, as rge numbers pages). */
export interface EvidenceItem {
  id: string;
  split: 'dev' | 'test';
  docName: string;
  page: number;
  text: string;
}

/**
 * A fixed split of FinanceBench questions: dev when the first byte of sha1(financebench_id) is even,
 * test when it is odd. Any tuning of `locateEvidence` is to look at dev only.
 */
export function financeBenchSplit(id: string): 'dev' | 'test' {
  return ((createHash('sha1').update(id).digest()[0] as number) & 1) === 0 ? 'dev' : 'test';
}

/** Every evidence snippet of the questions, its page made 1-based. */
export function financeBenchEvidence(questions: readonly FinanceBenchQuestion[]): EvidenceItem[] {
  return questions.flatMap((q) =>
    q.evidence.map((e) => ({
      id: q.financebench_id,
      split: financeBenchSplit(q.financebench_id),
      docName: e.doc_name,
      page: e.evidence_page_num + 1,
      text: e.evidence_text,
    })),
  );
}

export interface EvidenceMiss {
  item: EvidenceItem;
  location: EvidenceLocation;
}

export interface EvidenceAgreement {
  /** agreed / items, overall and per split */
  overall: { agreed: number; n: number };
  dev: { agreed: number; n: number };
  test: { agreed: number; n: number };
  /** the baseline: the labelled page holds the normalised evidence verbatim */
  plain: { agreed: number; n: number };
  misses: EvidenceMiss[];
}

/** Locates every item in its document's pages and counts agreement with the labelled page. */
export function evidenceAgreement(
  items: readonly EvidenceItem[],
  pagesOf: (docName: string) => readonly PageText[],
): EvidenceAgreement {
  const out: EvidenceAgreement = {
    overall: { agreed: 0, n: 0 },
    dev: { agreed: 0, n: 0 },
    test: { agreed: 0, n: 0 },
    plain: { agreed: 0, n: 0 },
    misses: [],
  };
  for (const item of items) {
    const pages = pagesOf(item.docName);
    const location = locateEvidence(item.text, pages);
    const agreed = agreesWithPage(location, item.page) ? 1 : 0;
    const labelled = pages.find((p) => p.page === item.page);
    const plain = labelled && pageFeatures(labelled).normalised.includes(normalise(item.text)) ? 1 : 0;
    for (const tally of [out.overall, out[item.split]]) {
      tally.agreed += agreed;
      tally.n += 1;
    }
    out.plain.agreed += plain;
    out.plain.n += 1;
    if (!agreed) out.misses.push({ item, location });
  }
  return out;
}

const percent = ({ agreed, n }: { agreed: number; n: number }) =>
  `${agreed}/${n} (${n === 0 ? '-' : (100 * (agreed / n)).toFixed(1)}%)`;

/** "evidence page agreement: N/M (P%) dev ..., test ...; plain search (verbatim on rge pages): K/M" */
export function formatAgreement(a: EvidenceAgreement): string {
  return (
    `evidence page agreement: ${percent(a.overall)} dev ${percent(a.dev)}, test ${percent(a.test)}; ` +
    `plain search (verbatim on rge pages): ${a.plain.agreed}/${a.plain.n}`
  );
}

/** One line per miss: id, labelled page, rge's page, score, the nearest candidates. */
export function formatMiss({ item, location }: EvidenceMiss): string {
  const near = location.candidates.map((c) => `p${c.page} ${c.score.toFixed(2)}`).join(', ');
  return (
    `${item.id} (${item.split}) ${item.docName}: labelled page ${item.page}, rge page ${location.page ?? '-'} ` +
    `(${location.how}, score ${location.score.toFixed(2)}); nearest: ${near || 'none'}`
  );
}
