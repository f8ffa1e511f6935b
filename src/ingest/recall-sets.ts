/**
 * The real questions page recall is measured on, and their fixed development / test split.
 *
 * Two sets, both over public filings nobody here wrote:
 * - FinanceBench (Islam et al. 2023): the questions whose filing is staged, with their labelled
 *   evidence pages (0-indexed in the source, 1-indexed here);
 * - Enterprise RAG Challenge round 1: the questions with a numeric answer whose named companies are all
 *   staged. ERC labels no pages, so a question's gold pages are located from its answer: every page
 *   that prints one of the answer's figures, or a figure the organisers' comment cites (a ratio's
 *   inputs: "Total assets 5,118,490 Net loss −4,542,384"), as a whole number.
 *
 * The split is by filing, not by question, so that test questions are asked of filings that no change
 * was written from: the filings of a set are ordered by a seeded shuffle (seedrandom, RECALL_SPLIT_SEED)
 * and each goes, in that order, to the split holding fewer questions so far (ties to dev). The split is
 * recorded in data/recall-split.json (test/ingest/recall-sets.test.ts recomputes it) and documented in
 * docs/adr/0020-offline-retriever.md. Retrieval changes are written against dev; test is reported.
 */
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { z } from 'zod';
import { documentIdentity } from '../corpus/naming.ts';
import { extractMany } from '../corpus/workers.ts';
import {
  commentFigures,
  ErcAnswer,
  ercCompanyNames,
  figureRenderings,
  parseErcDataset,
} from '../questions/import-erc.ts';
import { evidencePages, isNotApplicableAnswer, loadFinanceBench } from '../questions/index.ts';
import { RgeError } from '../util/errors.ts';
import { shuffle } from '../util/shuffle.ts';
import type { PageRecallQuestion } from './page-recall.ts';

/** The seed of the filing shuffle; changing it makes another split (record the new one). */
export const RECALL_SPLIT_SEED = 'rge-recall-split-v1';

export type RecallSplit = 'dev' | 'test';
export type RecallSet = 'financebench' | 'erc';

export interface RecallQuestion extends PageRecallQuestion {
  set: RecallSet;
  split: RecallSplit;
  /** the PDF file the question is asked of */
  source: string;
}

/** The recorded split: per set, each filing (PDF file name) and its split. */
export const RecordedSplit = z.strictObject({
  seed: z.string(),
  sets: z.strictObject({
    financebench: z.record(z.string(), z.enum(['dev', 'test'])),
    erc: z.record(z.string(), z.enum(['dev', 'test'])),
  }),
});
export type RecordedSplit = z.infer<typeof RecordedSplit>;

/**
 * Each filing's split: filings in a seeded shuffle of their sorted names, each to the split with fewer
 * questions so far (dev on a tie). `questionsPerFiling` maps a file name to its question count.
 */
