/**
 * FinanceBench (Islam et al. 2023, patronus-ai/financebench) question records. Evidence pages are
 * 0-indexed in the source files; rge pages are 1-indexed, so `evidencePages` adds one.
 */
import { z } from 'zod';
import { readJsonl } from '../util/jsonl.ts';

export const FinanceBenchEvidence = z.looseObject({
  evidence_text: z.string(),
  doc_name: z.string(),
  evidence_page_num: z.number().int().nonnegative(),
});

export const FinanceBenchQuestion = z.looseObject({
  financebench_id: z.string(),
  company: z.string(),
  doc_name: z.string(),
  question_type: z.string().optional(),
  question: z.string(),
  answer: z.string().nullable(),
  evidence: z.array(FinanceBenchEvidence),
});
export type FinanceBenchQuestion = z.infer<typeof FinanceBenchQuestion>;

export async function loadFinanceBench(path: string): Promise<FinanceBenchQuestion[]> {
  return (await readJsonl(path, FinanceBenchQuestion)).map((r) => r.value);
}

/** The 1-indexed pages of a question's evidence in its own document. */
export function evidencePages(q: FinanceBenchQuestion): number[] {
  return [
    ...new Set(q.evidence.filter((e) => e.doc_name === q.doc_name).map((e) => e.evidence_page_num + 1)),
  ];
}
