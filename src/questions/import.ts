/**
 * Importing public question sets as rge questions, resolved against a built index:
 * - FinanceBench (0-indexed `evidence_page_num`; documents are PDFs named by `doc_name`, which
 *   `rge corpus ingest --pdfs` turns into company slugs);
 * - Enterprise RAG Challenge round 1 (`questions.json` with `answers.json` and `dataset.csv` beside it;
 *   PDFs are named by sha1, so a document's company slug is its sha1).
 *
 * Only questions whose documents are all in the index are imported. A gold evidence page becomes the
 * chunks of that document whose page range covers it; a gold quote is the evidence text where it
 * appears (whitespace-normalised) in one of those chunks, else its longest sentence that does, else its
 * longest run of words that does (marked in authoring_notes). N/A answers become out-of-domain.
 */

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { sentences } from '../analysis/sentences.ts';
import type { Chunk } from '../corpus/schema.ts';
import { RgeError } from '../util/errors.ts';
import {
  type FinanceBenchQuestion,
  financeBenchDocumentSlug,
  financeBenchFiscalYear,
  isNotApplicableAnswer,
  loadFinanceBench,
  parseFinanceBenchFigure,
} from './financebench.ts';
import { normaliseWhitespace } from './load.ts';
import { type NumericGold, QUESTION_VERSION, type Question, type QuestionCategory } from './schema.ts';

export type ImportFormat = 'financebench' | 'erc';
export const IMPORT_FORMATS: readonly ImportFormat[] = ['financebench', 'erc'];

/** How a gold quote was found in its chunks. */
export type QuoteMatch = 'verbatim' | 'sentence' | 'fragment' | 'figure';

export interface ImportSummary {
  format: ImportFormat;
  /** questions in the source file */
  considered: number;
  /** questions skipped because a document they need is not in the index */
  notInIndex: number;
  imported: number;
  byCategory: Record<QuestionCategory, number>;
  /** gold quotes by how they were found */
  quotes: Record<QuoteMatch, number>;
  /** evidence passages with no quote at all in their chunks (the chunks were kept) */
  evidenceWithoutQuote: number;
  /** questions of indexed documents that could not be imported, with the reason */
  skipped: { ref: string; reason: string }[];
}

export interface ImportResult {
  questions: Question[];
  summary: ImportSummary;
}

function emptySummary(format: ImportFormat): ImportSummary {
  return {
    format,
    considered: 0,
    notInIndex: 0,
    imported: 0,
    byCategory: { 'grounded-direct': 0, 'grounded-multihop': 0, adversarial: 0, 'out-of-domain': 0 },
    quotes: { verbatim: 0, sentence: 0, fragment: 0, figure: 0 },
    evidenceWithoutQuote: 0,
    skipped: [],
  };
}

/** The chunks of each document (company slug) of an index. */
export function chunksByDocument(chunks: readonly Chunk[]): Map<string, Chunk[]> {
  const byDoc = new Map<string, Chunk[]>();
  for (const c of chunks) {
    const list = byDoc.get(c.company) ?? [];
    list.push(c);
    byDoc.set(c.company, list);
  }
  return byDoc;
}

/** The chunks of a document whose 1-indexed page range covers `page`. */
export function chunksCoveringPage(docChunks: readonly Chunk[], page: number): Chunk[] {
  return docChunks.filter((c) => c.pages[0] <= page && page <= c.pages[1]);
}

const MIN_SENTENCE_WORDS = 6;
const MIN_FRAGMENT_WORDS = 5;

/** The longest run of consecutive words of `words` (at least MIN_FRAGMENT_WORDS) that appears in a text. */
function longestWordRun(words: readonly string[], texts: readonly string[]): string {
  let best = '';
  for (const t of texts) {
    for (let i = 0; i + MIN_FRAGMENT_WORDS <= words.length; i++) {
      let j = i + MIN_FRAGMENT_WORDS;
      if (!t.includes(words.slice(i, j).join(' '))) continue;
      while (j < words.length && t.includes(words.slice(i, j + 1).join(' '))) j++;
      const run = words.slice(i, j).join(' ');
      if (run.length > best.length) best = run;
    }
  }
  return best;
}

