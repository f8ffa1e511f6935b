/**
 * The plan of a run: from the request, the config, the question set and the index's identity, which
 * questions, subjects, judges and runs the run has, each subject's panel, the judge prompt (chosen once,
 * with its version and hash), and the run's identity. `planRun` is pure: it reads nothing and writes
 * nothing, so a plan is a value, computed once per run by the front door that starts it and passed down
 * (into Vitest as one serialisable value). Loading its inputs is load.ts; opening the stores, the index
 * and the providers is open.ts.
 *
 * The run id names a REPORT: a hash of the config, the narrowing (subjects, questions, runs), the index,
 * the question set, both prompts, the providers' versions and the checks' version. Stored cells are
 * reused by what they are (the store's cells), whatever the run id.
 */
import { isAbsolute, join, resolve } from 'node:path';
import canonicalizeModule from 'canonicalize';
import seedrandom from 'seedrandom';
import { CHECKS_VERSION } from '../checks/index.ts';
import type { Judge } from '../judging/config.ts';
import { crossFamilyPanel } from '../judging/panel.ts';
import { JUDGE_MAX_TOKENS, type JudgePrompt, resolveJudgePrompt } from '../judging/prompt.ts';
import type { PricedModel } from '../providers/catalogue.ts';
import {
  describeParameters,
  outputLimit,
  resolveParameters,
  temperatureDeviation,
} from '../providers/contract.ts';
import type { RequestParameters } from '../providers/types.ts';
import { goldNotReady } from '../questions/resolve-evidence.ts';
import type { Question } from '../questions/schema.ts';
import type { DescribedModelView, RunDescription } from '../report/views.ts';
import type { Subject } from '../subject/config.ts';
import type { SubjectPrompt } from '../subject/prompt.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import { sha256 } from '../util/fs.ts';
import { stratifiedSample } from '../util/shuffle.ts';
import type { RunConfig, RunMode } from './config.ts';
import type { RunRequest } from './request.ts';

const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** What identifies a provider's behaviour: its id and the version of its code or data. */
export interface ProviderIdentity {
  id: string;
  version: string;
}

/** A subject or judge of the plan: its config entry and everything its requests and prices need. */
interface PlannedModel {
  id: string;
  provider: string;
  model: string;
  family: string;
  /** the provider's identity (part of every cell's identity and of the run id) */
  identity: ProviderIdentity;
  priced: PricedModel;
  /** what its requests send besides the prompt (the config within the model's contract) */
  parameters: RequestParameters;
  /** the output token limit its requests send (plus Gemini 3's thinking allowance) */
  maxTokens: number;
}

export interface PlannedSubject extends PlannedModel {
  config: Subject;
}

export interface PlannedJudge extends PlannedModel {
  config: Judge;
}

/** A subject or judge as the report describes it, with the parameters its requests sent besides the prompt. */
export interface DescribedModel extends DescribedModelView {
  /** the sampling and reasoning parameters every request of this model sent */
  parameters: RequestParameters;
}

export interface RunInfo {
  runId: string;
  seed: string;
  configHash: string;
  indexChecksum: string;
  questionsHash: string;
  reportsDir: string;
  resultsDir: string;
  /** the run's state file (estimate, stage outcome), read by the reporter */
  stateFile: string;
  /** human labels and contested reviews (rge label, rge review), read by the reporter */
  labelsDir: string;
  /** the pre-registered kappa threshold against people */
  minKappa: number;
  /** a documented limitation of the judges' validation (the config's), printed in the report */
  limitation: string | null;
  /** the config's GFS weights: the report computes the people's GFS of labelled cells with them */
  gfsWeights: { correctness: number; grounding: number; calibration: number };
  mode: RunMode;
  configFile: string;
  /** cells of the run: subjects x questions x runs (a report with fewer cases is partial) */
  cells: number;
  /** what was run, for the report's first table */
  describe: RunDescription<DescribedModel>;
}

export interface RunPlan {
  request: RunRequest;
  config: RunConfig;
  /** the subject prompt (the config's prompt file, or the built-in v1) */
  subjectPrompt: SubjectPrompt;
  /** the judge prompt, chosen once: every judge request, verdict identity and record uses this one */
  judgePrompt: JudgePrompt;
  /** the run's questions, in the question file's order */
  questions: Question[];
  subjects: PlannedSubject[];
  /** the judges some subject's panel needs, in config order */
  judges: PlannedJudge[];
  /** each subject's cross-family panel: judge ids in panel order */
  panels: Record<string, string[]>;
  runs: number;
  info: RunInfo;
  /** what the front door says before the run (the questions a narrowed run covers; a dry run's warnings) */
  notes: string[];
}

