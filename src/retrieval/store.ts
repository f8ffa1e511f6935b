/**
 * Opening and querying an index folder (layout in manifest.ts): loads and checks the manifest, the
 * chunks and the vectors or postings once, then ranks chunks for a question by cosine, BM25 or their
 * fusion, keeping the top k.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
// The LocalIndex module alone: vectra's index.js also loads its OpenAI client, web fetcher and HTML
// tools (about 0.9 s of start-up in every process that opens an index; bench/startup.bench.ts).
import { LocalIndex } from 'vectra/lib/LocalIndex.js';
import { z } from 'zod';
import { Chunk } from '../corpus/schema.ts';
import { RgeError } from '../util/errors.ts';
import { sha256 } from '../util/fs.ts';
import { type Bm25File, type Bm25Stats, bm25FromFile, bm25Scores, compareIds } from './bm25.ts';
import { EmbeddingCache } from './cache.ts';
import { createEmbedder } from './create-embedder.ts';
import {
  type DenseEmbedder,
  type Embedder,
  type EmbedderOptions,
  type FusionParameters,
  isEmbedderName,
  type TermCounts,
} from './embedder.ts';
import { fusionFromId, reciprocalRankFusion } from './hybrid.ts';
import { BM25, CHUNKS, IndexManifest, MANIFEST, QUERY_CACHE, VECTRA } from './manifest.ts';
import { type QuestionScope, questionScope, type ScopeDocument } from './scope.ts';

export type RetrievedChunk = Chunk & { score: number };

export interface RetrieveOptions {
  /** how many chunks to return (default 5) */
  k?: number;
  /** only chunks of this company (slug) */
  company?: string;
  /** only chunks of this fiscal year, e.g. FY24 */
  fy?: string;
  /**
   * Rank only the chunks of the companies and fiscal years the question names (scope.ts), where
   * `company` / `fy` do not say (default true); false ranks every chunk the explicit filters allow.
   */
  questionScope?: boolean;
}

/** The documents a retrieval ranked: the filters given and those read from the question. */
export interface AppliedScope {
  /** company slugs ranked (null: every company) */
  companies: string[] | null;
  /** fiscal years ranked (null: every year) */
  fys: string[] | null;
  /** what the question named among the index's documents */
  named: QuestionScope;
}

export interface OpenIndexOptions {
  /** the embedder for questions; by default created from the manifest's embedder name */
  embedder?: Embedder;
  embedderOptions?: EmbedderOptions;
}

export const DEFAULT_K = 5;

export interface LoadedIndex {
  manifest: IndexManifest;
  chunks: Chunk[];
  chunksJson: string;
  dense: { ids: string[]; matrix: Float32Array; dims: number } | null;
  lexical: Bm25Stats | null;
}

async function readJson(path: string, what: string): Promise<{ raw: string; value: unknown }> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    throw new RgeError(`cannot read ${what} ${path}`, { cause: err });
  }
  try {
    return { raw, value: JSON.parse(raw) };
  } catch (err) {
    throw new RgeError(`${what} ${path} is not valid JSON`, { cause: err });
  }
}

/** Reads and validates an index's manifest alone (cheap: no chunks, no vectors); null when there is none. */
export async function readIndexManifest(dirIn: string): Promise<IndexManifest | null> {
  const dir = resolve(dirIn);
  if (!existsSync(join(dir, MANIFEST))) return null;
  return parseManifest(dir);
}

async function parseManifest(dir: string): Promise<IndexManifest> {
  const m = IndexManifest.safeParse((await readJson(join(dir, MANIFEST), 'index manifest')).value);
  if (!m.success) throw new RgeError(`index manifest ${join(dir, MANIFEST)} is invalid: ${m.error.message}`);
  return m.data;
}

/** Reads and checks an index folder: manifest, chunks, and the vectors and/or postings its kind holds. */
export async function loadIndexFolder(dirIn: string): Promise<LoadedIndex> {
  const dir = resolve(dirIn);
  if (!existsSync(join(dir, MANIFEST))) {
    throw new RgeError(
      `no index at ${dir} (${MANIFEST} is missing); build it with \`rge corpus ingest\` (or point --index at an index folder)`,
    );
  }
  const manifest = await parseManifest(dir);
  const { raw: chunksJson, value } = await readJson(join(dir, CHUNKS), 'index chunks');
  const parsed = z.array(Chunk).safeParse(value);
  if (!parsed.success)
    throw new RgeError(`index chunks ${join(dir, CHUNKS)} are invalid: ${parsed.error.message}`);
  const chunks = parsed.data;
  if (chunks.length !== manifest.chunks) {
    throw new RgeError(
      `${join(dir, CHUNKS)} has ${chunks.length} chunks, the manifest says ${manifest.chunks}`,
    );
  }
  // a hybrid index holds both the vectors and the postings
  const kind = manifest.embedder.kind;
  const dense = kind === 'lexical' ? null : await loadDense(dir, manifest);
  const lexical = kind === 'dense' ? null : await loadLexical(dir);
  return { manifest, chunks, chunksJson, dense, lexical };
}

