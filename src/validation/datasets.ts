/**
 * The human-labelled datasets judges are measured against: their formats, label sets, what each
 * measures, the shape of a labelled item, the judge's label for a verdict, and what every reader shares
 * (JSON lines, schema errors with file and line, a chunk of reference text, a judge input). One reader
 * per format: attributionbench.ts, salad.ts, financebench.ts.
 *
 * An unscored verdict is left out of the table and counted apart, never mapped to a label.
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { JudgeVerdict } from '../judging/verdict.ts';
import type { ContextChunk, JudgeInput } from '../providers/types.ts';
import { RgeError } from '../util/errors.ts';

export const AGREEMENT_FORMATS = ['attributionbench', 'financebench', 'salad'] as const;
export type AgreementFormat = (typeof AGREEMENT_FORMATS)[number];

/** The label set of each format, in the order of the confusion matrix's rows and columns. */
export const FORMAT_LABELS: Record<AgreementFormat, readonly string[]> = {
  attributionbench: ['not attributable', 'attributable'],
  salad: ['not supported', 'supported'],
  financebench: ['Correct Answer', 'Incorrect Answer', 'Refusal'],
};

/**
 * Whether a format's labels are ordered (then its agreement is also read on the ordinal scale:
 * quadratic-weighted kappa, ordinal alpha). FinanceBench's Correct / Incorrect / Refusal are not.
 */
export const FORMAT_ORDERED: Record<AgreementFormat, boolean> = {
  attributionbench: true,
  salad: true,
  financebench: false,
};

/** What each format measures, for the report. */
export const FORMAT_DIMENSION: Record<AgreementFormat, string> = {
  attributionbench: 'grounding',
  salad: 'grounding',
  financebench: 'correctness and refusal',
};

/** What a dataset's subsets are, for the report. */
export const FORMAT_SUBSET: Record<AgreementFormat, string> = {
  attributionbench: 'source dataset',
  salad: 'setting',
  financebench: 'eval mode',
};

/**
 * One labelled case: the judge's input, the people's label (an index into FORMAT_LABELS) and the
 * subset of the dataset it belongs to (see FORMAT_SUBSET).
 */
export interface AgreementItem {
  id: string;
  input: JudgeInput;
  human: number;
  subset: string;
}

/**
 * The judge's label (an index into FORMAT_LABELS) for a verdict, from the verdict alone.
 * FinanceBench (every question answerable): Refusal when calibration is 0 (the rubric's over-refusal),
 * else Correct when correctness is 2, else Incorrect. AttributionBench and SALAD: supported when
 * grounding >= 1.
 */
export function verdictLabel(format: AgreementFormat, verdict: JudgeVerdict): number {
  if (format === 'financebench') {
    if (verdict.calibration.score === 0) return 2;
    return verdict.correctness.score === 2 ? 0 : 1;
  }
  return verdict.grounding.score >= 1 ? 1 : 0;
}

/** A dataset's reference text as a retrieved chunk (no company, year or pages unless given). */
export function referenceChunk(id: string, text: string, extra: Partial<ContextChunk> = {}): ContextChunk {
  return { id, company: '', fy: null, heading: null, pages: [1, 1], text, ...extra };
}

/** The judge input of a labelled item (expected behaviour `answer`, no gold unless the reader adds it). */
export function labelledInput(
  id: string,
  question: string,
  category: string,
  answer: string,
  chunks: ContextChunk[],
): JudgeInput {
  return {
    kind: 'judge',
    questionId: id,
    question,
    category,
    expectedBehavior: 'answer',
    goldAnswer: '',
    goldQuotes: [],
    numericGold: [],
    chunks,
    answer,
  };
}

/** The JSON values of a JSONL text with their line numbers (a bad line is an error naming file and line). */
export function jsonLines(text: string, file: string): { line: number; value: unknown }[] {
  const out: { line: number; value: unknown }[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    if (raw.trim() === '') continue;
    try {
      out.push({ line: i + 1, value: JSON.parse(raw) });
    } catch (err) {
      throw new RgeError(`invalid JSON (${(err as Error).message})`, { file, line: i + 1 });
    }
  }
  return out;
}

/** `schema` parsed out of `value`, or an error naming the field, the file and the line. */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  file: string,
  line?: number,
): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new RgeError(`${issue?.path.map(String).join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`, {
    file,
    ...(line === undefined ? {} : { line }),
  });
}

/** The subset of an item whose source the file does not name. */
export const UNNAMED_SUBSET = 'unspecified';

/**
 * A deterministic subsample of `n` items: those whose sha256(id) sorts first, in their original order.
 * The same file and n always give the same items, independent of the file's order.
 */
export function deterministicSample<T extends { id: string }>(items: readonly T[], n: number): T[] {
  if (n >= items.length) return [...items];
  const hash = (id: string) => createHash('sha256').update(id).digest('hex');
  const keep = new Set(
    items
      .map((item, i) => ({ i, key: hash(`${item.id}#${i}`) }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i))
      .slice(0, n)
      .map((x) => x.i),
  );
  return items.filter((_, i) => keep.has(i));
}
