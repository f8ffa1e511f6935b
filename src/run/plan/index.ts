/**
 * What the front doors (src/cli, src/vitest) take of the plan: the request and its two parsers, the plan
 * made from it (`planFromRequest`, which reads the config and the inputs first) and the plan's types.
 * The rest of plan/ (its pure steps, the run's questions and description) is read by run's own folders.
 */
export { type LoadContext, loadRequestConfig, planFromRequest } from './load.ts';
export type { PlannedJudge, PlannedSubject, RunInfo, RunPlan } from './plan.ts';
export { resolveFrom, usesIndex } from './plan.ts';
export { parseRunRequest, type RunRequest, type RunRequestInput, requestFromEnv } from './request.ts';
