import { RETRIEVAL_STOP_WORDS } from '../analysis/tokens.ts';
import type { EmbedderOptions, LexicalEmbedder, TermCounts } from './embedder.ts';
import { expandQuery } from './query.ts';

/**
 * Lexical retrieval with Okapi BM25. Tokens are lowercase words and numbers; a number keeps its
 * decimal point and percent sign ("12.5%"), because in annual reports the figure is usually the most
 * specific thing a question shares with its passage. Tokenizer v2 writes the same thing one way:
 * - grouped numbers lose their separators, so Indian and Western grouping agree ("2,13,527" and
 *   "213,527" are both "213527");
 * - a number with a scale word ("$1,234 million", "1.2 billion", "1,23,456 crore", "1.23 lakh crore")
 *   also gives its value to two significant figures ("1.2e9", "1.2e12"), so two writings of one
 *   amount share a token;
 * - fiscal years: "FY2022", "FY22", "FY 2022" and "fiscal 2022" all give "fiscal" and "2022"
 *   ("FY2023Q1" also "q1"), and a year range "2023-24" also gives its second year, "2024".
 * Questions are expanded with the line items of the measures they name (query.ts, QUERY_VERSION).
 */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
export const BM25_TOKENIZER_VERSION = 2;
/** Bump when query expansion changes: it changes what a question retrieves. */
export const BM25_QUERY_VERSION = 2;

// a number with optional grouping/decimal parts and an optional percent sign, or a word that starts with a letter
const TOKEN = /\p{N}+(?:[.,]\p{N}+)*%?|\p{L}[\p{L}\p{N}]*/gu;

/** Scale words and their multipliers; "lakh crore" multiplies both. */
const SCALES: ReadonlyMap<string, number> = new Map([
  ['thousand', 1e3],
  ['million', 1e6],
  ['millions', 1e6],
  ['mn', 1e6],
  ['billion', 1e9],
  ['billions', 1e9],
  ['bn', 1e9],
  ['trillion', 1e12],
  ['lakh', 1e5],
  ['lakhs', 1e5],
  ['crore', 1e7],
  ['crores', 1e7],
  ['cr', 1e7],
]);

// a number grouped by commas: Western (1,234,567) or Indian (12,34,567) grouping
const GROUPED = /^\p{N}{1,3}(?:,\p{N}{2,3})+(?:\.\p{N}+)?%?$/u;
// FY2022, FY22, FY2023Q1 (after lowercasing)
const FISCAL = /^fy(\p{N}{2}|\p{N}{4})(q[1-4]|h[12])?$/u;
// Q4FY24
const QUARTER_FISCAL = /^(q[1-4]|h[12])fy(\p{N}{2}|\p{N}{4})$/u;
// 2023-24, 2023–24, 2023/24: a fiscal year written as a range of two consecutive years
const YEAR_RANGE = /\b((?:19|20)\p{N}{2})\s?[-–/]\s?(\p{N}{2})\b/gu;

function fullYear(digits: string): string {
  if (digits.length === 4) return digits;
  return `${Number(digits) >= 80 ? '19' : '20'}${digits}`;
}

/** A value to two significant figures, written without "+": 1.2e9. */
export function magnitudeToken(value: number): string {
  return value.toExponential(1).replace('e+', 'e').replace('.0e', 'e');
}

export function tokenize(text: string): string[] {
  const out: string[] = [];
  let amount: number | null = null;
  let scale = 1;
  const flush = () => {
    if (amount !== null && scale > 1) out.push(magnitudeToken(amount * scale));
    amount = null;
    scale = 1;
  };
  const lowered = text.toLowerCase().replace(YEAR_RANGE, (whole, first: string, second: string) => {
    const next = String(Number(first) + 1);
    return next.slice(2) === second ? `${first} ${next}` : whole;
  });
  for (const m of lowered.matchAll(TOKEN)) {
    let t = m[0];
    const multiplier = SCALES.get(t);
    if (multiplier !== undefined && amount !== null) {
      scale *= multiplier;
      out.push(t);
      continue;
    }
    flush();
    if (/^\p{N}/u.test(t)) {
      if (GROUPED.test(t)) t = t.replace(/,/g, '');
      if (!t.endsWith('%') && !t.includes(',')) amount = Number(t);
      out.push(t);
      continue;
    }
    const fy = FISCAL.exec(t) ?? QUARTER_FISCAL.exec(t);
    if (fy) {
      const [year, part] = FISCAL.test(t) ? [fy[1], fy[2]] : [fy[2], fy[1]];
      out.push('fiscal', fullYear(year as string));
      if (part) out.push(part);
      continue;
    }
    if (t === 'fy') t = 'fiscal';
    if (!RETRIEVAL_STOP_WORDS.has(t)) out.push(t);
  }
  flush();
  return out;
}

