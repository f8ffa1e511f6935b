/**
 * What the importers of public question sets (import-financebench.ts, import-erc.ts) share: the import
 * summary, a document's chunks by page, finding a gold quote in its chunks, the out-of-domain question
 * of an N/A answer.
 */
import { sentences } from '../analysis/sentences.ts';
import type { Chunk } from '../corpus/schema.ts';
import { normaliseWhitespace } from './load.ts';
import type { Question, QuestionCategory } from './schema.ts';

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

export function emptySummary(format: ImportFormat): ImportSummary {
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

/** The fields of an imported question that come from its source record, before its gold. */
export type QuestionBase = Pick<
  Question,
  | 'version'
  | 'id'
  | 'text'
  | 'companies'
  | 'fiscal_years'
  | 'must_include'
  | 'must_not_include'
  | 'distractor'
  | 'source'
>;

/** An imported question whose gold answer is N/A: out-of-domain, to be refused. */
export function outOfDomainQuestion(base: QuestionBase, goldAnswer: string, origin: string): Question {
  return {
    ...base,
    category: 'out-of-domain',
    gold_answer: goldAnswer,
    gold_chunk_ids: [],
    gold_quotes: [],
    expected_behavior: 'refuse',
    difficulty: 'medium',
    authoring_notes: `${origin} The gold answer is N/A, so the question is out-of-domain.`,
    numeric_gold: [],
  };
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
