/**
 * Gold quotes found in the documents and resolved to the chunks of the index (verification checks 1
 * and 2). A quote is looked for in the chunks of the document it names, in the normal form of
 * normalise.ts; found, it gets every chunk that holds it whole, the text as the chunk prints it (what
 * the question file stores, so `rge questions validate` finds it in its gold chunks), and, when the
 * document's pages are at hand, the page and the character span of the page's text. A quote no chunk
 * holds whole is looked for across each boundary of two consecutive chunks (the second's overlap with
 * the first taken once): there, it is split across chunks; else, in the pages: printed but in no chunk
 * (a running header the chunker drops); else it is not in the document, and the nearest page's word
 * overlap says whether it looks paraphrased or made up.
 *
 * Fast enough for ten thousand candidates against a few thousand chunks: each document's chunks are
 * indexed by the words of their normal form, and a quote is compared only with the chunks holding its
 * rarest word (and their neighbours, for a boundary).
 */

import type { Chunk } from '../../../corpus/schema.ts';
import { type Normalised, normaliseQuote, normaliseWithMap, originalSpan } from './normalise.ts';

/** A page of a document's extracted text (1-based), as rge's extractors give it. */
export interface DocumentPage {
  page: number;
  text: string;
}

export type QuoteHit =
  | {
      kind: 'found';
      /** every chunk that holds the quote whole, in index order */
      chunkIds: string[];
      /** the quote as the first of them prints it */
      text: string;
      /** the 1-based page it begins on; null for a document without pages (Markdown, HTML, text) */
      page: number | null;
      /** [start, end) in the page's text (the whole file's, for a document without pages), when located */
      span: [number, number] | null;
      /** the heading the first chunk falls under */
      section: string | null;
    }
  | { kind: 'across'; chunkIds: [string, string] }
  | { kind: 'not-in-index'; page: number | null }
  | { kind: 'no-document' }
  /** `nearest.overlap`: the share of the quote's words (3 letters or more, figures) the nearest chunk holds */
  | { kind: 'not-found'; nearest: { page: number | null; overlap: number } | null };

interface DocumentChunks {
  chunks: Chunk[];
  normal: string[];
  /** word -> positions in `chunks` */
  words: Map<string, number[]>;
  /** chunk i and i + 1 joined, in normal form (built when a quote is looked for across them) */
  joined: Map<number, string>;
  /** chunk i's normal form with its map back to the text (built when a quote is found in it) */
  mapped: Map<number, Normalised>;
}

export interface QuoteIndexOptions {
  /** each document's pages by `Chunk.source`, when the documents were read (else pages come from the chunks) */
  pages?: ReadonlyMap<string, readonly DocumentPage[]>;
  /** documents without pages (Markdown, HTML, text): their locations record page null */
  pageless?: (source: string) => boolean;
}

export class QuoteIndex {
  private readonly bySource = new Map<string, Chunk[]>();
  private readonly built = new Map<string, DocumentChunks>();
  private readonly pageForms = new Map<DocumentPage, Normalised>();

  constructor(
    chunks: readonly Chunk[],
    private readonly opts: QuoteIndexOptions = {},
  ) {
    for (const c of chunks) {
      const list = this.bySource.get(c.source) ?? [];
      list.push(c);
      this.bySource.set(c.source, list);
    }
  }

  /** The first document (in index order) whose chunks hold the quote whole, or null. */
  documentOf(quote: string): string | null {
    const needle = normaliseQuote(quote);
    for (const source of this.bySource.keys())
      if (this.locateNormal(source, needle).kind === 'found') return source;
    return null;
  }

  private doc(source: string): DocumentChunks | null {
    const cached = this.built.get(source);
    if (cached) return cached;
    const chunks = this.bySource.get(source);
    if (!chunks) return null;
    const normal = chunks.map((c) => normaliseQuote(c.text));
    const words = new Map<string, number[]>();
    normal.forEach((t, i) => {
      for (const w of new Set(t.split(' '))) {
        const list = words.get(w);
        if (list) list.push(i);
        else words.set(w, [i]);
      }
    });
    const d = {
      chunks,
      normal,
      words,
      joined: new Map<number, string>(),
      mapped: new Map<number, Normalised>(),
    };
    this.built.set(source, d);
    return d;
  }

  /** Where the quote is: found (chunks, text, page, span), split across two chunks, or not there. */
  locate(document: string, quote: string): QuoteHit {
    return this.locateNormal(document, normaliseQuote(quote));
  }

  /** `locate` of a quote already in its normal form. */
  private locateNormal(document: string, needle: string): QuoteHit {
    const d = this.doc(document);
    if (!d) return { kind: 'no-document' };
    if (needle === '') return { kind: 'not-found', nearest: null };
    const near = candidateChunks(d, needle);
    const holding = near.filter((i) => (d.normal[i] as string).includes(needle));
    if (holding.length > 0) return this.found(document, d, holding, needle);
    const across = acrossBoundary(d, near, needle);
    if (across) return { kind: 'across', chunkIds: across };
    return this.missing(document, needle);
  }

