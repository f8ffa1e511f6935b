/**
 * FinanceBench (Islam et al. 2023, patronus-ai/financebench) question records. Evidence pages are
 * 0-indexed in the source files; rge pages are 1-indexed, so `evidencePages` adds one.
 */
import { z } from 'zod';
import { documentIdentity, fiscalYearFromName } from '../corpus/naming.ts';
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

/** The company slug `rge corpus ingest --pdfs` gives a FinanceBench document (its PDF's file name stem). */
export function financeBenchDocumentSlug(docName: string): string {
  return documentIdentity(`${docName}.pdf`).company;
}

/** The fiscal year a FinanceBench document name states (3M_2018_10K gives FY18), or null. */
export function financeBenchFiscalYear(docName: string): string | null {
  return fiscalYearFromName(`${docName}.pdf`);
}

/** A gold answer that says the question cannot be answered: null, empty, "N/A", "n/a", "NA". */
export function isNotApplicableAnswer(answer: string | null | undefined): boolean {
  if (answer === null || answer === undefined) return true;
  return /^(?:n\/?a\.?|none|)$/i.test(answer.trim());
}

/** A FinanceBench answer read as a figure with one of rge's units. */
export interface FinanceBenchFigure {
  value: number;
  unit: '%' | 'USD million';
}

/**
 * Reads an answer that is a figure ("$1577.00", "24.26%", "-$0.4 billion", "1,577") as a value with a
 * unit, using the question's "(in USD millions)" / "USD billions" when the answer has no scale. Returns
 * null for prose answers, and for dollar figures whose scale is unknown (per-share amounts, ratios),
 * which rge's units cannot state.
 */
export function parseFinanceBenchFigure(answer: string, question: string): FinanceBenchFigure | null {
  const m =
    /^\s*(-)?\s*\$?\s*(\()?\s*(-)?\s*\$?\s*(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)\s*\)?\s*(%|percent|million|billion|thousand|mn|bn)?\s*\.?\s*$/i.exec(
      answer,
    );
  if (!m) return null;
  const negative = Boolean(m[1] || m[2] || m[3]);
  const value = Number((m[4] as string).replace(/,/g, '')) * (negative ? -1 : 1);
  if (!Number.isFinite(value)) return null;
  const scale = (m[5] ?? '').toLowerCase();
  if (scale === '%' || scale === 'percent') return { value, unit: '%' };
  if (scale === 'million' || scale === 'mn') return { value, unit: 'USD million' };
  if (scale === 'billion' || scale === 'bn') return { value: value * 1000, unit: 'USD million' };
  if (scale === 'thousand') return { value: value / 1000, unit: 'USD million' };
  if (/\bUSD\s*millions?\b|\bin millions\b|\$\s*millions?\b/i.test(question))
    return { value, unit: 'USD million' };
  if (/\bUSD\s*billions?\b|\bin billions\b|\$\s*billions?\b/i.test(question))
    return { value: value * 1000, unit: 'USD million' };
  if (/\bpercent(?:age)?\b|%/i.test(question) && !answer.includes('$')) return { value, unit: '%' };
  return null;
}
