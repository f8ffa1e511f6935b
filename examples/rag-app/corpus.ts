/**
 * rag-app's corpus: the PDFs of one folder, read with pdf-parse and cut into passages (ingest.ts), kept
 * in a cache file named by a key of the files' names, sizes and modification times (and the ingestion's
 * version), so that a second start reads one JSON file instead of every PDF. The file is written
 * whole and renamed into place, so processes that start together never read half of one.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PASSAGE_WORDS, type Passage, passagesOf } from './ingest.ts';

/** Part of the cache key: a change to ingestion or chunking bumps it, so old caches are not read. */
export const INGEST_VERSION = 'rag-app-ingest-v1';

export interface CorpusFile {
  file: string;
  size: number;
  mtimeMs: number;
}

/** The folder's PDFs, by name. */
export async function corpusFiles(dir: string): Promise<CorpusFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    throw new Error(
      `rag-app: cannot read the corpus folder ${dir} (${(e as Error).message}); name one with --corpus or RAG_APP_CORPUS, or write the fixture PDFs there with \`npx rge fixtures build\``,
    );
  }
  const pdfs = names.filter((n) => n.toLowerCase().endsWith('.pdf')).sort();
  if (pdfs.length === 0) throw new Error(`rag-app: no PDF in the corpus folder ${dir}`);
  return Promise.all(
    pdfs.map(async (file) => {
      const s = await stat(join(dir, file));
      return { file, size: s.size, mtimeMs: s.mtimeMs };
    }),
  );
}

/** The cache key of a corpus: its files' names, sizes and mtimes, INGEST_VERSION and the passage size. */
export function corpusKey(files: readonly CorpusFile[]): string {
  const hash = createHash('sha256').update(`${INGEST_VERSION}:${PASSAGE_WORDS}`);
  for (const f of files) hash.update(`\n${f.file}\t${f.size}\t${f.mtimeMs}`);
  return hash.digest('hex').slice(0, 16);
}

/** One page's text per page of a PDF. */
async function pageTexts(path: string): Promise<string[]> {
  // loaded only when a PDF is read: a start from the cache does not pay for pdf.js
  const { PDFParse } = await import('pdf-parse');
  const parser = new PDFParse({ data: new Uint8Array(await readFile(path)) });
  try {
    const result = await parser.getText();
    return result.pages.sort((a, b) => a.num - b.num).map((p) => p.text);
  } finally {
    await parser.destroy();
  }
}

async function readCache(path: string): Promise<Passage[] | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Passage[];
  } catch {
    return undefined;
  }
}

export interface LoadedCorpus {
  passages: Passage[];
  /** the cache key */
  key: string;
  /** whether the passages came from the cache */
  cached: boolean;
}

/** The corpus's passages: from the cache when its key matches, else read from the PDFs and cached. */
export async function loadPassages(corpusDir: string, cacheDir: string): Promise<LoadedCorpus> {
  const files = await corpusFiles(corpusDir);
  const key = corpusKey(files);
  const cacheFile = join(cacheDir, `passages-${key}.json`);
  const hit = await readCache(cacheFile);
  if (hit) return { passages: hit, key, cached: true };
  const passages: Passage[] = [];
  for (const f of files) passages.push(...passagesOf(f.file, await pageTexts(join(corpusDir, f.file))));
  await mkdir(cacheDir, { recursive: true });
  const partial = `${cacheFile}.${process.pid}.${Date.now()}.part`;
  await writeFile(partial, JSON.stringify(passages));
  await rename(partial, cacheFile);
  return { passages, key, cached: false };
}