async function loadDense(dir: string, manifest: IndexManifest): Promise<NonNullable<LoadedIndex['dense']>> {
  if (!existsSync(join(dir, VECTRA))) throw new RgeError(`index ${dir} is incomplete: ${VECTRA} is missing`);
  const items = await new LocalIndex(dir).listItems();
  const sortedItems = [...items].sort((a, b) => compareIds(a.id, b.id));
  const dims = sortedItems[0]?.vector.length ?? manifest.embedder.dimensions ?? 0;
  const matrix = new Float32Array(sortedItems.length * dims);
  for (const [r, item] of sortedItems.entries()) {
    if (item.vector.length !== dims)
      throw new RgeError(`index ${dir}: item ${item.id} has a vector of the wrong length`);
    matrix.set(item.vector, r * dims);
  }
  return { ids: sortedItems.map((i) => i.id), matrix, dims };
}

async function loadLexical(dir: string): Promise<Bm25Stats> {
  const file = (await readJson(join(dir, BM25), 'bm25 postings')).value as Bm25File;
  if (file?.format !== 'rge-bm25' || !Array.isArray(file.terms))
    throw new RgeError(`${join(dir, BM25)} is not an rge bm25 file`);
  return bm25FromFile(file);
}

/** Whether the ids (of vectors or postings) are the chunks' ids, in order. */
export function idsMatch(a: readonly string[], b: readonly Chunk[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]?.id);
}

function validateK(k: number | undefined): number {
  const n = k ?? DEFAULT_K;
  if (!Number.isInteger(n) || n < 1)
    throw new RgeError(`k must be a positive integer, got ${k}`, { exitCode: 2 });
  return n;
}

/** Ranks by score, highest first; equal scores by chunk id, so the order never depends on load order. */
function byScoreThenId(a: RetrievedChunk, b: RetrievedChunk): number {
  return b.score - a.score || compareIds(a.id, b.id);
}

/** The ranking methods' options: `scope` (from `scopeOf`) replaces `company` and `fy` when given. */
export interface RankOptions extends Omit<RetrieveOptions, 'questionScope'> {
  scope?: AppliedScope;
}

export class Index {
  readonly dir: string;
  readonly manifest: IndexManifest;
  private readonly chunks: Chunk[];
  private readonly dense: LoadedIndex['dense'];
  private readonly lexical: Bm25Stats | null;
  private readonly rowNorms: Float32Array | null;
  private embedder: Promise<Embedder> | null;
  private readonly embedderOptions: EmbedderOptions;
  private scopeDocuments: ScopeDocument[] | null = null;

  /** Use `openIndex`. */
  constructor(dir: string, loaded: LoadedIndex, opts: OpenIndexOptions) {
    this.dir = dir;
    this.manifest = loaded.manifest;
    this.chunks = loaded.chunks;
    this.dense = loaded.dense;
    this.lexical = loaded.lexical;
    this.embedder = opts.embedder ? Promise.resolve(opts.embedder) : null;
    this.embedderOptions = opts.embedderOptions ?? {};
    if (this.dense && !idsMatch(this.dense.ids, this.chunks)) {
      throw new RgeError(`index ${dir}: the vectors in ${VECTRA} do not match the chunks in ${CHUNKS}`);
    }
    if (this.lexical && !idsMatch(this.lexical.ids, this.chunks)) {
      throw new RgeError(`index ${dir}: the postings in ${BM25} do not match the chunks in ${CHUNKS}`);
    }
    this.rowNorms = this.dense ? norms(this.dense.matrix, this.dense.dims) : null;
  }

  get size(): number {
    return this.chunks.length;
  }

  /** The documents of the index (company, display name, fiscal year), in chunk order, each once. */
  documents(): ScopeDocument[] {
    if (!this.scopeDocuments) {
      const names = new Map<string, string>();
      for (const d of this.manifest.corpus?.documents ?? [])
        if (d.companyName) names.set(d.company, d.companyName);
      const seen = new Map<string, ScopeDocument>();
      for (const c of this.chunks) {
        const key = `${c.company}\0${c.fy ?? ''}`;
        if (seen.has(key)) continue;
        const companyName = names.get(c.company);
        seen.set(key, { company: c.company, fy: c.fy, ...(companyName ? { companyName } : {}) });
      }
      this.scopeDocuments = [...seen.values()];
    }
    return this.scopeDocuments;
  }

