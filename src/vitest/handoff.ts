/**
 * What crosses into Vitest: the run's request and its plan, as one validated, serialisable value that
 * Vitest provides to every eval file (`provide` / `inject`). The front door that starts the run plans
 * it once: `rge eval run` (src/vitest/run.ts passes it in Vitest's config), or, for `npx vitest run
 * evals`, the evals project's global setup (evals-setup.ts) from the RGE_* variables. The eval files
 * never read those variables again and never plan again.
 */
import type { RunPlan, RunRequest } from '../run/plan/index.ts';

export interface RgeRunHandoff {
  request: RunRequest;
  plan: RunPlan;
  /** the process that planned the run (every case records it: one run, one plan) */
  plannedBy: number;
}

/** The key under which Vitest provides the handoff. */
export const HANDOFF_KEY = 'rgeRun';

declare module 'vitest' {
  interface ProvidedContext {
    rgeRun: RgeRunHandoff;
  }
}
