/**
 * Importing the Enterprise RAG Challenge round 1 (`questions.json` with `answers.json` and `dataset.csv`
 * beside it; PDFs are named by sha1, so a document's company slug is its sha1) as rge questions. ERC gives
 * no evidence pages: the gold chunks are those that print the answer's figures.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { Chunk } from '../corpus/schema.ts';
import { parseCsv } from '../util/csv.ts';
import { RgeError } from '../util/errors.ts';
import { isNotApplicableAnswer } from './financebench.ts';
import { chunksByDocument, emptySummary, type ImportResult, outOfDomainQuestion } from './import-common.ts';
import { normaliseWhitespace } from './load.ts';
import { QUESTION_VERSION, type Question } from './schema.ts';

const ErcAnswerValue = z.union([z.string(), z.number()]);
export const ErcAnswer = z.looseObject({
  question: z.string(),
  schema: z.string(),
  answer: z.union([ErcAnswerValue, z.array(ErcAnswerValue)]).nullable(),
  comment: z.string().optional(),
  category: z.string().optional(),
});
export type ErcAnswer = z.infer<typeof ErcAnswer>;

/** Parses `dataset.csv` (sha1,date,name,size; names may be quoted) into company name -> sha1s. */
export function parseErcDataset(csv: string): Map<string, string[]> {
  const bySha = new Map<string, string[]>();
  for (const { fields } of parseCsv(csv).records.slice(1)) {
    const [sha, , name] = fields;
    if (!sha || !name) continue;
    const list = bySha.get(name) ?? [];
    list.push(sha.toLowerCase());
    bySha.set(name, list);
  }
  return bySha;
}

/** The company names an ERC question quotes: `... of "Holley Inc." in ...` gives Holley Inc. */
export function ercCompanyNames(question: string): string[] {
  return [...question.matchAll(/"([^"]+)"/g)].map((m) => m[1] as string);
}

/** FY from "fiscal year 2021" or "June 30, 2022". */
function ercFiscalYears(question: string): string[] {
  const m = /(?:fiscal year|,)\s*((?:19|20)\d{2})\b/.exec(question);
  return m ? [`FY${(m[1] as string).slice(2)}`] : [];
}

/**
 * How a whole-number figure (at least 1,000) may be printed in a report: as is, in thousands, in
 * millions, with thousands separators; only exact renderings with at least four digits (five when
 * they have decimals), so that short numbers do not match by chance. Ratios and other fractional
 * answers are derived, not printed, and give none.
 */
export function figureRenderings(value: number): string[] {
  const abs = Math.abs(value);
  if (!Number.isInteger(abs) || abs < 1000) return [];
  const out = new Set<string>();
  for (const scale of [1, 1e3, 1e6]) {
    const v = abs / scale;
    for (const digits of [0, 1, 2]) {
      if (digits > 0 && Number.isInteger(v)) continue; // 3,770,600 not 3,770,600.00
      const rounded = Number(v.toFixed(digits));
      if (Math.abs(rounded * scale - abs) > abs * 1e-9) continue; // only exact renderings
      const s = rounded.toLocaleString('en-US', {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      });
      if (s.replace(/\D/g, '').length >= (digits > 0 ? 5 : 4)) out.add(s);
    }
  }
  return [...out];
}

/** Figures a comment cites: "Total assets 5,118,490 Net loss −4,542,384" gives 5,118,490 and 4,542,384. */
export function commentFigures(comment: string): string[] {
  return [...comment.matchAll(/\d{1,3}(?:,\d{3})+(?:\.\d+)?/g)].map((m) => m[0]);
}

/** Page numbers a comment cites: "Page 115", "p 48", "page 146". */
function commentPages(comment: string): number[] {
  return [...comment.matchAll(/\b(?:page|p\.?)\s*(\d{1,4})\b/gi)].map((m) => Number(m[1]));
}