export function termCounts(text: string): TermCounts {
  const tokens = tokenize(text);
  const terms = new Map<string, number>();
  for (const t of tokens) terms.set(t, (terms.get(t) ?? 0) + 1);
  return { terms, length: tokens.length };
}

export function bm25EmbedderId(k1: number = BM25_K1, b: number = BM25_B): string {
  return `bm25:tokenizer-v${BM25_TOKENIZER_VERSION}:query-v${BM25_QUERY_VERSION}:k1=${k1}:b=${b}`;
}

export function createBm25Embedder(opts: EmbedderOptions = {}): LexicalEmbedder {
  const batchSize = opts.batchSize ?? 256;
  return {
    kind: 'lexical',
    name: 'bm25',
    id: bm25EmbedderId(),
    batchSize,
    k1: BM25_K1,
    b: BM25_B,
    async embedPassages(texts, onBatch) {
      const out: TermCounts[] = [];
      for (const text of texts) {
        out.push(termCounts(text));
        if (out.length % batchSize === 0 || out.length === texts.length) onBatch?.(out.length);
      }
      return out;
    },
    async embedQuery(text) {
      return termCounts(expandQuery(text));
    },
  };
}

/**
 * The statistics BM25 scores with: per document its length, and per term its postings (document
 * number, term frequency). Documents are numbered in chunk-id order, terms kept in code-unit order.
 * In memory the postings are a Map (a term such as "constructor" must never hit Object.prototype); on
 * disk they are an array of [term, postings] pairs, because object keys such as "2023" would be
 * reordered by JSON.parse.
 */
export interface Bm25Stats {
  k1: number;
  b: number;
  /** chunk ids, sorted */
  ids: string[];
  /** token count of each document, parallel to `ids` */
  lengths: number[];
  /** term -> [doc, tf, doc, tf, ...] with doc ascending */
  postings: Map<string, number[]>;
}

export interface Bm25File {
  format: 'rge-bm25';
  formatVersion: 1;
  k1: number;
  b: number;
  ids: string[];
  lengths: number[];
  terms: [string, number[]][];
}

export function buildBm25Stats(
  ids: readonly string[],
  counts: readonly TermCounts[],
  k1: number,
  b: number,
): Bm25Stats {
  const builder = new Bm25Builder(ids, k1, b);
  for (const src of builder.order) builder.add(counts[src] as TermCounts);
  return builder.finish();
}

/**
 * `buildBm25Stats` one document at a time, in `order` (chunk-id order): each document's term counts
 * go into the postings as they come and are then dropped, so building the index of a corpus never
 * holds every document's counts at once (6,566 chunks: about 330 MB of heap as an array of Maps).
 * The same statistics, and so the same checksum, as `buildBm25Stats`.
 */
export class Bm25Builder {
  /** the documents' positions in `ids`, in the order `add` takes them */
  readonly order: readonly number[];
  private readonly postings = new Map<string, number[]>();
  private readonly lengths: number[] = [];

  constructor(
    private readonly ids: readonly string[],
    private readonly k1: number,
    private readonly b: number,
  ) {
    this.order = ids.map((_, i) => i).sort((x, y) => compareIds(ids[x] as string, ids[y] as string));
  }

  /** The counts of the next document of `order`. */
  add(c: TermCounts): void {
    const doc = this.lengths.length;
    if (doc >= this.ids.length) throw new Error('Bm25Builder: more documents than ids');
    this.lengths.push(c.length);
    for (const [term, tf] of c.terms) {
      let list = this.postings.get(term);
      if (!list) {
        list = [];
        this.postings.set(term, list);
      }
      list.push(doc, tf);
    }
  }

