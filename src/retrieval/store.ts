/**
 * Opening and querying an index folder (layout in manifest.ts): loads and checks the manifest, the
 * chunks and the vectors or postings once, then ranks chunks for a question by cosine, BM25 or their
 * fusion, keeping the top k.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { Chunk } from '../corpus/schema.ts';
import { RgeError } from '../util/errors.ts';
import { sha256 } from '../util/fs.ts';
import {
  type Bm25File,
  type Bm25Stats,
  bm25Contributions,
  bm25FromFile,
  bm25Scores,
  compareIds,
} from './bm25.ts';
import { lexicalPassageText } from './build.ts';
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
import { type ChunkExplanation, matchedTerms, queryTerms, type RetrievalExplanation } from './explain.ts';
import { fusionFromId, reciprocalRankFusion } from './hybrid.ts';
import { BM25, CHUNKS, IndexManifest, MANIFEST, QUERY_CACHE, VECTRA } from './manifest.ts';
import { dot, norms, type RetrievedChunk, ranked, TopK } from './ranking.ts';
import { type AppliedScope, questionScope, type ScopeDocument } from './scope.ts';

export type { AppliedScope, RetrievedChunk };

export interface RetrieveOptions {
  /** how many chunks to return (default 5) */
  k?: number;
  /** only chunks of this company (slug) */
  company?: string;
  /** only chunks of this fiscal year, e.g. FY24 */
  fy?: string;
  /**
   * Rank only the chunks of the companies and fiscal years the question names (scope.ts), where
   * `company` / `fy` do not say. Off by default: the methodology holds the retriever fixed (top-k = 5,
   * nothing else) and its adversarial questions are built on the distractors top-k surfaces, a wrong
   * fiscal year among them, which this filter would remove (docs/adr/0020-offline-retriever.md).
   */
  questionScope?: boolean;
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
  // The LocalIndex module alone, when a dense index is read: vectra's index.js also loads its OpenAI
  // client, web fetcher and HTML tools (about 0.9 s of start-up; bench/startup.bench.ts), and LocalIndex
  // its language model (some 0.2 s), which a lexical index never needs.
  const { LocalIndex } = await import('vectra/lib/LocalIndex.js');
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
   * What a retrieval of `question` ranks: `company` and `fy` when given, else (with `questionScope`)
   * the companies and fiscal years the question names among the index's documents.
   */
  scopeOf(question: string, opts: RetrieveOptions = {}): AppliedScope {
    const given = this.documents().filter(
      (d) => !opts.company || d.company.toLowerCase() === opts.company.toLowerCase(),
    );
    const named = questionScope(question, given);
    const auto = opts.questionScope === true;
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
   * Why each of the top k chunks ranked where it did, and any chunk named in `chunkIds` that did not
   * (explain.ts). The rankings are computed in full, in the scope `retrieve` uses, so the top k here is
   * what `retrieve` returns.
   */
  async explain(
    question: string,
    opts: RetrieveOptions & { chunkIds?: readonly string[] } = {},
  ): Promise<RetrievalExplanation> {
    const k = validateK(opts.k);
    const rowOf = new Map(this.chunks.map((c, i) => [c.id, i]));
    for (const id of opts.chunkIds ?? [])
      if (!rowOf.has(id)) throw new RgeError(`no chunk ${id} in the index ${this.dir}`, { exitCode: 2 });
    const e = await this.questionEmbedder();
    const scope = this.scopeOf(question, opts);
    const allowed = this.filter({ scope });
    const lexicalEmbedder = e.kind === 'lexical' ? e : e.kind === 'hybrid' ? e.lexical : null;
    const denseEmbedder = e.kind === 'dense' ? e : e.kind === 'hybrid' ? e.dense : null;
    const terms = lexicalEmbedder ? await lexicalEmbedder.embedQuery(question) : null;
    const lexical =
      terms && this.lexical
        ? ranked(bm25Scores(this.lexical, terms, allowed ?? undefined), this.chunks)
        : null;
    const dense = denseEmbedder
      ? ranked(this.cosines(await this.queryVector(denseEmbedder, question), allowed), this.chunks)
      : null;
    let final: { rows: number[]; scores: Map<number, number> };
    if (e.kind === 'hybrid' && lexical && dense) {
      const fused = reciprocalRankFusion(
        [
          { ids: lexical.rows.map((r) => (this.chunks[r] as Chunk).id), weight: e.fusion.lexicalWeight },
          { ids: dense.rows.map((r) => (this.chunks[r] as Chunk).id), weight: e.fusion.denseWeight },
        ],
        { rrfK: e.fusion.rrfK, depth: Math.max(e.fusion.depth, k) },
      );
      final = {
        rows: fused.map(([id]) => rowOf.get(id) as number),
        scores: new Map(fused.map(([id, score]) => [rowOf.get(id) as number, score])),
      };
    } else final = (lexical ?? dense) as { rows: number[]; scores: Map<number, number> };
    const query = lexicalEmbedder ? queryTerms(question) : null;
    const rankIn = (r: { rows: number[] }, row: number) => {
      const i = r.rows.indexOf(row);
      return i < 0 ? null : i + 1;
    };
    const targets = [
      ...new Set([...final.rows.slice(0, k), ...(opts.chunkIds ?? []).map((id) => rowOf.get(id) as number)]),
    ];
    const chunks = targets.map((row): ChunkExplanation => {
      const c = this.chunks[row] as Chunk;
      return {
        id: c.id,
        company: c.company,
        fy: c.fy,
        heading: c.heading,
        pages: [c.pages[0], c.pages[1]],
        rank: rankIn(final, row),
        score: final.scores.get(row) ?? null,
        lexical:
          lexical && terms && query && this.lexical
            ? {
                rank: rankIn(lexical, row),
                score: lexical.scores.get(row) ?? null,
                terms: matchedTerms(
                  bm25Contributions(this.lexical, terms, row),
                  lexicalPassageText(c),
                  query,
                ),
              }
            : null,
        dense: dense ? { rank: rankIn(dense, row), cosine: dense.scores.get(row) ?? null } : null,
      };
    });
    return { question, embedder: this.manifest.embedder.id, scope, query, chunks };
  }

  /** The ids of the chunks that cover `page` (1-based) within `scope` (from `scopeOf`). */
  chunksOnPage(page: number, scope: AppliedScope): string[] {
    const allowed = this.filter({ scope });
    return this.chunks
      .filter((c, row) => c.pages[0] <= page && page <= c.pages[1] && (!allowed || allowed(row)))
      .map((c) => c.id);
  }

  /** Cosine similarity of `vector` to every allowed row. */
  private cosines(vector: Float32Array, allowed: ((row: number) => boolean) | null): Map<number, number> {
    const dense = this.dense;
    const rowNorms = this.rowNorms;
    if (!dense || !rowNorms) return new Map();
    const { matrix, dims } = dense;
    if (vector.length !== dims)
      throw new RgeError(`query vector has ${vector.length} dimensions, the index ${dims}`);
    const q = Float32Array.from(vector);
    const qn = Math.sqrt(dot(q, 0, q, dims));
    const out = new Map<number, number>();
    for (let r = 0; r < this.chunks.length; r++) {
      if (allowed && !allowed(r)) continue;
      const denom = qn * (rowNorms[r] as number);
      out.set(r, denom > 0 ? dot(matrix, r * dims, q, dims) / denom : 0);
    }
    return out;
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
    if (!this.dense) throw new RgeError(`index ${this.dir} is lexical (bm25); it has no vectors to compare`);
    const top = new TopK(k);
    for (const [row, cosine] of this.cosines(vector, this.filter(opts))) top.offer(cosine, row, this.chunks);
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

export async function openIndex(dir: string, opts: OpenIndexOptions = {}): Promise<Index> {
  const abs = resolve(dir);
  return new Index(abs, await loadIndexFolder(abs), opts);
}
