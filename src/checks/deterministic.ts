/**
 * The deterministic checks of one response. Each returns { name, passed, detail } with passed null when
 * the check does not apply. Pure functions; no I/O.
 */
import { citationMarkers, splitClaims } from '../analysis/claims.ts';
import type { DerivableGold } from '../analysis/derivation.ts';
import { extractQuantities, type Quantity, sameQuantity, withinRelative } from '../analysis/numbers.ts';
import { isRefusal } from '../analysis/refusal.ts';
import type { ContextChunk } from '../providers/types.ts';
import type { Question } from '../questions/schema.ts';
import type { CheckResult } from './schema.ts';
import { TRACE_TOLERANCE, traceQuantities } from './trace.ts';

const list = (items: readonly string[], max = 5): string =>
  items.length <= max
    ? items.join('; ')
    : `${items.slice(0, max).join('; ')}; and ${items.length - max} more`;

/**
 * numbersTraced: every quantity in the answer appears in the retrieved chunks (same quantity within ±1%
 * after scaling), or is derived (trace.ts): the question's recorded derivation over figures the chunks
 * print (`golds`: its numeric gold), or one step from the answer's own traced figures. n/a without numbers.
 */
export function numbersTraced(
  answer: string,
  chunks: readonly ContextChunk[],
  golds: readonly DerivableGold[] = [],
): CheckResult {
  const traces = traceQuantities(answer, chunks, TRACE_TOLERANCE, golds);
  if (traces.length === 0)
    return { name: 'numbersTraced', passed: null, detail: 'the answer states no figures' };
  const untraced = traces.filter((t) => t.how === null).map((t) => t.quantity.raw);
  const derived = traces.filter((t) => t.how === 'derived').map((t) => `${t.quantity.raw} = ${t.derivation}`);
  const traced = traces.length - untraced.length;
  let detail = `${traced}/${traces.length} figures traced to the retrieved chunks`;
  if (derived.length > 0) detail += `; derived: ${list(derived)}`;
  if (untraced.length > 0) detail += `; not found: ${list(untraced)}`;
  return { name: 'numbersTraced', passed: untraced.length === 0, detail };
}

/**
 * citationsResolve: every [id] in the answer is one of the retrieved chunk ids. An answer that makes
 * claims but cites nothing fails; a refusal without citations (even one that explains itself) is n/a.
 */
export function citationsResolve(answer: string, chunks: readonly ContextChunk[]): CheckResult {
  const markers = citationMarkers(answer);
  const name = 'citationsResolve';
  if (markers.length === 0) {
    if (isRefusal(answer)) return { name, passed: null, detail: 'a refusal: nothing to cite' };
    const claims = splitClaims(answer).length;
    return claims > 0
      ? { name, passed: false, detail: `the answer makes ${claims} claim(s) but cites no chunk` }
      : { name, passed: null, detail: 'no claims and no citations' };
  }
  const retrieved = new Set(chunks.map((c) => c.id));
  const unresolved = [...new Set(markers.filter((id) => !retrieved.has(id)))];
  if (unresolved.length > 0)
    return { name, passed: false, detail: `cites chunks that were not retrieved: ${list(unresolved)}` };
  return { name, passed: true, detail: `all ${markers.length} citation(s) resolve to retrieved chunks` };
}

/** Case- and whitespace-insensitive text, for comparing phrases. */
export function normaliseText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The needle as a single figure, when it is one ("9,00,122.00", "Rs 2.50", "5,88,592 tCO2e", "27.0%"). */
export function needleQuantity(needle: string): Quantity | null {
  const found = extractQuantities(needle);
  if (found.length !== 1) return null;
  const q = found[0] as Quantity;
  const rest = needle.slice(0, q.start) + needle.slice(q.end);
  return /[\p{L}\p{N}]/u.test(rest) ? null : q;
}

/**
 * Whether an answer figure states the needle figure. A needle with a unit or scale word compares as
 * quantities (`sameQuantity`). A bare needle ("9,00,122.00", as must_include lists are written) matches
 * a figure whose value, whose number as written (value / scale), or, for rupee amounts with a scale
 * word, whose value in crore (or for dollars in million) agrees: "900,122 crore", "Rs 9.00 lakh crore".
 */
