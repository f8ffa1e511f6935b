/**
 * The plan of a run: from the request, the config, the question set and the index's identity, which
 * questions, subjects, judges and runs the run has, each subject's panel, the judge prompt (chosen once,
 * with its version and hash), and the run's identity. `planRun` is pure: it reads nothing and writes
 * nothing, so a plan is a value, computed once per run by the front door that starts it and passed down
 * (into Vitest as one serialisable value). Loading its inputs is load.ts; opening the stores, the index
 * and the providers is session/open.ts.
 *
 * The run id names a REPORT: a hash of the config, the narrowing (subjects, questions, runs), the index,
 * the question set, both prompts, the providers' versions and the checks' version. Stored cells are
 * reused by what they are (the store's cells), whatever the run id.
 */
import canonicalizeModule from 'canonicalize';
import { CHECKS_VERSION } from '../../checks/index.ts';
import type { Judge } from '../../judging/config.ts';
import { crossFamilyPanel } from '../../judging/panel.ts';
import { JUDGE_MAX_TOKENS, resolveJudgePrompt } from '../../judging/prompt.ts';
import { kindOf } from '../../models/kinds.ts';
import { outputLimit, resolveParameters } from '../../providers/contract.ts';
import type { Subject } from '../../subject/config.ts';
import { RgeError, UsageError } from '../../util/errors.ts';
import { sha256 } from '../../util/fs.ts';
import type { RunConfig } from '../config/config.ts';
import { runInfo } from './info.ts';
import { runQuestions } from './questions.ts';
import type { RunRequest } from './request.ts';
import {
  NO_INDEX,
  type PlanInputs,
  type PlannedJudge,
  type PlannedModel,
  type RunPlan,
  usesIndex,
} from './types.ts';

export type {
  DescribedModel,
  PlanInputs,
  PlannedJudge,
  PlannedSubject,
  ProviderIdentity,
  RunInfo,
  RunPlan,
} from './types.ts';
export { NO_INDEX, resolveFrom, usesIndex } from './types.ts';

const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** A usage error in the request that needs only the config to see (before any index is built). */
export function checkRequest(request: RunRequest, config: RunConfig): void {
  const unknown = (request.subjects ?? []).filter((id) => !config.subjects.some((s) => s.id === id));
  if (unknown.length > 0)
    throw new UsageError(
      `no subject ${unknown.join(', ')} in ${request.config}; its subjects are ${config.subjects.map((s) => s.id).join(', ')}`,
    );
}

/** The subjects a request chooses, in config order; the judges their panels need, in config order. */
export function chosenModels(
  request: RunRequest,
  config: RunConfig,
): { subjects: Subject[]; judges: Judge[]; panels: Record<string, string[]> } {
  const subjects = request.subjects
    ? config.subjects.filter((s) => request.subjects?.includes(s.id))
    : config.subjects;
  const panels = Object.fromEntries(
    subjects.map((s) => [s.id, crossFamilyPanel(s.family, config.judges).map((j) => j.id)]),
  );
  const needed = new Set(Object.values(panels).flat());
  return { subjects, judges: config.judges.filter((j) => needed.has(j.id)), panels };
}

function plannedModel<E extends Subject | Judge>(
  inputs: PlanInputs,
  role: 'subject' | 'judge',
  entry: E,
  requestedMaxTokens: number,
): PlannedModel & { config: E } {
  const identity = inputs.identities[`${role}:${entry.id}`];
  if (!identity) throw new Error(`no provider identity for ${role} ${entry.id}`);
  return {
    id: entry.id,
    provider: entry.provider,
    model: entry.model,
    family: entry.family,
    kind: kindOf(entry.provider).kind,
    identity,
    priced: inputs.priceOf(entry, `${role} ${entry.id}`),
    parameters: resolveParameters(entry.provider, entry.model, entry),
    maxTokens: outputLimit(entry.provider, entry.model, requestedMaxTokens),
    config: entry,
  };
}

/** The run's identity: the config hash over the config and narrowing, and the run id over everything. */
function runIdentity(
  inputs: PlanInputs,
  plan: Pick<RunPlan, 'subjects' | 'judges' | 'runs' | 'judgePrompt'>,
): { runId: string; configHash: string; indexChecksum: string } {
  const { request, config } = inputs;
  const configHash = sha256(
    canonicalize({
      config,
      narrowing: {
        subjects: request.subjects ?? null,
        questions: request.questions ?? null,
        ...(request.sample !== undefined ? { sample: request.sample } : {}),
        ...(request.cases ? { questionIds: [...request.cases].sort() } : {}),
        runs: plan.runs,
      },
    }) ?? '',
  );
  const indexChecksum = inputs.index?.checksum ?? (usesIndex(plan.subjects) ? 'not-built' : NO_INDEX);
  // Providers' own versions (code or recorded data) belong to the run's identity too.
  const providerVersions = [...plan.subjects, ...plan.judges]
    .map((m) => `${m.identity.id}@${m.identity.version}`)
    .concat(`checks@${CHECKS_VERSION}`)
    .join(',');
  const parts = [
    configHash,
    indexChecksum,
    inputs.questionsHash,
    plan.judgePrompt.sha256,
    inputs.subjectPrompt.sha256,
    providerVersions,
  ];
  return { runId: `${config.name}-${sha256(parts.join(':')).slice(0, 12)}`, configHash, indexChecksum };
}

/** The plan of a run (pure). A plan with no cell (no question, no subject) is an error, not a run. */
export function planRun(inputs: PlanInputs): RunPlan {
  const { request, config } = inputs;
  checkRequest(request, config);
  const chosen = chosenModels(request, config);
  if (!inputs.dryRun && inputs.index === null && usesIndex(chosen.subjects))
    throw new RgeError('no index to run on');
  const { questions, notes, slice } = runQuestions(inputs);
  // a system subject sends no output limit of rge's (it is the system's): 0
  const subjects = chosen.subjects.map((s) => plannedModel(inputs, 'subject', s, s.max_tokens ?? 0));
  const judges = chosen.judges.map((j) => plannedModel(inputs, 'judge', j, JUDGE_MAX_TOKENS));
  const runs = request.runs ?? config.runs;
  const judgePrompt = resolveJudgePrompt(config.judge_prompt);
  const identity = runIdentity(inputs, { subjects, judges, runs, judgePrompt });
  return {
    request,
    config,
    subjectPrompt: inputs.subjectPrompt,
    judgePrompt,
    questions,
    subjects,
    judges,
    panels: chosen.panels,
    runs,
    notes,
    info: runInfo(inputs, { identity, questions, subjects, judges, runs, judgePrompt, slice }),
  };
}

/** The judges of a subject's panel, in panel order. */
export function panelOf(plan: Pick<RunPlan, 'panels' | 'judges'>, subjectId: string): PlannedJudge[] {
  return (plan.panels[subjectId] ?? []).map((id) => {
    const judge = plan.judges.find((j) => j.id === id);
    if (!judge) throw new Error(`judge ${id} of subject ${subjectId}'s panel is not in the plan`);
    return judge;
  });
}
