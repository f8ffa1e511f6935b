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
import {
  chunksByDocument,
  chunksCoveringPage,
  emptySummary,
  findGoldQuote,
  type ImportResult,
  type ImportSummary,
  outOfDomainQuestion,
} from './import-common.ts';
import { normaliseWhitespace } from './load.ts';
import { type NumericGold, QUESTION_VERSION, type Question } from './schema.ts';

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
  const { base, origin } = financeBenchBase(q);
  if (isNotApplicableAnswer(q.answer)) {
    return {
      question: outOfDomainQuestion(
        base,
        `FinanceBench gives no answer (${JSON.stringify(q.answer)}): the document does not support one.`,
        origin,
      ),
    };
  }
  const { goldIds, quotes, notes, pagesSeen } = evidenceGold(q, byDoc, summary);
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

/** The fields of a FinanceBench question that do not depend on its answer, and where it came from. */
function financeBenchBase(q: FinanceBenchQuestion) {
  const documents = [q.doc_name, ...q.evidence.map((e) => e.doc_name)];
  const base = {
    version: QUESTION_VERSION as typeof QUESTION_VERSION,
    id: financeBenchQuestionId(q.financebench_id),
    text: q.question,
    companies: [...new Set(documents)].map(financeBenchDocumentSlug),
    fiscal_years: [
      ...new Set(documents.map(financeBenchFiscalYear).filter((fy): fy is string => fy !== null)),
    ],
    must_include: [] as string[],
    must_not_include: [] as string[],
    distractor: null,
    source: { dataset: 'financebench' as const, ref: q.financebench_id },
  };
  const origin = `Imported from FinanceBench ${q.financebench_id} (${q.question_type ?? 'no question_type'}${
    typeof q.question_reasoning === 'string' ? `; ${q.question_reasoning}` : ''
  }), document ${q.doc_name}.`;
  return { base, origin };
}

/**
 * Each evidence page's chunks (gold), and the passage of its evidence text they hold (the quote):
 * verbatim, else its longest sentence or run of words there; notes on the evidence that has none.
 */
function evidenceGold(q: FinanceBenchQuestion, byDoc: Map<string, Chunk[]>, summary: ImportSummary) {
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
  return { goldIds, quotes, notes, pagesSeen };
}

// ---------------------------------------------------------------------------------------------
// Enterprise RAG Challenge round 1
