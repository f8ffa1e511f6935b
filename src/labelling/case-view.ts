/**
 * What the labelling and review pages are sent for one response: the case (question, expected
 * behaviour, gold answer and quotes, retrieved chunks with the cited ones and their supporting
 * sentences marked, the answer). The judges' verdicts are NOT part of it: the label server adds them
 * only once the person has labelled the item; the review page gets them from the start. In label mode
 * the subject and its model are not sent and the page shows the question id, not the item id (which
 * names the subject and serves only to post the label), so that the label is blind to the model. Pure.
 */
import type { JudgeOutcome } from '../judging/verdict.ts';
import { type AnswerPart, answerParts, type ChunkSegment, citedChunkIds, markSupport } from './evidence.ts';
import type { ValidationItem } from './schema.ts';

export interface ChunkView {
  id: string;
  company: string;
  fy: string | null;
  heading: string | null;
  pages: [number, number];
  cited: boolean;
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
  cited: string[];
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
  const cited = citedChunkIds(
    item.answer,
    item.chunks.map((c) => c.id),
  );
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
    answer_parts: answerParts(item.answer),
    cited,
    chunks: item.chunks.map((c) => {
      const isCited = cited.includes(c.id);
      return {
        id: c.id,
        company: c.company,
        fy: c.fy,
        heading: c.heading,
        pages: c.pages,
        cited: isCited,
        segments: isCited ? markSupport(c.text, item.answer) : [{ text: c.text, reason: null }],
      };
    }),
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