/** The line of a chunk that contains `figure` as a whole number (not part of a longer one), or null. */
function lineWithFigure(chunk: Chunk, figure: string): string | null {
  const escaped = figure.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(?<![\\d.,])${escaped}(?![\\d]|[.,]\\d)`);
  for (const line of chunk.text.split('\n')) if (re.test(line)) return normaliseWhitespace(line);
  return null;
}

/** Whether some page is covered by every one of the chunks (then they are one piece of evidence). */
function sharePage(chunks: readonly Chunk[]): boolean {
  const first = Math.max(...chunks.map((c) => c.pages[0]));
  const last = Math.min(...chunks.map((c) => c.pages[1]));
  return first <= last;
}

/** A round's questions, the organisers' answers (position by position) and the documents by company name. */
interface ErcRound {
  asked: { question: string }[];
  answers: ErcAnswer[];
  shasByName: Map<string, string[]>;
}

/** Reads questions.json with answers.json and dataset.csv beside it. */
async function readErcRound(file: string): Promise<ErcRound> {
  const dir = dirname(file);
  const answersPath = join(dir, 'answers.json');
  const datasetPath = join(dir, 'dataset.csv');
  for (const p of [file, answersPath, datasetPath])
    if (!existsSync(p))
      throw new RgeError(
        'file not found (an ERC import needs questions.json, answers.json and dataset.csv side by side)',
        { file: p },
      );
  const readJson = async (p: string) => {
    try {
      return JSON.parse(await readFile(p, 'utf8')) as unknown;
    } catch (err) {
      throw new RgeError(`invalid JSON (${(err as Error).message})`, { file: p });
    }
  };
  const asked = z.array(z.looseObject({ question: z.string() })).safeParse(await readJson(file));
  if (!asked.success) throw new RgeError('not an ERC questions list', { file });
  const answers = z.array(ErcAnswer).safeParse(await readJson(answersPath));
  if (!answers.success) throw new RgeError('not an ERC answers list', { file: answersPath });
  const shasByName = parseErcDataset(await readFile(datasetPath, 'utf8'));
  return { asked: asked.data, answers: answers.data, shasByName };
}

/** The index's chunks, and by document (sha1). */
interface IndexedDocuments {
  chunks: readonly Chunk[];
  byDoc: Map<string, Chunk[]>;
}

/** What became of one ERC question: a question, a reason to skip it, or a document not in the index. */
type ErcOutcome = { question: Question } | { skip: string } | 'not-in-index';

export async function importErc(file: string, chunks: readonly Chunk[]): Promise<ImportResult> {
  const round = await readErcRound(file);
  const docs: IndexedDocuments = { chunks, byDoc: chunksByDocument(chunks) };
  const summary = emptySummary('erc');
  const questions: Question[] = [];
  for (const [i, asked] of round.asked.entries()) {
    summary.considered++;
    const outcome = ercQuestion(i, asked.question, round, docs);
    if (outcome === 'not-in-index') summary.notInIndex++;
    else if ('skip' in outcome) summary.skipped.push({ ref: ercRef(i), reason: outcome.skip });
    else {
      const q = outcome.question;
      // each gold chunk was found by a line printing a figure: one figure quote each
      summary.quotes.figure += q.gold_chunk_ids.length;
      questions.push(q);
      summary.imported++;
      summary.byCategory[q.category]++;
    }
  }
  return { questions, summary };
}

const ercRef = (i: number) => `round1/questions.json#${i}`;

/** Question `i` of the round with the organisers' answer at the same position. */
function ercQuestion(i: number, asked: string, round: ErcRound, docs: IndexedDocuments): ErcOutcome {
  const a = round.answers[i];
  if (!a || a.question !== asked)
    return { skip: 'answers.json has no entry with the same question at this position' };
  const names = ercCompanyNames(a.question);
  const found = names.map((n) => (round.shasByName.get(n) ?? []).find((sha) => docs.byDoc.has(sha)));
  if (names.length === 0 || found.some((d) => d === undefined)) return 'not-in-index';
  const slugs = found as string[];
  const values = a.answer === null ? [] : Array.isArray(a.answer) ? a.answer : [a.answer];
  const given = values.filter((v) => typeof v === 'number' || !isNotApplicableAnswer(v));
  const naAccepted = values.length === 0 || given.length < values.length;
  const comment = a.comment ? normaliseWhitespace(a.comment) : '';
  const origin = `Imported from Enterprise RAG Challenge round 1, question ${i} (category ${a.category ?? 'none'}, answer schema ${a.schema}); companies ${names.join(', ')} = documents ${slugs.join(', ')}.${comment ? ` Organisers' comment: ${comment}` : ''}`;
  const base = {
    version: QUESTION_VERSION as typeof QUESTION_VERSION,
    id: `erc-${String(i + 1).padStart(3, '0')}`,
    text: a.question,
    companies: [...new Set(slugs)],
    fiscal_years: ercFiscalYears(a.question),
    must_include: [] as string[],
    must_not_include: [] as string[],
    distractor: null,
    source: { dataset: 'erc' as const, ref: ercRef(i) },
  };
  if (given.length === 0)
    return {
      question: outOfDomainQuestion(
        base,
        `N/A${comment ? `: ${comment}` : ': the reports do not state it'}`,
        origin,
      ),
    };

  // ERC gives no evidence pages: locate the answer's figures (or the figures the comment cites) in
  // the named documents, preferring pages the comment names.
  const figures = [
    ...new Set([
      ...given.filter((v): v is number => typeof v === 'number').flatMap(figureRenderings),
      ...commentFigures(comment),
    ]),
  ];
  const hinted = commentPages(comment);
  const { goldIds, quotes } = chunksPrintingFigures(slugs, docs.byDoc, figures, hinted);
  if (goldIds.size === 0)
    return {
      skip: `no chunk of ${slugs.join(', ')} prints the answer's figures (${figures.join('; ') || 'none'})`,
    };
  const goldChunks = docs.chunks.filter((c) => goldIds.has(c.id));
  const answerText = given.map(String).join(' or ');
  return {
    question: {
      ...base,
      category: new Set(slugs).size > 1 || !sharePage(goldChunks) ? 'grounded-multihop' : 'grounded-direct',
      gold_answer: naAccepted ? `${answerText} (the organisers also accept N/A)` : answerText,
      gold_chunk_ids: [...goldIds].sort(),
      gold_quotes: quotes,
      expected_behavior: naAccepted ? 'answer-with-caveat' : 'answer',
      difficulty: 'hard',
      authoring_notes: `${origin} ERC gives no evidence pages: the gold chunks are those that print the figures ${figures.join('; ')}${hinted.length ? ` (pages the comment names: ${hinted.join(', ')})` : ''}; quotes are the lines holding them.`,
      numeric_gold: [],
    },
  };
}

/**
 * In each named document, the first chunk that prints each figure (on the pages the comment names if
 * any chunk there prints one, else anywhere in the document), and the lines that print them.
 */
function chunksPrintingFigures(
  slugs: readonly string[],
  byDoc: Map<string, Chunk[]>,
  figures: readonly string[],
  hinted: readonly number[],
): { goldIds: Set<string>; quotes: string[] } {
  const goldIds = new Set<string>();
  const quotes: string[] = [];
  for (const slug of new Set(slugs)) {
    const docChunks = byDoc.get(slug) ?? [];
    const onHinted = docChunks.filter((c) => hinted.some((p) => c.pages[0] <= p && p <= c.pages[1]));
    for (const pool of [onHinted, docChunks]) {
      let found = false;
      for (const figure of figures)
        for (const c of pool) {
          const line = lineWithFigure(c, figure);
          if (!line || goldIds.has(c.id)) continue;
          goldIds.add(c.id);
          if (!quotes.includes(line)) quotes.push(line);
          found = true;
          break; // the first chunk that prints this figure is enough
        }
      if (found) break;
    }
  }
  return { goldIds, quotes };
}