export function splitFilings(
  questionsPerFiling: ReadonlyMap<string, number>,
  seed: string = RECALL_SPLIT_SEED,
): Map<string, RecallSplit> {
  const order = shuffle([...questionsPerFiling.keys()].sort(), seedrandom(seed));
  const held = { dev: 0, test: 0 };
  const out = new Map<string, RecallSplit>();
  for (const file of order) {
    const split: RecallSplit = held.dev <= held.test ? 'dev' : 'test';
    held[split] += questionsPerFiling.get(file) ?? 0;
    out.set(file, split);
  }
  return new Map([...out.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of items) out.set(key(item), (out.get(key(item)) ?? 0) + 1);
  return out;
}

/** A question without its split, as a set's loader makes it. */
type Unsplit = Omit<RecallQuestion, 'split'>;

function withSplit(questions: readonly Unsplit[], seed: string): RecallQuestion[] {
  const splits = splitFilings(
    countBy(questions, (q) => q.source),
    seed,
  );
  return questions.map((q) => ({ ...q, split: splits.get(q.source) as RecallSplit }));
}

/**
 * FinanceBench's questions whose filing is among `stagedFiles` (PDF file names), with their own
 * document's evidence pages. `file` is financebench_open_source.jsonl (or a filtered copy).
 */
export async function financeBenchRecallSet(
  file: string,
  stagedFiles: readonly string[],
  seed: string = RECALL_SPLIT_SEED,
): Promise<RecallQuestion[]> {
  const staged = new Set(stagedFiles);
  const questions = (await loadFinanceBench(file))
    .filter((q) => staged.has(`${q.doc_name}.pdf`))
    .map(
      (q): Unsplit => ({
        set: 'financebench',
        id: q.financebench_id,
        question: q.question,
        company: documentIdentity(`${q.doc_name}.pdf`).company,
        source: `${q.doc_name}.pdf`,
        goldPages: evidencePages(q),
      }),
    );
  return withSplit(questions, seed);
}

/** The pages of a page range's text: 1-based page and its text. */
export interface RecallPage {
  page: number;
  text: string;
}

/** The pages that print `figure` as a whole number (not part of a longer one). */
export function pagesPrinting(figure: string, pages: readonly RecallPage[]): number[] {
  const escaped = figure.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(?<![\\d.,])${escaped}(?![\\d]|[.,]\\d)`);
  return pages.filter((p) => re.test(p.text)).map((p) => p.page);
}

export interface ErcRecallSet {
  questions: RecallQuestion[];
  /** answerable questions of staged filings whose figures no page prints, with the figures tried */
  unlocated: { id: string; figures: string[] }[];
}

/**
 * The Enterprise RAG Challenge round-1 questions (`dir` holds questions.json, answers.json,
 * dataset.csv and pdfs/) with a numeric answer whose companies are all staged and of one filing, their
 * gold pages located from the answer (see the file comment). `pagesOf` gives a staged PDF's pages.
 */
export async function ercRecallSet(
  dir: string,
  pagesOf: (file: string) => Promise<readonly RecallPage[]>,
  stagedFiles: readonly string[],
  seed: string = RECALL_SPLIT_SEED,
): Promise<ErcRecallSet> {
  const answersPath = join(dir, 'answers.json');
  const datasetPath = join(dir, 'dataset.csv');
  for (const p of [answersPath, datasetPath])
    if (!existsSync(p)) throw new RgeError('file not found (an ERC recall set needs it)', { file: p });
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(answersPath, 'utf8'));
  } catch (err) {
    throw new RgeError(`invalid JSON (${(err as Error).message})`, { file: answersPath });
  }
  const answers = z.array(ErcAnswer).safeParse(raw);
  if (!answers.success) throw new RgeError('not an ERC answers list', { file: answersPath });
  const shasByName = parseErcDataset(await readFile(datasetPath, 'utf8'));
  const staged = new Set(stagedFiles);
  const questions: Unsplit[] = [];
  const unlocated: ErcRecallSet['unlocated'] = [];
  for (const [i, a] of answers.data.entries()) {
    const names = ercCompanyNames(a.question);
    const files = names.map((n) =>
      (shasByName.get(n) ?? []).map((s) => `${s}.pdf`).find((f) => staged.has(f)),
    );
    if (names.length !== 1 || files[0] === undefined) continue;
    const values = a.answer === null ? [] : Array.isArray(a.answer) ? a.answer : [a.answer];
    const given = values.filter((v) => typeof v === 'number' || !isNotApplicableAnswer(v));
    if (given.length === 0) continue;
    const figures = [
      ...new Set([
        ...given.filter((v): v is number => typeof v === 'number').flatMap(figureRenderings),
        ...commentFigures(a.comment ?? ''),
      ]),
    ];
    const source = files[0];
    const pages = await pagesOf(source);
    const goldPages = [...new Set(figures.flatMap((f) => pagesPrinting(f, pages)))].sort((x, y) => x - y);
    const id = `erc-${String(i + 1).padStart(3, '0')}`;
    if (goldPages.length === 0) {
      unlocated.push({ id, figures });
      continue;
    }
    questions.push({
      set: 'erc',
      id,
      question: a.question,
      company: documentIdentity(source).company,
      source,
      goldPages,
    });
  }
  return { questions: withSplit(questions, seed), unlocated };
}

/** The split as data/recall-split.json records it. */
export function recordSplit(
  questions: readonly RecallQuestion[],
  seed: string = RECALL_SPLIT_SEED,
): RecordedSplit {
  const sets: RecordedSplit['sets'] = { financebench: {}, erc: {} };
  for (const q of [...questions].sort((a, b) => (a.source < b.source ? -1 : 1)))
    sets[q.set][q.source] = q.split;
  return { seed, sets };
}

/** The staged PDFs of a folder, sorted by name. */
function stagedPdfs(dir: string): string[] {
  if (!existsSync(dir)) throw new RgeError('no such folder', { file: dir });
  return readdirSync(dir)
    .filter((f) => f.toLowerCase().endsWith('.pdf'))
    .sort();
}

/** A set as the recall script and test read it from `../shared/corpus`: its PDF folder and questions. */
export interface LoadedRecallSet {
  set: RecallSet;
  pdfs: string;
  questions: RecallQuestion[];
  /** ERC questions whose figures no page prints (none expected) */
  unlocated: ErcRecallSet['unlocated'];
}

/** FinanceBench's set from its folder (financebench_open_source.jsonl and pdfs/). */
export async function loadFinanceBenchRecallSet(dir: string): Promise<LoadedRecallSet> {
  const pdfs = join(dir, 'pdfs');
  const questions = await financeBenchRecallSet(
    join(dir, 'financebench_open_source.jsonl'),
    stagedPdfs(pdfs),
  );
  return { set: 'financebench', pdfs, questions, unlocated: [] };
}

/** The ERC round-1 set from its folder; its staged PDFs are extracted to locate the gold pages. */
export async function loadErcRecallSet(dir: string): Promise<LoadedRecallSet> {
  const pdfs = join(dir, 'pdfs');
  const staged = stagedPdfs(pdfs);
  const extracted = await extractMany(staged.map((f) => join(pdfs, f)));
  const pages = new Map(staged.map((f, i) => [f, extracted[i]?.result?.pages ?? []]));
  const erc = await ercRecallSet(dir, async (f) => pages.get(f) ?? [], staged);
  return { set: 'erc', pdfs, questions: erc.questions, unlocated: erc.unlocated };
}