  /**
   * What a retrieval of `question` ranks: `company` and `fy` when given, else (unless `questionScope`
   * is false) the companies and fiscal years the question names among the index's documents.
   */
  scopeOf(question: string, opts: RetrieveOptions = {}): AppliedScope {
    const given = this.documents().filter(
      (d) => !opts.company || d.company.toLowerCase() === opts.company.toLowerCase(),
    );
    const named = questionScope(question, given);
    const auto = opts.questionScope !== false;
    const companies = opts.company
      ? [opts.company.toLowerCase()]
      : auto && named.companies.length > 0
        ? named.companies
        : null;
    const fys = opts.fy ? [opts.fy.toUpperCase()] : auto && named.fys.length > 0 ? named.fys : null;
    return { companies, fys, named };
  }

  get checksum(): string {
    return this.manifest.checksum;
  }

  private async questionEmbedder(): Promise<Embedder> {
    if (!this.embedder) {
      const name = this.manifest.embedder.name;
      if (!isEmbedderName(name)) {
        throw new RgeError(
          `index ${this.dir} was built with embedder "${name}"; pass that embedder to openIndex`,
        );
      }
      // a hybrid index is queried with the fusion parameters it records, unless the caller sets them
      const recorded = name === 'hybrid' ? fusionFromId(this.manifest.embedder.id) : null;
      this.embedder = createEmbedder(
        name,
        recorded && !this.embedderOptions.hybrid
          ? { ...this.embedderOptions, hybrid: recorded }
          : this.embedderOptions,
      );
    }
    const e = await this.embedder.catch((err: unknown) => {
      this.embedder = null;
      throw err;
    });
    if (e.id !== this.manifest.embedder.id) {
      throw new RgeError(
        `index ${this.dir} was built with ${this.manifest.embedder.id} but the embedder here is ${e.id}; rebuild the index`,
      );
    }
    return e;
  }

  /** The top k chunks for a question: embeds the question, then ranks (filters apply before top-k). */
  async retrieve(question: string, opts: RetrieveOptions = {}): Promise<RetrievedChunk[]> {
    validateK(opts.k);
    const e = await this.questionEmbedder();
    const scoped: RankOptions = { k: opts.k, scope: this.scopeOf(question, opts) };
    if (e.kind === 'dense') return this.retrieveByVector(await this.queryVector(e, question), scoped);
    if (e.kind === 'lexical') return this.retrieveByTerms(await e.embedQuery(question), scoped);
    const [terms, vector] = await Promise.all([
      e.lexical.embedQuery(question),
      this.queryVector(e.dense, question),
    ]);
    return this.retrieveHybrid(terms, vector, e.fusion, scoped);
  }

  /**
   * A question's dense vector, from the index's query cache when it was asked before with the same
   * embedder (so a resumed run, or the eval suite's worker after `rge eval run`'s stages, never loads
   * the model again), else embedded and cached. The cache lives in the index folder, so a rebuilt
   * index starts without it; a file there that does not hold this question's text is ignored, and a
   * failed write (a read-only index) only means no caching.
   */
  private async queryVector(e: DenseEmbedder, question: string): Promise<Float32Array> {
    const cache = new EmbeddingCache(join(this.dir, QUERY_CACHE), e.id);
    const key = sha256(question).slice(0, 32);
    const cached = await cache.get(key, question);
    if (cached && cached.length === this.dense?.dims) return cached;
    const vector = await e.embedQuery(question);
    await cache.set(key, question, vector).catch(() => undefined);
    return vector;
  }

  /**
   * Hybrid indexes: the BM25 and the cosine rankings (each to the fusion depth, at least k, filters
   * applied first) fused by reciprocal rank fusion; the score is the fused score.
   */
  retrieveHybrid(
    terms: TermCounts,
    vector: Float32Array,
    fusion: FusionParameters,
    opts: RankOptions = {},
  ): RetrievedChunk[] {
    const k = validateK(opts.k);
    const depth = Math.max(fusion.depth, k);
    const lexical = this.retrieveByTerms(terms, { ...opts, k: depth });
    const dense = this.retrieveByVector(vector, { ...opts, k: depth });
    const byId = new Map<string, Chunk>([...lexical, ...dense].map((c) => [c.id, c]));
    const fused = reciprocalRankFusion(
      [
        { ids: lexical.map((c) => c.id), weight: fusion.lexicalWeight },
        { ids: dense.map((c) => c.id), weight: fusion.denseWeight },
      ],
      { rrfK: fusion.rrfK, depth },
    );
    return fused.slice(0, k).map(([id, score]) => {
      const { score: _, ...chunk } = byId.get(id) as RetrievedChunk;
      return { ...chunk, score };
    });
  }

