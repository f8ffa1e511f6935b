/**
 * What the labelling and review pages are sent for one response: the case (question, expected
 * behaviour, gold answer and quotes, the answer, the retrieved chunks with the cited ones first and
 * their supporting sentences marked, the gold quotes marked in every chunk, each chunk's best line for
 * its collapsed view). The judges' verdicts are NOT part of it: the label server adds them only once
 * the person has labelled the item; the review page gets them from the start. In label mode the
 * subject and its model are not sent and the page shows the question id, not the item id (which names
 * the subject and serves only to post the label), so that the label is blind to the model. Pure.
 */
import type { JudgeOutcome } from '../judging/verdict.ts';
import {
  type AnswerPart,
  answerParts,
  bestLine,
  type ChunkSegment,
  citedChunkIds,
  goldSpans,
  markChunk,
} from './evidence.ts';
import type { ValidationItem } from './schema.ts';

export interface ChunkView {
  id: string;
  /** its place in the retrieval, 1 = top */
  rank: number;
  company: string;
  fy: string | null;
  heading: string | null;
  pages: [number, number];
  /** a system's own passage: the document it names */
  source?: string;
  cited: boolean;
  /** the chunk holds (part of) a gold quote */
  gold: boolean;
  /** the line its collapsed view shows (`bestLine`) */
  best: string | null;
  /** the text reflowed for reading, marked: support (cited chunks only) and gold quotes */
  segments: ChunkSegment[];
}

export interface CaseView {
  index: number;
  item_id: string;
  question_id: string;
  category: string;
  expected_behavior: string;
  question: string;
  gold_answer: string;
  gold_quotes: string[];
  answer: string;
  answer_parts: AnswerPart[];
  /** the retrieved chunks the answer cites, in the order it first cites them */
  cited: string[];
  /** cited chunks first (in `cited` order), then the others in retrieval order */
  chunks: ChunkView[];
}

export interface ContestedCaseView extends CaseView {
  subject_id: string;
  model: string;
  contested_dimensions: string[];
  verdicts: JudgeOutcome[];
}

/** The case view of an item (no verdicts). */
export function caseView(item: ValidationItem, index: number): CaseView {
  const parts = answerParts(item.answer);
  const retrieved = citedChunkIds(
    item.answer,
    item.chunks.map((c) => c.id),
  );
  const firstCite = (id: string) => parts.findIndex((p) => p.cite === id);
  const cited = [...retrieved].sort((a, b) => firstCite(a) - firstCite(b));
  const chunks = item.chunks.map((c, i): ChunkView => {
    const isCited = cited.includes(c.id);
    return {
      id: c.id,
      rank: i + 1,
      company: c.company,
      fy: c.fy,
      heading: c.heading,
      pages: c.pages,
      ...(c.source !== undefined ? { source: c.source } : {}),
      cited: isCited,
      gold: goldSpans(c.text, item.gold_quotes).length > 0,
      best: bestLine(c.text, item.question, item.gold_quotes),
      segments: markChunk(c.text, {
        answer: isCited ? item.answer : null,
        goldQuotes: item.gold_quotes,
        reflow: true,
      }),
    };
  });
  const order = (c: ChunkView) => (c.cited ? cited.indexOf(c.id) : cited.length + c.rank);
  return {
    index,
    item_id: item.item_id,
    question_id: item.question_id,
    category: item.category,
    expected_behavior: item.expected_behavior,
    question: item.question,
    gold_answer: item.gold_answer,
    gold_quotes: item.gold_quotes,
    answer: item.answer,
    answer_parts: parts,
    cited,
    chunks: chunks.sort((a, b) => order(a) - order(b)),
  };
}

/** The review view of a contested item: the case, the subject, and both verdicts from the start. */
export function reviewView(
  item: ValidationItem,
  index: number,
  contestedDimensions: readonly string[],
): ContestedCaseView {
  return {
    ...caseView(item, index),
    subject_id: item.subject_id,
    model: item.model,
    contested_dimensions: [...contestedDimensions],
    verdicts: item.verdicts,
  };
}