export function figureMatchesNeedle(needle: Quantity, figure: Quantity, relTol: number): boolean {
  if (needle.unit !== null || needle.scale !== 1) return sameQuantity(needle, figure, relTol);
  const n = needle.value;
  if (withinRelative(figure.value, n, relTol) || withinRelative(figure.value / figure.scale, n, relTol))
    return true;
  if (figure.unit === 'INR' && figure.scale >= 1e5) return withinRelative(figure.value / 1e7, n, relTol);
  if (figure.unit === 'USD' && figure.scale >= 1e6) return withinRelative(figure.value / 1e6, n, relTol);
  return false;
}

/** Whether the answer contains the needle: as a figure when the needle is one, else as text. */
export function answerContains(answer: string, needle: string, relTol: number): boolean {
  const q = needleQuantity(needle);
  if (q === null) return normaliseText(answer).includes(normaliseText(needle));
  return extractQuantities(answer).some((figure) => figureMatchesNeedle(q, figure, relTol));
}

/** Figures in must_include are matched within ±1%; the text ones case- and whitespace-insensitively. */
export const MUST_INCLUDE_TOLERANCE = 0.01;
/**
 * Figures in must_not_include (a distractor's value) are matched within ±0.5%: the adversarial questions'
 * own tolerance, so that a figure close to but distinct from the distractor is not flagged.
 */
export const MUST_NOT_INCLUDE_TOLERANCE = 0.005;

export function mustInclude(question: Question, answer: string): CheckResult {
  const name = 'mustInclude';
  if (question.must_include.length === 0) return { name, passed: null, detail: 'the question lists nothing' };
  const missing = question.must_include.filter((s) => !answerContains(answer, s, MUST_INCLUDE_TOLERANCE));
  return missing.length === 0
    ? {
        name,
        passed: true,
        detail: `contains all ${question.must_include.length}: ${list(question.must_include)}`,
      }
    : { name, passed: false, detail: `missing: ${list(missing)}` };
}

export function mustNotInclude(question: Question, answer: string): CheckResult {
  const name = 'mustNotInclude';
  if (question.must_not_include.length === 0)
    return { name, passed: null, detail: 'the question lists nothing' };
  const present = question.must_not_include.filter((s) =>
    answerContains(answer, s, MUST_NOT_INCLUDE_TOLERANCE),
  );
  return present.length === 0
    ? { name, passed: true, detail: `contains none of: ${list(question.must_not_include)}` }
    : { name, passed: false, detail: `contains: ${list(present)}` };
}

/**
 * refusalAccuracy, both ways: the answer refuses (isRefusal) if and only if the question expects a
 * refusal. 'over-refusal' declines an answerable question; 'missed refusal' answers an unanswerable one.
 */
export function refusalAccuracy(question: Question, answer: string): CheckResult {
  const name = 'refusalAccuracy';
  const refused = isRefusal(answer);
  const expected = question.expected_behavior === 'refuse';
  if (refused && !expected)
    return {
      name,
      passed: false,
      detail: `over-refusal: declined although ${question.expected_behavior} was expected`,
    };
  if (!refused && expected)
    return { name, passed: false, detail: 'missed refusal: answered although refuse was expected' };
  return { name, passed: true, detail: refused ? 'refused as expected' : 'answered as expected' };
}

/** latency: within the budget (inclusive). n/a when the budget is not a positive finite number. */
export function latency(latencyMs: number, latencyBudgetMs: number): CheckResult {
  const name = 'latency';
  if (!Number.isFinite(latencyBudgetMs) || latencyBudgetMs <= 0)
    return { name, passed: null, detail: `no latency budget (${latencyBudgetMs})` };
  const ms = Math.round(latencyMs);
  return latencyMs <= latencyBudgetMs
    ? { name, passed: true, detail: `${ms} ms within the ${latencyBudgetMs} ms budget` }
    : { name, passed: false, detail: `${ms} ms over the ${latencyBudgetMs} ms budget` };
}