  /** Dense indexes: ranks by cosine similarity to `vector` (no embedding involved). */
  retrieveByVector(vector: Float32Array, opts: RankOptions = {}): RetrievedChunk[] {
    const k = validateK(opts.k);
    const dense = this.dense;
    const rowNorms = this.rowNorms;
    if (!dense || !rowNorms)
      throw new RgeError(`index ${this.dir} is lexical (bm25); it has no vectors to compare`);
    const { matrix, dims } = dense;
    if (vector.length !== dims)
      throw new RgeError(`query vector has ${vector.length} dimensions, the index ${dims}`);
    const q = Float32Array.from(vector);
    const qn = Math.sqrt(dot(q, 0, q, dims));
    const allowed = this.filter(opts);
    const top = new TopK(k);
    for (let r = 0; r < this.chunks.length; r++) {
      if (allowed && !allowed(r)) continue;
      const denom = qn * (rowNorms[r] as number);
      top.offer(denom > 0 ? dot(matrix, r * dims, q, dims) / denom : 0, r, this.chunks);
    }
    return top.result(this.chunks);
  }

  /** Lexical indexes: ranks by BM25; only chunks that share a term with the query are returned. */
  retrieveByTerms(query: TermCounts, opts: RankOptions = {}): RetrievedChunk[] {
    const k = validateK(opts.k);
    if (!this.lexical) throw new RgeError(`index ${this.dir} is dense; query it with a vector`);
    const scores = bm25Scores(this.lexical, query, this.filter(opts) ?? undefined);
    const top = new TopK(k);
    for (const [doc, score] of scores) top.offer(score, doc, this.chunks);
    return top.result(this.chunks);
  }

  private filter(opts: RankOptions): ((row: number) => boolean) | null {
    const companies = opts.scope?.companies ?? (opts.company ? [opts.company.toLowerCase()] : null);
    const fys = opts.scope?.fys ?? (opts.fy ? [opts.fy.toUpperCase()] : null);
    if (!companies && !fys) return null;
    const company = companies ? new Set(companies) : null;
    const fy = fys ? new Set(fys) : null;
    return (row) => {
      const c = this.chunks[row] as Chunk;
      return (!company || company.has(c.company.toLowerCase())) && (!fy || (c.fy !== null && fy.has(c.fy)));
    };
  }
}

/** Dot product of `dims` values of `m` from `offset` with `q`; unrolled by four (about 1.7x faster in V8). */
function dot(m: Float32Array, offset: number, q: Float32Array, dims: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let j = 0;
  let b = offset;
  for (; j + 3 < dims; j += 4, b += 4) {
    s0 += (m[b] as number) * (q[j] as number);
    s1 += (m[b + 1] as number) * (q[j + 1] as number);
    s2 += (m[b + 2] as number) * (q[j + 2] as number);
    s3 += (m[b + 3] as number) * (q[j + 3] as number);
  }
  for (; j < dims; j++, b++) s0 += (m[b] as number) * (q[j] as number);
  return s0 + s1 + s2 + s3;
}

function norms(matrix: Float32Array, dims: number): Float32Array {
  const rows = dims > 0 ? matrix.length / dims : 0;
  const out = new Float32Array(rows);
  for (let r = 0; r < rows; r++)
    out[r] = Math.sqrt(dot(matrix, r * dims, matrix.subarray(r * dims, (r + 1) * dims), dims));
  return out;
}

/** Keeps the best k (score desc, id asc) by insertion into a small sorted array. */
class TopK {
  private readonly scores: number[] = [];
  private readonly rows: number[] = [];
  constructor(private readonly k: number) {}

  offer(score: number, row: number, chunks: readonly Chunk[]): void {
    const n = this.scores.length;
    if (
      n === this.k &&
      !this.better(score, row, this.scores[n - 1] as number, this.rows[n - 1] as number, chunks)
    ) {
      return;
    }
    let i = n === this.k ? n - 1 : n;
    while (
      i > 0 &&
      this.better(score, row, this.scores[i - 1] as number, this.rows[i - 1] as number, chunks)
    ) {
      if (i < this.k) {
        this.scores[i] = this.scores[i - 1] as number;
        this.rows[i] = this.rows[i - 1] as number;
      }
      i--;
    }
    this.scores[i] = score;
    this.rows[i] = row;
  }

  private better(s: number, r: number, s2: number, r2: number, chunks: readonly Chunk[]): boolean {
    if (s !== s2) return s > s2;
    return compareIds((chunks[r] as Chunk).id, (chunks[r2] as Chunk).id) < 0;
  }

  result(chunks: readonly Chunk[]): RetrievedChunk[] {
    const out = this.rows.map((r, i) => ({ ...(chunks[r] as Chunk), score: this.scores[i] as number }));
    return out.sort(byScoreThenId);
  }
}

export async function openIndex(dir: string, opts: OpenIndexOptions = {}): Promise<Index> {
  const abs = resolve(dir);
  return new Index(abs, await loadIndexFolder(abs), opts);
}
