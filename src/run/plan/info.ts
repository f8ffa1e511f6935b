/**
 * What a run's plan says of the run for the report and the cases (`RunInfo`): its identity, its folders,
 * the validation settings the report needs, and the description of what was run (the report's first
 * table). Pure.
 */
import { relative, sep } from 'node:path';
import type { Judge } from '../../judging/config.ts';
import type { JudgePrompt } from '../../judging/prompt.ts';
import { describeParameters, temperatureDeviation } from '../../providers/contract.ts';
import type { Question } from '../../questions/schema.ts';
import { resultsLayout } from '../../store/layout.ts';
import type { Subject } from '../../subject/config.ts';
import {
  type DescribedModel,
  type PlanInputs,
  type PlannedJudge,
  type PlannedSubject,
  type RunInfo,
  resolveFrom,
  usesIndex,
} from './types.ts';

/** What a user's system is sent, in the words of `DescribedModelView.sent` (ADR 0026). */
export const SYSTEM_SENT =
  'the question, its run index and a seed in the question; no temperature or other sampling parameter';
/** Why a system is not sent the methodology's temperature 0 (`DescribedModelView.deviation`). */
export const SYSTEM_DEVIATION =
  "no temperature: a user's system is sent only the question, its run index and a seed, and samples as it does (its model and settings are its own)";

/**
 * A subject or judge as the report describes it. A judge's request carries no seed (only a subject's
 * cell has one, `renderSubjectRequest`), so a judge is not said to send one even where its model's
 * contract would take it; its `parameters` in the request identity are left as they are. A user's
 * system is sent no sampling parameter at all (rge sends the question, its run index and a seed), so
 * it is described as sent nothing of the kind, whatever defaults its provider name has.
 */
function described(
  m: (PlannedSubject | PlannedJudge) & { config: Subject | Judge },
  role: 'subject' | 'judge',
): DescribedModel {
  if (m.kind === 'system')
    return {
      id: m.id,
      provider: m.provider,
      model: m.model,
      family: m.family,
      parameters: {},
      sent: SYSTEM_SENT,
      maxTokens: m.maxTokens,
      deviation: SYSTEM_DEVIATION,
      // its version (declared or its files' hash) is what a gate compares
      version: m.identity.version,
    };
  const { seed, ...unseeded } = m.parameters;
  const parameters = role === 'subject' && seed !== undefined ? { ...unseeded, seed } : unseeded;
  return {
    id: m.id,
    provider: m.provider,
    model: m.model,
    family: m.family,
    parameters,
    sent: describeParameters(parameters),
    maxTokens: m.maxTokens,
    deviation: temperatureDeviation(m.provider, m.model, m.parameters),
  };
}

/** How many questions take their gold from each kind of source; nothing when the set states none. */
function goldOrigins(questions: readonly Question[]): {
  gold?: { xbrl: number; untraced: number; absent: number; unstated: number };
} {
  const gold = { xbrl: 0, untraced: 0, absent: 0, unstated: 0 };
  for (const q of questions) gold[q.gold_source?.kind ?? 'unstated']++;
  return gold.unstated === questions.length ? {} : { gold };
}

/** The run's info, from its inputs and what the plan chose. */
export function runInfo(
  inputs: PlanInputs,
  chosen: {
    identity: { runId: string; configHash: string; indexChecksum: string };
    questions: readonly Question[];
    subjects: readonly PlannedSubject[];
    judges: readonly PlannedJudge[];
    runs: number;
    judgePrompt: JudgePrompt;
    slice: string | null;
  },
): RunInfo {
  const { request, config } = inputs;
  const { runId, configHash, indexChecksum } = chosen.identity;
  const at = (p: string) => resolveFrom(inputs.root, p);
  const resultsDir = at(request.resultsDir);
  const mode = request.mode ?? config.mode;
  return {
    runId,
    seed: config.seed,
    configHash,
    indexChecksum,
    questionsHash: inputs.questionsHash,
    reportsDir: at(request.reportsDir),
    resultsDir,
    stateFile: resultsLayout(resultsDir).runState(runId),
    labelsDir: at(config.validation.labels_dir),
    minKappa: config.validation.min_kappa,
    limitation: config.validation.limitation,
    gfsWeights: { ...config.gfs_weights },
    mode,
    configFile: inputs.configFile,
    cells: chosen.subjects.length * chosen.questions.length * chosen.runs,
    describe: {
      config: config.name,
      configFile: relative(inputs.root, inputs.configFile).split(sep).join('/'),
      gfsWeights: { ...config.gfs_weights },
      subjects: chosen.subjects.map((m) => described(m, 'subject')),
      judges: chosen.judges.map((m) => described(m, 'judge')),
      // rge's corpus and retrieval, which a run of systems only does not use
      ...(config.corpus && usesIndex(chosen.subjects)
        ? {
            corpus: {
              embedder: config.corpus.embedder,
              chunkTokens: config.corpus.chunk_tokens,
              overlapTokens: config.corpus.overlap_tokens,
              k: config.retrieval.k,
              index: indexChecksum,
            },
          }
        : {}),
      questions: {
        file: config.questions.file,
        version: config.questions.version,
        n: chosen.questions.length,
        ...goldOrigins(chosen.questions),
        ...(chosen.slice ? { slice: chosen.slice } : {}),
      },
      runs: chosen.runs,
      mode,
      thresholds: config.thresholds,
      subjectPrompt: {
        version: inputs.subjectPrompt.version,
        sha256: inputs.subjectPrompt.sha256,
        file: config.subject_prompt.file,
      },
      judgePrompt: { version: chosen.judgePrompt.version, sha256: chosen.judgePrompt.sha256 },
    },
  };
}