  private found(source: string, d: DocumentChunks, holding: number[], needle: string): QuoteHit {
    const first = d.chunks[holding[0] as number] as Chunk;
    let form = d.mapped.get(holding[0] as number);
    if (!form) {
      form = normaliseWithMap(first.text, true);
      d.mapped.set(holding[0] as number, form);
    }
    const at = form.text.indexOf(needle);
    const [s, e] = originalSpan(form, at, at + needle.length, first.text);
    const where = this.onPage(source, first, needle);
    const pageless = this.opts.pageless?.(source) ?? false;
    return {
      kind: 'found',
      chunkIds: holding.map((i) => (d.chunks[i] as Chunk).id),
      text: first.text.slice(s, e),
      page: pageless ? null : (where?.page ?? first.pages[0]),
      span: where?.span ?? null,
      section: first.heading,
    };
  }

  /** The page of the chunk's range that prints the quote, and its span there. */
  private onPage(
    source: string,
    chunk: Chunk,
    needle: string,
  ): { page: number; span: [number, number] } | null {
    const pages = this.opts.pages?.get(source);
    if (!pages) return null;
    for (const p of pages) {
      if (p.page < chunk.pages[0] || p.page > chunk.pages[1]) continue;
      const form = this.pageForm(p);
      const at = form.text.indexOf(needle);
      if (at >= 0) return { page: p.page, span: originalSpan(form, at, at + needle.length, p.text) };
    }
    return null;
  }

  private pageForm(p: DocumentPage): Normalised {
    let form = this.pageForms.get(p);
    if (!form) {
      form = normaliseWithMap(p.text, true);
      this.pageForms.set(p, form);
    }
    return form;
  }

  /** A quote in no chunk: printed on a page (then the chunker dropped it), or not in the document. */
  private missing(source: string, needle: string): QuoteHit {
    const pages = this.opts.pages?.get(source);
    const pageless = this.opts.pageless?.(source) ?? false;
    if (pages) {
      for (const p of pages)
        if (this.pageForm(p).text.includes(needle))
          return { kind: 'not-in-index', page: pageless ? null : p.page };
    }
    const d = this.doc(source) as DocumentChunks;
    // the chunk holding most of the quote's words (of three letters or more, or figures), by the word index
    const words = [...new Set(needle.split(' '))].filter((w) => /\p{L}{3}|\p{N}/u.test(w));
    const counts = new Map<number, number>();
    for (const w of words) for (const i of d.words.get(w) ?? []) counts.set(i, (counts.get(i) ?? 0) + 1);
    let best: [number, number] | null = null;
    for (const [i, n] of counts) if (!best || n > best[1] || (n === best[1] && i < best[0])) best = [i, n];
    if (!best) return { kind: 'not-found', nearest: null };
    const chunk = d.chunks[best[0]] as Chunk;
    return {
      kind: 'not-found',
      nearest: { page: pageless ? null : chunk.pages[0], overlap: best[1] / words.length },
    };
  }
}

/** The chunks holding the quote's rarest word (all of them when the quote has no word the index knows). */
function candidateChunks(d: DocumentChunks, needle: string): number[] {
  const words = needle.split(' ');
  // the first and last word may be cut mid-word by the quote: rarest among the inner words when there are any
  const inner = words.length > 2 ? words.slice(1, -1) : words;
  let best: number[] | null = null;
  for (const w of inner) {
    const list = d.words.get(w);
    if (!list) return words.length > 2 ? [] : d.chunks.map((_, i) => i);
    if (best === null || list.length < best.length) best = list;
  }
  return best ?? d.chunks.map((_, i) => i);
}

/** How many leading lines of `next` repeat the trailing lines of `prev` (the chunker's overlap). */
function overlapLines(prev: string, next: string): number {
  const a = prev.split('\n');
  const b = next.split('\n');
  for (let k = Math.min(a.length, b.length - 1); k > 0; k--) {
    let same = true;
    for (let j = 0; j < k && same; j++) same = a[a.length - k + j] === b[j];
    if (same) return k;
  }
  return 0;
}

/** The two consecutive chunks a quote runs across (near = chunks holding one of its words), or null. */
function acrossBoundary(d: DocumentChunks, near: readonly number[], needle: string): [string, string] | null {
  const pairs = new Set<number>();
  for (const i of near) {
    if (i > 0) pairs.add(i - 1);
    if (i + 1 < d.chunks.length) pairs.add(i);
  }
  // (a quote with an inner word no chunk holds is in no pair either: `near` is then empty)
  for (const i of [...pairs].sort((x, y) => x - y))
    if (joined(d, i).includes(needle)) return [(d.chunks[i] as Chunk).id, (d.chunks[i + 1] as Chunk).id];
  return null;
}

/** The normal form of chunk i followed by chunk i + 1 without the lines it repeats of chunk i. */
function joined(d: DocumentChunks, i: number): string {
  let text = d.joined.get(i);
  if (text === undefined) {
    const prev = d.chunks[i] as Chunk;
    const next = d.chunks[i + 1] as Chunk;
    const skip = overlapLines(prev.text, next.text);
    text = normaliseQuote(`${prev.text}\n${next.text.split('\n').slice(skip).join('\n')}`);
    d.joined.set(i, text);
  }
  return text;
}
