/**
 * FinanceBench (patronus-ai/financebench answers): the question, gold answer and evidence pages of
 * `financebench_open_source.jsonl`, expected behaviour `answer` (every FinanceBench question is
 * answerable); the subset is the eval mode (the answers file name after the model, `_reverse` kept).
 * People: Correct Answer / Incorrect Answer / Refusal. Judge, from the verdict alone: Refusal when
 * calibration is 0 (on an answerable question the rubric's calibration 0 is "declines a question the
 * chunks answer", and "a wrong figure stated plainly loses correctness, not calibration"), else Correct
 * when correctness is 2, else Incorrect (the rubric's 1, "partly correct", is not the people's "Correct
 * Answer").
 */
import { basename } from 'node:path';
import { z } from 'zod';
import { parseFinanceBenchFigure } from '../questions/financebench.ts';
import { RgeError } from '../util/errors.ts';
import {
  type AgreementItem,
  FORMAT_LABELS,
  jsonLines,
  labelledInput,
  parseWith,
  referenceChunk,
} from './datasets.ts';

const FinanceBenchAnswerRow = z.looseObject({
  financebench_id: z.string(),
  model_name: z.string().optional(),
  eval_mode: z.string().optional(),
  question: z.string().optional(),
  gold_answer: z.union([z.string(), z.number()]).nullable(),
  model_answer: z.union([z.string(), z.number()]).nullable(),
  label: z.enum(['Correct Answer', 'Incorrect Answer', 'Refusal']),
});
const FinanceBenchQuestionRow = z.looseObject({
  financebench_id: z.string(),
  company: z.string(),
  doc_name: z.string(),
  question: z.string(),
  answer: z.string().nullable(),
  evidence: z.array(
    z.looseObject({ evidence_text: z.string(), doc_name: z.string(), evidence_page_num: z.number() }),
  ),
});

/**
 * The eval mode of a FinanceBench answers file: the file name after the model
 * (`gpt-4-1106-preview_oracle_reverse.jsonl`: oracle_reverse); else the row's `eval_mode`; else the stem.
 */
export function financeBenchMode(file: string, modelName?: string, evalMode?: string): string {
  const stem = basename(file).replace(/\.jsonl$/i, '');
  if (modelName && stem.startsWith(`${modelName}_`) && stem.length > modelName.length + 1)
    return stem.slice(modelName.length + 1);
  return evalMode || stem;
}

/**
 * FinanceBench answers (one labelled file, or several concatenated) judged against the questions,
 * gold answers and evidence of `financebench_open_source.jsonl`; the subset is the eval mode.
 */
export function financeBenchItems(
  answers: readonly { text: string; file: string }[],
  questionsText: string,
  questionsFile: string,
): AgreementItem[] {
  const questions = new Map(
    jsonLines(questionsText, questionsFile).map(({ line, value }) => {
      const q = parseWith(FinanceBenchQuestionRow, value, questionsFile, line);
      return [q.financebench_id, q] as const;
    }),
  );
  const items: AgreementItem[] = [];
  for (const { text, file } of answers)
    for (const { line, value } of jsonLines(text, file)) {
      const row = parseWith(FinanceBenchAnswerRow, value, file, line);
      const q = questions.get(row.financebench_id);
      if (!q) throw new RgeError(`${row.financebench_id} is not in ${questionsFile}`, { file, line });
      const gold = row.gold_answer === null ? (q.answer ?? '') : String(row.gold_answer);
      const question = row.question ?? q.question;
      const figure = parseFinanceBenchFigure(gold, question);
      const chunks = q.evidence.map((e, i) =>
        referenceChunk(`${e.doc_name}-p${e.evidence_page_num + 1}-${i + 1}`, e.evidence_text, {
          company: q.company,
          pages: [e.evidence_page_num + 1, e.evidence_page_num + 1],
        }),
      );
      const id = `${row.financebench_id}:${row.model_name ?? ''}:${row.eval_mode ?? ''}:${line}`;
      items.push({
        id,
        input: {
          ...labelledInput(
            row.financebench_id,
            question,
            'financebench',
            row.model_answer === null ? '' : String(row.model_answer),
            chunks,
          ),
          goldAnswer: gold,
          // the evidence pages are the gold evidence (and the chunks): the judges see it is there
          goldQuotes: q.evidence.map((e) => e.evidence_text),
          numericGold: figure
            ? [{ label: 'gold answer', value: figure.value, unit: figure.unit, tolerance: 0.01 }]
            : [],
        },
        human: FORMAT_LABELS.financebench.indexOf(row.label),
        subset: financeBenchMode(file, row.model_name, row.eval_mode),
      });
    }
  return items;
}