/**
 * The passage of `evidence` to cite from `chunks`, compared whitespace-normalised and case-sensitive:
 * - the whole evidence when it appears in one of them;
 * - else its longest complete sentence that does (sentences end in . ! ?; line breaks are whitespace,
 *   so a table row is not a sentence), unless a run of its words at least twice as long appears;
 * - else its longest run of words that appears (at least five words; tables usually end here);
 * null when not even five consecutive words appear.
 */
export function findGoldQuote(
  evidence: string,
  chunks: readonly Chunk[],
): { quote: string; match: Exclude<QuoteMatch, 'figure'> } | null {
  const texts = chunks.map((c) => normaliseWhitespace(c.text));
  const appears = (s: string) => texts.some((t) => t.includes(s));
  const whole = normaliseWhitespace(evidence);
  if (whole !== '' && appears(whole)) return { quote: whole, match: 'verbatim' };
  const sentence = sentences(whole)
    .filter((s) => s.split(' ').length >= MIN_SENTENCE_WORDS && /[A-Za-z]/.test(s))
    .sort((a, b) => b.length - a.length)
    .find(appears);
  const run = longestWordRun(whole.split(' '), texts);
  const runUsable = run !== '' && /[A-Za-z]/.test(run);
  if (sentence && !(runUsable && run.length >= 2 * sentence.length))
    return { quote: sentence, match: 'sentence' };
  return runUsable ? { quote: run, match: 'fragment' } : null;
}

// ---------------------------------------------------------------------------------------------
// FinanceBench

/** `financebench_id_00499` gives `fb-00499`. */
export function financeBenchQuestionId(financebenchId: string): string {
  const digits = /(\d+)$/.exec(financebenchId)?.[1];
  if (!digits) throw new RgeError(`FinanceBench id without a number: ${financebenchId}`);
  return `fb-${digits}`;
}

export async function importFinanceBench(file: string, chunks: readonly Chunk[]): Promise<ImportResult> {
  const records = await loadFinanceBench(file);
  const byDoc = chunksByDocument(chunks);
  const summary = emptySummary('financebench');
  const questions: Question[] = [];
  for (const q of records) {
    summary.considered++;
    const docs = [...new Set([q.doc_name, ...q.evidence.map((e) => e.doc_name)])];
    if (docs.some((d) => !byDoc.has(financeBenchDocumentSlug(d)))) {
      summary.notInIndex++;
      continue;
    }
    const converted = convertFinanceBench(q, byDoc, summary);
    if ('skip' in converted) summary.skipped.push({ ref: q.financebench_id, reason: converted.skip });
    else {
      questions.push(converted.question);
      summary.imported++;
      summary.byCategory[converted.question.category]++;
    }
  }
  return { questions, summary };
}

