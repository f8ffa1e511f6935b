/**
 * The deterministic checks' results, as stored in result rows. Each check passes, fails, or does not
 * apply (passed: null), with a detail a reviewer can read; claim faithfulness lists every claim.
 */
import { z } from 'zod';

export const CheckResult = z.strictObject({
  /** the check's name, e.g. "numbersTraced" */
  name: z.string().min(1),
  /** true passed, false failed, null not applicable (e.g. no numbers to trace) */
  passed: z.boolean().nullable(),
  detail: z.string(),
});
export type CheckResult = z.infer<typeof CheckResult>;

export const ClaimVerdict = z.strictObject({
  /** the atomic claim, citation markers stripped */
  text: z.string(),
  supported: z.boolean(),
  /** the retrieved chunk that supports the claim (the cited one when it does), null when none does */
  chunkId: z.string().nullable(),
  /** the ids the claim cites (its own markers, else its sentence's) */
  cited: z.array(z.string()),
});
export type ClaimVerdict = z.infer<typeof ClaimVerdict>;

export const ClaimFaithfulness = z.strictObject({
  claims: z.array(ClaimVerdict),
  supported: z.number().int().min(0),
  total: z.number().int().min(0),
  /** supported / total; null when the answer makes no claims (a refusal), never 0 for "no claims" */
  score: z.number().min(0).max(1).nullable(),
});
export type ClaimFaithfulness = z.infer<typeof ClaimFaithfulness>;

/** The pass/fail checks, in report order. */
export const CHECK_NAMES = [
  'numbersTraced',
  'citationsResolve',
  'mustInclude',
  'mustNotInclude',
  'refusalAccuracy',
  'latency',
] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

export const CheckResults = z.strictObject({
  numbersTraced: CheckResult,
  citationsResolve: CheckResult,
  mustInclude: CheckResult,
  mustNotInclude: CheckResult,
  refusalAccuracy: CheckResult,
  latency: CheckResult,
  claimFaithfulness: ClaimFaithfulness,
});
export type CheckResults = z.infer<typeof CheckResults>;

/**
 * The checks that follow from the answer, the question and the passages alone: every check but latency
 * (the call's, measured), as the checks stage stores them beside the answer (store/cells.ts `CheckRecord`).
 */
export const AnswerChecks = CheckResults.omit({ latency: true });
export type AnswerChecks = z.infer<typeof AnswerChecks>;

/**
 * How much of the question's gold evidence (quotes, figures) the passages a subject answered from hold
 * (evidence.ts).
 */
export const EvidenceRecall = z.strictObject({
  /** evidence items: the question's gold quotes and the gold figures they print */
  items: z.number().int().min(0),
  /** how many of them a passage holds */
  found: z.number().int().min(0),
  /** found / items; null when the question has no gold evidence */
  recall: z.number().min(0).max(1).nullable(),
  /** the items no passage holds (a quote's first words, a figure's label and value) */
  missing: z.array(z.string()),
});
export type EvidenceRecall = z.infer<typeof EvidenceRecall>;