/** What a plan is computed from; the front door loads it (load.ts). */
export interface PlanInputs {
  request: RunRequest;
  /** the folder the request's relative paths are resolved against */
  root: string;
  /** the config file, absolute */
  configFile: string;
  config: RunConfig;
  /** the config's question file, absolute */
  questionsFile: string;
  /** every question of that file, in file order */
  allQuestions: readonly Question[];
  /** sha256 of the question file */
  questionsHash: string;
  subjectPrompt: SubjectPrompt;
  /** the index's identity; null only for a dry run whose index is not built */
  index: { checksum: string } | null;
  /** each chosen subject's and needed judge's provider identity, by `subject:<id>` / `judge:<id>` */
  identities: Readonly<Record<string, ProviderIdentity>>;
  /** the model prices (pure: the catalogue's, or the config's) */
  priceOf: (entry: Subject | Judge, who: string) => PricedModel;
  dryRun: boolean;
}

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

function sampleSeed(config: RunConfig): string {
  return `${config.seed}:questions:sample`;
}

/** The questions of the run: the first N, a seeded stratified sample, or the ids asked for. */
function narrowQuestions(inputs: PlanInputs, notes: string[]): Question[] {
  const { request, config, index } = inputs;
  let questions = [...inputs.allQuestions];
  if (request.questions !== undefined) questions = questions.slice(0, request.questions);
  if (request.sample !== undefined)
    questions = stratifiedSample(
      questions,
      request.sample,
      seedrandom(sampleSeed(config)),
      (q) => q.category,
    );
  // gold resolved from evidence patterns is only scored on the index it was resolved on
  const notReady = index ? goldNotReady(questions, index.checksum) : [];
  if (notReady.length > 0) {
    const fix = `run \`rge questions resolve --config ${inputs.configFile} --write\` on this index first`;
    if (!inputs.dryRun)
      throw new RgeError(`gold not resolved on this index: ${notReady.join('; ')}; ${fix}`, {
        file: inputs.questionsFile,
      });
    notes.push(`warning: ${notReady.join('; ')}; ${fix}`);
  }
  if (request.cases !== undefined) {
    const wanted = new Set(request.cases);
    const missing = [...wanted].filter((id) => !questions.some((q) => q.id === id));
    if (missing.length > 0)
      throw new UsageError(
        `no question ${missing.join(', ')} in ${config.questions.file}${request.questions !== undefined ? ` (first ${request.questions})` : ''}`,
      );
    questions = questions.filter((q) => wanted.has(q.id));
  }
  return questions;
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
  const indexChecksum = inputs.index?.checksum ?? 'not-built';
  // Providers' own versions (code or recorded data) belong to the run's identity too.
  const providerVersions = [...plan.subjects, ...plan.judges]
    .map((m) => `${m.identity.id}@${m.identity.version}`)
    .concat(`checks@${CHECKS_VERSION}`)
    .join(',');
  const parts = [
    configHash,
    indexChecksum,
    inputs.questionsHash,
    plan.judgePrompt.hash,
    inputs.subjectPrompt.sha256,
    providerVersions,
  ];
  return { runId: `${config.name}-${sha256(parts.join(':')).slice(0, 12)}`, configHash, indexChecksum };
}

function described(m: PlannedModel & { config: Subject | Judge }): DescribedModel {
  return {
    id: m.id,
    provider: m.provider,
    model: m.model,
    family: m.family,
    parameters: m.parameters,
    sent: describeParameters(m.parameters),
    maxTokens: m.maxTokens,
    deviation: temperatureDeviation(m.provider, m.model, m.parameters),
  };
}

