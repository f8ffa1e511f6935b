/**
 * Reading the logged cases of a window (DIR/cases.jsonl, one `TraceCase` a line, as `rge traces import`
 * writes it) and drawing a seeded sample of them stratified by a field the user names (route, tenant,
 * day): each stratum gets its share of N in proportion to its size (largest remainder), drawn after a
 * seeded shuffle (seedrandom), the file's order kept (`stratifiedSample`, src/util/shuffle.ts).
 */
import seedrandom from 'seedrandom';
import { z } from 'zod';
import { UsageError } from '../util/errors.ts';
import { readJsonl } from '../util/jsonl.ts';
import { stratifiedSample } from '../util/shuffle.ts';
import { TraceCase } from './case.ts';

/** A logged case with its question id in the window: `trace-00001` for the file's first case, and so on. */
export interface NumberedCase {
  questionId: string;
  /** the case's line in cases.jsonl */
  line: number;
  case: TraceCase;
}

/**
 * The question id of the file's i-th case (0-based): `trace-` and five or more digits, so that it fits
 * rge's question ids (`^[a-z]+-\d+$`) whatever the trace id; the trace id stays in the record.
 */
export function traceQuestionId(i: number): string {
  return `trace-${String(i + 1).padStart(5, '0')}`;
}

/** The cases of a cases.jsonl, numbered in file order; a bad line is an error naming the file and line. */
export async function readTraceCases(file: string): Promise<NumberedCase[]> {
  const records = await readJsonl(file, TraceCase);
  return records.map((r, i) => ({ questionId: traceQuestionId(i), line: r.line, case: r.value }));
}

/** A case's value of the stratifying field; a case without it is in the stratum `(none)`. */
export const NO_STRATUM = '(none)';
const stratumOf = (field: string) => (c: NumberedCase) => c.case.fields[field] ?? NO_STRATUM;

/** How a sample was drawn, recorded in the summary so that it can be drawn again. */
export const TraceSample = z.strictObject({
  n: z.number().int().positive(),
  stratify: z.string().nullable(),
  seed: z.string(),
  /** per stratum (in order of first appearance): the cases in the file and in the sample */
  strata: z.array(z.strictObject({ value: z.string(), cases: z.number().int(), sampled: z.number().int() })),
});
export type TraceSample = z.infer<typeof TraceSample>;

/**
 * A seeded sample of `n` cases stratified by `stratify` (one stratum of all when null), in file order;
 * all of them when n is at least their number.
 */
export function sampleCases(
  cases: readonly NumberedCase[],
  opts: { n: number; stratify: string | null; seed: string },
): { cases: NumberedCase[]; sample: TraceSample } {
  if (!(Number.isInteger(opts.n) && opts.n > 0))
    throw new UsageError(`--sample must be a positive integer, got ${opts.n}`);
  const groupOf = opts.stratify === null ? () => 'all' : stratumOf(opts.stratify);
  const chosen = stratifiedSample(cases, opts.n, seedrandom(opts.seed), groupOf);
  const strata = new Map<string, { value: string; cases: number; sampled: number }>();
  for (const c of cases) {
    const value = groupOf(c);
    const s = strata.get(value) ?? { value, cases: 0, sampled: 0 };
    s.cases++;
    strata.set(value, s);
  }
  for (const c of chosen) (strata.get(groupOf(c)) as { sampled: number }).sampled++;
  return { cases: chosen, sample: { ...opts, strata: [...strata.values()] } };
}