  finish(): Bm25Stats {
    if (this.lengths.length !== this.ids.length)
      throw new Error(`Bm25Builder: ${this.lengths.length} of ${this.ids.length} documents added`);
    const sorted = new Map([...this.postings.entries()].sort((x, y) => compareIds(x[0], y[0])));
    return {
      k1: this.k1,
      b: this.b,
      ids: this.order.map((i) => this.ids[i] as string),
      lengths: this.lengths,
      postings: sorted,
    };
  }
}

export function bm25ToFile(stats: Bm25Stats): Bm25File {
  const terms = [...stats.postings.entries()].sort((x, y) => compareIds(x[0], y[0]));
  return {
    format: 'rge-bm25',
    formatVersion: 1,
    k1: stats.k1,
    b: stats.b,
    ids: stats.ids,
    lengths: stats.lengths,
    terms,
  };
}

export function bm25FromFile(file: Bm25File): Bm25Stats {
  return { k1: file.k1, b: file.b, ids: file.ids, lengths: file.lengths, postings: new Map(file.terms) };
}

/** Code-unit order, independent of locale: the order used everywhere for ids and terms. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The mean document length, and the collection size, BM25 normalises by. */
function collection(stats: Bm25Stats): { n: number; avgdl: number } {
  const n = stats.ids.length;
  let total = 0;
  for (const l of stats.lengths) total += l;
  return { n, avgdl: n > 0 ? total / n : 0 };
}

/** The non-negative Lucene idf of a term found in `df` of `n` documents. */
export function bm25Idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** One term's contribution to a document's score: idf times the saturated, length-normalised tf. */
function termScore(stats: Bm25Stats, idf: number, tf: number, dl: number, avgdl: number): number {
  const norm = avgdl > 0 ? 1 - stats.b + (stats.b * dl) / avgdl : 1;
  return (idf * tf * (stats.k1 + 1)) / (tf + stats.k1 * norm);
}

/**
 * Scores every document that shares at least one query term. `allowed` (by document number) applies
 * the company / fiscal-year filter before ranking; idf is the non-negative Lucene form
 * ln(1 + (N - df + 0.5) / (df + 0.5)) over the whole index.
 */
export function bm25Scores(
  stats: Bm25Stats,
  query: TermCounts,
  allowed?: (doc: number) => boolean,
): Map<number, number> {
  const { n, avgdl } = collection(stats);
  const scores = new Map<number, number>();
  for (const term of query.terms.keys()) {
    const list = stats.postings.get(term);
    if (!list) continue;
    const idf = bm25Idf(n, list.length / 2);
    for (let i = 0; i < list.length; i += 2) {
      const doc = list[i] as number;
      if (allowed && !allowed(doc)) continue;
      const s = termScore(stats, idf, list[i + 1] as number, stats.lengths[doc] as number, avgdl);
      scores.set(doc, (scores.get(doc) ?? 0) + s);
    }
  }
  return scores;
}

/** A query term's part in one document's BM25 score. */
export interface TermContribution {
  term: string;
  /** occurrences in the document (its passage: header and text) */
  tf: number;
  idf: number;
  score: number;
}

/** Each query term's contribution to document `doc`'s score (terms it lacks left out), largest first. */
export function bm25Contributions(stats: Bm25Stats, query: TermCounts, doc: number): TermContribution[] {
  const { n, avgdl } = collection(stats);
  const out: TermContribution[] = [];
  for (const term of query.terms.keys()) {
    const list = stats.postings.get(term);
    if (!list) continue;
    for (let i = 0; i < list.length; i += 2) {
      if (list[i] !== doc) continue;
      const tf = list[i + 1] as number;
      const idf = bm25Idf(n, list.length / 2);
      out.push({ term, tf, idf, score: termScore(stats, idf, tf, stats.lengths[doc] as number, avgdl) });
      break;
    }
  }
  return out.sort((a, b) => b.score - a.score || compareIds(a.term, b.term));
}
