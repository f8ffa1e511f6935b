/**
 * The estimate as a front door prints it (`rge eval run --dry-run`): what the run would call and cost
 * (`estimateRun`), printed with the budget it has (`formatEstimate`), of which the cap leaves the run what
 * `leftForRun` says (batch/plan.ts: the cap less what is spent and what a stopped run's batches hold).
 */
export { leftForRun } from '../batch/plan.ts';
export { estimateRun } from './estimate.ts';
export { formatEstimate } from './format.ts';