/** The plan of a run (pure). A plan with no cell (no question, no subject) is an error, not a run. */
export function planRun(inputs: PlanInputs): RunPlan {
  const { request, config } = inputs;
  checkRequest(request, config);
  if (!inputs.dryRun && inputs.index === null) throw new RgeError('no index to run on');
  const notes: string[] = [];
  const questions = narrowQuestions(inputs, notes);
  if (questions.length === 0) throw new UsageError(`the run has no question (${config.questions.file})`);
  const slice = sliceCoverage(
    inputs.allQuestions,
    questions,
    request.sample !== undefined
      ? { sampleSeed: sampleSeed(config) }
      : request.cases === undefined && request.questions !== undefined
        ? 'first'
        : 'chosen',
  );
  if (slice) notes.push(`questions: ${slice}`);
  const chosen = chosenModels(request, config);
  const subjects = chosen.subjects.map((s) => plannedModel(inputs, 'subject', s, s.max_tokens));
  const judges = chosen.judges.map((j) => plannedModel(inputs, 'judge', j, JUDGE_MAX_TOKENS));
  const runs = request.runs ?? config.runs;
  const mode = request.mode ?? config.mode;
  const judgePrompt = resolveJudgePrompt(config.judge_prompt);
  const { runId, configHash, indexChecksum } = runIdentity(inputs, { subjects, judges, runs, judgePrompt });
  const at = (p: string) => resolveFrom(inputs.root, p);
  const resultsDir = at(request.resultsDir);
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
    info: {
      runId,
      seed: config.seed,
      configHash,
      indexChecksum,
      questionsHash: inputs.questionsHash,
      reportsDir: at(request.reportsDir),
      resultsDir,
      stateFile: join(resultsDir, '.runs', `${runId}.json`),
      labelsDir: at(config.validation.labels_dir),
      minKappa: config.validation.min_kappa,
      limitation: config.validation.limitation,
      gfsWeights: { ...config.gfs_weights },
      mode,
      configFile: inputs.configFile,
      cells: subjects.length * questions.length * runs,
      describe: {
        config: config.name,
        subjects: subjects.map(described),
        judges: judges.map(described),
        corpus: {
          embedder: config.corpus.embedder,
          chunkTokens: config.corpus.chunk_tokens,
          overlapTokens: config.corpus.overlap_tokens,
          k: config.retrieval.k,
          index: indexChecksum,
        },
        questions: {
          file: config.questions.file,
          version: config.questions.version,
          n: questions.length,
          ...goldOrigins(questions),
          ...(slice ? { slice } : {}),
        },
        runs,
        mode,
        thresholds: config.thresholds,
        subjectPrompt: {
          version: inputs.subjectPrompt.version,
          sha256: inputs.subjectPrompt.sha256,
          file: config.subject_prompt.file,
        },
        judgePrompt: { version: judgePrompt.version, sha256: judgePrompt.hash },
      },
    },
  };
}

/** A path of the request or config, absolute (relative ones are relative to the root). */
export function resolveFrom(root: string, path: string): string {
  return isAbsolute(path) ? path : resolve(root, path);
}

/** The judges of a subject's panel, in panel order. */
export function panelOf(plan: Pick<RunPlan, 'panels' | 'judges'>, subjectId: string): PlannedJudge[] {
  return (plan.panels[subjectId] ?? []).map((id) => {
    const judge = plan.judges.find((j) => j.id === id);
    if (!judge) throw new Error(`judge ${id} of subject ${subjectId}'s panel is not in the plan`);
    return judge;
  });
}

/** How many questions take their gold from each kind of source; nothing when the set states none. */
function goldOrigins(questions: readonly Question[]): {
  gold?: { xbrl: number; untraced: number; absent: number; unstated: number };
} {
  const gold = { xbrl: 0, untraced: 0, absent: 0, unstated: 0 };
  for (const q of questions) gold[q.gold_source?.kind ?? 'unstated']++;
  return gold.unstated === questions.length ? {} : { gold };
}

/**
 * What a narrowed run covers, per category ("the first 20 of 200 questions: grounded-direct 20 of 45,
 * grounded-multihop 0 of 45, ...", "a stratified sample (seed fixture-v1:questions:sample) of 20 of 200
 * questions: grounded-direct 5 of 45, ..."), so a quick look says plainly what its tables speak for;
 * null for the whole set.
 */
export function sliceCoverage(
  all: readonly Question[],
  chosen: readonly Question[],
  /** how the questions were chosen: the first N, by id, or a stratified sample with its seed */
  how: 'first' | 'chosen' | { sampleSeed: string },
): string | null {
  if (chosen.length === all.length) return null;
  const categories = [...new Set(all.map((q) => q.category))];
  const per = categories.map(
    (c) =>
      `${c} ${chosen.filter((q) => q.category === c).length} of ${all.filter((q) => q.category === c).length}`,
  );
  const what =
    how === 'first'
      ? `the first ${chosen.length}`
      : how === 'chosen'
        ? `${chosen.length} chosen`
        : `a stratified sample (seed ${how.sampleSeed}) of ${chosen.length}`;
  return `${what} of ${all.length} questions: ${per.join(', ')}`;
}