function convertFinanceBench(
  q: FinanceBenchQuestion,
  byDoc: Map<string, Chunk[]>,
  summary: ImportSummary,
): { question: Question } | { skip: string } {
  const companies = [...new Set([q.doc_name, ...q.evidence.map((e) => e.doc_name)])].map(
    financeBenchDocumentSlug,
  );
  const fiscalYears = [
    ...new Set(
      [q.doc_name, ...q.evidence.map((e) => e.doc_name)]
        .map(financeBenchFiscalYear)
        .filter((fy): fy is string => fy !== null),
    ),
  ];
  const base = {
    version: QUESTION_VERSION as typeof QUESTION_VERSION,
    id: financeBenchQuestionId(q.financebench_id),
    text: q.question,
    companies,
    fiscal_years: fiscalYears,
    must_include: [] as string[],
    must_not_include: [] as string[],
    distractor: null,
    source: { dataset: 'financebench' as const, ref: q.financebench_id },
  };
  const origin = `Imported from FinanceBench ${q.financebench_id} (${q.question_type ?? 'no question_type'}${
    typeof q.question_reasoning === 'string' ? `; ${q.question_reasoning}` : ''
  }), document ${q.doc_name}.`;

  if (isNotApplicableAnswer(q.answer)) {
    return {
      question: {
        ...base,
        category: 'out-of-domain',
        gold_answer: `FinanceBench gives no answer (${JSON.stringify(q.answer)}): the document does not support one.`,
        gold_chunk_ids: [],
        gold_quotes: [],
        expected_behavior: 'refuse',
        difficulty: 'medium',
        authoring_notes: `${origin} The gold answer is N/A, so the question is out-of-domain.`,
        numeric_gold: [],
      },
    };
  }

  const goldIds = new Set<string>();
  const quotes: string[] = [];
  const notes: string[] = [];
  const pagesSeen = new Set<string>();
  for (const [i, e] of q.evidence.entries()) {
    const slug = financeBenchDocumentSlug(e.doc_name);
    const page = e.evidence_page_num + 1;
    pagesSeen.add(`${slug}:${page}`);
    const covering = chunksCoveringPage(byDoc.get(slug) ?? [], page);
    if (covering.length === 0) {
      notes.push(`evidence ${i + 1} (${e.doc_name} p. ${page}): no chunk covers the page.`);
      continue;
    }
    for (const c of covering) goldIds.add(c.id);
    const found = findGoldQuote(e.evidence_text, covering);
    if (!found) {
      summary.evidenceWithoutQuote++;
      notes.push(
        `evidence ${i + 1} (${e.doc_name} p. ${page}): no passage of the evidence appears verbatim in the page's chunks; chunks kept without a quote.`,
      );
      continue;
    }
    summary.quotes[found.match]++;
    if (!quotes.includes(found.quote)) quotes.push(found.quote);
    if (found.match !== 'verbatim')
      notes.push(
        `evidence ${i + 1} (${e.doc_name} p. ${page}): the whole evidence text is not verbatim in the chunks; quoted its longest ${found.match === 'sentence' ? 'complete sentence' : 'run of words'} that is.`,
      );
  }
  if (goldIds.size === 0) return { skip: 'no chunk covers any evidence page' };
  if (quotes.length === 0) return { skip: 'no evidence passage appears in the chunks of its pages' };

  const figure = parseFinanceBenchFigure(q.answer ?? '', q.question);
  const numeric: NumericGold[] = figure
    ? [{ label: 'FinanceBench gold answer', value: figure.value, unit: figure.unit, tolerance: 0.01 }]
    : [];
  const multihop = pagesSeen.size > 1;
  const pagesNote = `Evidence pages (1-indexed): ${[...pagesSeen].join(', ')}.`;
  const justification =
    typeof q.justification === 'string' && q.justification.trim() !== ''
      ? ` Justification: ${normaliseWhitespace(q.justification)}`
      : '';
  return {
    question: {
      ...base,
      category: multihop ? 'grounded-multihop' : 'grounded-direct',
      gold_answer: q.answer ?? '',
      gold_chunk_ids: [...goldIds].sort(),
      gold_quotes: quotes,
      expected_behavior: 'answer',
      difficulty: multihop ? 'hard' : q.question_type === 'metrics-generated' ? 'medium' : 'easy',
      authoring_notes: [origin, pagesNote, ...notes].join(' ') + justification,
      numeric_gold: numeric,
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Enterprise RAG Challenge round 1

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
  for (const [i, line] of csv.split(/\r?\n/).entries()) {
    if (i === 0 || line.trim() === '') continue;
    const fields: string[] = [];
    let cur = '';
    let quoted = false;
    for (let k = 0; k < line.length; k++) {
      const ch = line[k] as string;
      if (quoted) {
        if (ch === '"' && line[k + 1] === '"') {
          cur += '"';
          k++;
        } else if (ch === '"') quoted = false;
        else cur += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === ',') {
        fields.push(cur);
        cur = '';
      } else cur += ch;
    }
    fields.push(cur);
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
function commentFigures(comment: string): string[] {
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

export async function importErc(file: string, chunks: readonly Chunk[]): Promise<ImportResult> {
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
  const byDoc = chunksByDocument(chunks);
  const summary = emptySummary('erc');
  const questions: Question[] = [];

  for (const [i, asked1] of asked.data.entries()) {
    summary.considered++;
    const ref = `round1/questions.json#${i}`;
    const a = answers.data[i];
    if (!a || a.question !== asked1.question) {
      summary.skipped.push({
        ref,
        reason: 'answers.json has no entry with the same question at this position',
      });
      continue;
    }
    const names = ercCompanyNames(a.question);
    const docs = names.map((n) => (shasByName.get(n) ?? []).find((sha) => byDoc.has(sha)));
    if (names.length === 0 || docs.some((d) => d === undefined)) {
      summary.notInIndex++;
      continue;
    }
    const slugs = docs as string[];
    const values = a.answer === null ? [] : Array.isArray(a.answer) ? a.answer : [a.answer];
    const given = values.filter((v) => typeof v === 'number' || !isNotApplicableAnswer(v));
    const naAccepted = values.length === 0 || given.length < values.length;
    const id = `erc-${String(i + 1).padStart(3, '0')}`;
    const comment = a.comment ? normaliseWhitespace(a.comment) : '';
    const origin = `Imported from Enterprise RAG Challenge round 1, question ${i} (category ${a.category ?? 'none'}, answer schema ${a.schema}); companies ${names.join(', ')} = documents ${slugs.join(', ')}.${comment ? ` Organisers' comment: ${comment}` : ''}`;
    const base = {
      version: QUESTION_VERSION as typeof QUESTION_VERSION,
      id,
      text: a.question,
      companies: [...new Set(slugs)],
      fiscal_years: ercFiscalYears(a.question),
      must_include: [] as string[],
      must_not_include: [] as string[],
      distractor: null,
      source: { dataset: 'erc' as const, ref },
    };
    if (given.length === 0) {
      const q: Question = {
        ...base,
        category: 'out-of-domain',
        gold_answer: `N/A${comment ? `: ${comment}` : ': the reports do not state it'}`,
        gold_chunk_ids: [],
        gold_quotes: [],
        expected_behavior: 'refuse',
        difficulty: 'medium',
        authoring_notes: `${origin} The gold answer is N/A, so the question is out-of-domain.`,
        numeric_gold: [],
      };
      questions.push(q);
      summary.imported++;
      summary.byCategory[q.category]++;
      continue;
    }

    // ERC gives no evidence pages: locate the answer's figures (or the figures the comment cites) in
    // the named documents, preferring pages the comment names.
    const figures = [
      ...new Set([
        ...given.filter((v): v is number => typeof v === 'number').flatMap(figureRenderings),
        ...commentFigures(comment),
      ]),
    ];
    const hinted = commentPages(comment);
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
            summary.quotes.figure++;
            found = true;
            break; // the first chunk that prints this figure is enough
          }
        if (found) break;
      }
    }
    if (goldIds.size === 0) {
      summary.skipped.push({
        ref,
        reason: `no chunk of ${slugs.join(', ')} prints the answer's figures (${figures.join('; ') || 'none'})`,
      });
      continue;
    }
    const goldChunks = chunks.filter((c) => goldIds.has(c.id));
    const answerText = given.map(String).join(' or ');
    const q: Question = {
      ...base,
      category: new Set(slugs).size > 1 || !sharePage(goldChunks) ? 'grounded-multihop' : 'grounded-direct',
      gold_answer: naAccepted ? `${answerText} (the organisers also accept N/A)` : answerText,
      gold_chunk_ids: [...goldIds].sort(),
      gold_quotes: quotes,
      expected_behavior: naAccepted ? 'answer-with-caveat' : 'answer',
      difficulty: 'hard',
      authoring_notes: `${origin} ERC gives no evidence pages: the gold chunks are those that print the figures ${figures.join('; ')}${hinted.length ? ` (pages the comment names: ${hinted.join(', ')})` : ''}; quotes are the lines holding them.`,
      numeric_gold: [],
    };
    questions.push(q);
    summary.imported++;
    summary.byCategory[q.category]++;
  }
  return { questions, summary };
}

export async function importQuestions(
  format: ImportFormat,
  file: string,
  chunks: readonly Chunk[],
): Promise<ImportResult> {
  return format === 'financebench' ? importFinanceBench(file, chunks) : importErc(file, chunks);
}

/** One summary paragraph for the CLI. */
export function formatImportSummary(s: ImportSummary, out: string): string {
  const cats = Object.entries(s.byCategory)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');
  const lines = [
    `${s.format}: ${s.considered} questions, ${s.notInIndex} skipped (document not in the index), ${s.imported} imported to ${out}`,
    `  ${cats}`,
    `  gold quotes: ${s.quotes.verbatim} whole evidence verbatim, ${s.quotes.sentence} longest evidence sentence, ${s.quotes.fragment} longest run of evidence words (tables, mostly), ${s.quotes.figure} line printing the answer's figure; ${s.evidenceWithoutQuote} evidence passage(s) with no quote (noted in authoring_notes)`,
    ...s.skipped.map((k) => `  skipped ${k.ref}: ${k.reason}`),
  ];
  return `${lines.join('\n')}\n`;
}
