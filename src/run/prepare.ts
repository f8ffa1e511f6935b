/**
 * A run, prepared: the config read and validated, the index opened (built first for the generated
 * fixture world), the questions loaded and narrowed, every subject's and judge's provider built through
 * the one registry (keys checked before anything is spent), the cell stores and the budget ledger
 * opened, and the run's identity computed. Nothing is called yet.
 *
 * The run id names a REPORT: a hash of the config, the narrowing (subjects, questions, runs), the
 * index, the question set, both prompts, the providers' versions and the checks' version. Stored cells
 * are reused by what they are (see cells.ts), whatever the run id.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import canonicalizeModule from 'canonicalize';
import seedrandom from 'seedrandom';
import { CHECKS_VERSION } from '../checks/index.ts';
import type { Judge } from '../judging/config.ts';
import { crossFamilyPanel } from '../judging/panel.ts';
import { JUDGE_MAX_TOKENS, type JudgeModel, judgePromptHash, judgePromptText } from '../judging/prompt.ts';
import { createProvider, priceOf } from '../models/registry.ts';
import type { PricedModel } from '../providers/catalogue.ts';
import {
  describeParameters,
  outputLimit,
  resolveParameters,
  temperatureDeviation,
} from '../providers/contract.ts';
import { environment } from '../providers/credentials.ts';
import type { ProviderLimiter } from '../providers/metered.ts';
import type { ContextChunk, Provider, RequestParameters } from '../providers/types.ts';
import { loadQuestions } from '../questions/load.ts';
import { goldNotReady } from '../questions/resolve-evidence.ts';
import type { Question } from '../questions/schema.ts';
import type { DescribedModelView, RunDescription } from '../report/views.ts';
import { type Index, openIndex } from '../retrieval/index.ts';
import type { Subject } from '../subject/config.ts';
import { BUILTIN_SUBJECT_PROMPT, loadSubjectPrompt, type SubjectPrompt } from '../subject/prompt.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import { sha256 } from '../util/fs.ts';
import { stratifiedSample } from '../util/shuffle.ts';
import { CellStores } from './cells.ts';
import { capSourceOf, loadRunConfig, type RunConfig, type RunMode } from './config.ts';
import { ensureCorpusIndex, indexExists } from './corpus-index.ts';
import { ReplyInbox } from './inbox.ts';
import { CellLeases } from './leases.ts';
import { BudgetLedger } from './ledger.ts';

const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

export interface RunSubject {
  id: string;
  config: Subject;
  provider: Provider;
  priced: PricedModel;
  /** what its requests send besides the prompt (the config within the model's contract) */
  parameters: RequestParameters;
  /** the output token limit its requests send (max_tokens, plus Gemini 3's thinking allowance) */
  maxTokens: number;
}

export interface RunJudge {
  id: string;
  family: string;
  model: string;
  /** what its requests send besides the prompt (the config within the model's contract) */
  parameters: RequestParameters;
  /** the output token limit its requests send (JUDGE_MAX_TOKENS, plus Gemini 3's thinking allowance) */
  maxTokens: number;
  config: Judge;
  provider: Provider;
  priced: PricedModel;
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

/** A subject or judge as the report describes it, with the parameters its requests sent besides the prompt. */
export interface DescribedModel extends DescribedModelView {
  /** the sampling and reasoning parameters every request of this model sent */
  parameters: RequestParameters;
}

export interface PreparedRun {
  config: RunConfig;
  root: string;
  /** the subject prompt (the config's prompt file, or the built-in v1) */
  subjectPrompt: SubjectPrompt;
  questions: Question[];
  subjects: RunSubject[];
  judges: RunJudge[];
  runs: number;
  /** null only in a dry run whose index is not built: the estimate then bounds the context by k x chunk size */
  index: Index | null;
  info: RunInfo;
  cells: CellStores;
  ledger: BudgetLedger;
  /** who is paying for which cell and polling which batch, among the processes on this results folder */
  leases: CellLeases;
  /** the replies this process received, written as they arrive (for a process that takes over after a kill) */
  inbox: ReplyInbox;
  retrieved: Map<string, Promise<ContextChunk[]>>;
  warnings: string[];
  dryRun: boolean;
}

export interface PrepareOptions {
  config: string;
  root: string;
  resultsDir?: string;
  reportsDir?: string;
  subjects?: readonly string[];
  /** only the first N questions (`--questions`) */
  questions?: number;
  /**
   * a seeded sample of N questions, stratified by category in proportion to its size (`--sample`,
   * RGE_SAMPLE): a quick look that speaks for every category; the seed is the config's, recorded
   */
  sample?: number;
  /** only these question ids (`--case`), in the question file's order */
  questionIds?: readonly string[];
  runs?: number;
  /** `path=value` overrides of config fields (`--set`) */
  overrides?: readonly string[];
  mode?: RunMode;
  /** read what is stored, write nothing, call nothing, need no key (for `rge eval run --dry-run`) */
  dryRun?: boolean;
  /** where retry notices and budget warnings go */
  log?: (line: string) => void;
  /** the environment (process env over .env); for tests */
  env?: Record<string, string | undefined>;
}

/**
 * Runs `make` (building a subject's or judge's provider); an error that names no file (a missing API
 * key) is given the config's, so the one error line says which run config asked for that model.
 */
async function inConfig<T>(configFile: string, make: () => Promise<T>): Promise<T> {
  try {
    return await make();
  } catch (err) {
    if (err instanceof RgeError && err.file === undefined)
      throw new RgeError(err.message, { file: configFile, exitCode: err.exitCode, cause: err });
    throw err;
  }
}

/** A judge entry of the run config as the judge prompt needs it: its parameters and output limit. */
export function judgeModelOf(
  entry: Judge,
): JudgeModel & { parameters: RequestParameters; maxTokens: number } {
  return {
    id: entry.id,
    model: entry.model,
    family: entry.family,
    parameters: resolveParameters(entry.provider, entry.model, entry),
    maxTokens: outputLimit(entry.provider, entry.model, JUDGE_MAX_TOKENS),
  };
}

function described(
  id: string,
  entry: Subject | Judge,
  parameters: RequestParameters,
  maxTokens: number,
): DescribedModel {
  return {
    id,
    provider: entry.provider,
    model: entry.model,
    family: entry.family,
    parameters,
    sent: describeParameters(parameters),
    maxTokens,
    deviation: temperatureDeviation(entry.provider, entry.model, parameters),
  };
}

export async function prepareRun(opts: PrepareOptions): Promise<PreparedRun> {
  const at = (p: string) => (isAbsolute(p) ? p : resolve(opts.root, p));
  const configFile = at(opts.config);
  const config = await loadRunConfig(configFile, { overrides: opts.overrides ?? [] });
  // A usage error is found before any work (building an index can take minutes).
  const unknown = (opts.subjects ?? []).filter((id) => !config.subjects.some((s) => s.id === id));
  if (unknown.length > 0)
    throw new UsageError(
      `no subject ${unknown.join(', ')} in ${opts.config}; its subjects are ${config.subjects.map((s) => s.id).join(', ')}`,
    );
  const dryRun = opts.dryRun === true;
  const indexDir = at(config.corpus.index);
  let index: Index | null = null;
  if (dryRun && !indexExists(indexDir) && !config.corpus.generated_from) index = null;
  else {
    await ensureCorpusIndex(config, at, { configFile: opts.config, ...(opts.log ? { log: opts.log } : {}) });
    index = await openIndex(indexDir);
  }
  const questionsPath = at(config.questions.file);
  const subjectPrompt =
    config.subject_prompt.file === null
      ? BUILTIN_SUBJECT_PROMPT
      : await loadSubjectPrompt(at(config.subject_prompt.file));
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const allQuestions = (await loadQuestions(questionsPath)).map((r) => r.value);
  let questions = allQuestions;
  if (opts.sample !== undefined && (opts.questions !== undefined || opts.questionIds !== undefined))
    throw new UsageError('--sample draws its own questions: give it without --questions or --case');
  const sampleSeed = `${config.seed}:questions:sample`;
  if (opts.questions !== undefined) questions = questions.slice(0, opts.questions);
  if (opts.sample !== undefined)
    questions = stratifiedSample(questions, opts.sample, seedrandom(sampleSeed), (q) => q.category);
  // gold resolved from evidence patterns is only scored on the index it was resolved on
  const notReady = index ? goldNotReady(questions, index.checksum) : [];
  if (notReady.length > 0) {
    const fix = `run \`rge questions resolve --config ${configFile} --write\` on this index first`;
    if (!dryRun)
      throw new RgeError(`gold not resolved on this index: ${notReady.join('; ')}; ${fix}`, {
        file: questionsPath,
      });
    log(`warning: ${notReady.join('; ')}; ${fix}`);
  }
  if (opts.questionIds !== undefined) {
    const wanted = new Set(opts.questionIds);
    const missing = [...wanted].filter((id) => !questions.some((q) => q.id === id));
    if (missing.length > 0)
      throw new UsageError(
        `no question ${missing.join(', ')} in ${config.questions.file}${opts.questions !== undefined ? ` (first ${opts.questions})` : ''}`,
      );
    questions = questions.filter((q) => wanted.has(q.id));
  }
  const slice = sliceCoverage(
    allQuestions,
    questions,
    opts.sample !== undefined
      ? { sampleSeed }
      : opts.questionIds === undefined && opts.questions !== undefined
        ? 'first'
        : 'chosen',
  );
  if (slice) log(`questions: ${slice}`);
  const chosen = opts.subjects
    ? config.subjects.filter((s) => opts.subjects?.includes(s.id))
    : config.subjects;
  const resultsDir = at(opts.resultsDir ?? 'data/results');
  const ledger = new BudgetLedger(resultsDir, {
    capUsd: config.budget.cap_usd,
    warnUsd: config.budget.warn_usd,
    configFile,
    capSource: capSourceOf(opts.config, opts.overrides ?? []),
    onWarn: log,
  });
  const leases = new CellLeases(resultsDir);
  const limiters = new Map<string, ProviderLimiter>();
  const ctx = {
    root: opts.root,
    env: opts.env ?? environment(opts.root),
    settings: config.providers,
    spender: dryRun ? null : ledger,
    requireKeys: !dryRun,
    onRetry: log,
    limiters,
  };
  // Only the judges some chosen subject needs are built (and need keys).
  const neededJudges = new Set(
    chosen.flatMap((s) => crossFamilyPanel(s.family, config.judges).map((j) => j.id)),
  );
  const subjects: RunSubject[] = [];
  for (const s of chosen)
    subjects.push({
      id: s.id,
      config: s,
      provider: await inConfig(configFile, () => createProvider(s, 'subject', ctx)),
      priced: priceOf(s, `subject ${s.id}`),
      parameters: resolveParameters(s.provider, s.model, s),
      maxTokens: outputLimit(s.provider, s.model, s.max_tokens),
    });
  const judges: RunJudge[] = [];
  for (const j of config.judges.filter((j) => neededJudges.has(j.id)))
    judges.push({
      ...judgeModelOf(j),
      config: j,
      provider: await inConfig(configFile, () => createProvider(j, 'judge', ctx)),
      priced: priceOf(j, `judge ${j.id}`),
    });
  const runs = opts.runs ?? config.runs;
  const mode = opts.mode ?? config.mode;
  const configHash = sha256(
    canonicalize({
      config,
      narrowing: {
        subjects: opts.subjects ?? null,
        questions: opts.questions ?? null,
        ...(opts.sample !== undefined ? { sample: opts.sample } : {}),
        ...(opts.questionIds ? { questionIds: [...opts.questionIds].sort() } : {}),
        runs,
      },
    }) ?? '',
  );
  const questionsHash = sha256(await readFile(questionsPath));
  const judgeHash =
    config.judge_prompt.sha256 ?? judgePromptHash(config.judge_prompt.text ?? judgePromptText());
  const indexChecksum = index?.checksum ?? 'not-built';
  // Providers' own versions (code or recorded data) belong to the run's identity too.
  const providerVersions = [...subjects.map((s) => s.provider), ...judges.map((j) => j.provider)]
    .map((p) => `${p.id}@${p.version ?? ''}`)
    .concat(`checks@${CHECKS_VERSION}`)
    .join(',');
  const runId = `${config.name}-${sha256([configHash, indexChecksum, questionsHash, judgeHash, subjectPrompt.sha256, providerVersions].join(':')).slice(0, 12)}`;
  if (!dryRun && index === null) throw new RgeError('no index to run on');
  return {
    config,
    root: opts.root,
    subjectPrompt,
    questions,
    subjects,
    judges,
    runs,
    index,
    info: {
      runId,
      seed: config.seed,
      configHash,
      indexChecksum,
      questionsHash,
      reportsDir: at(opts.reportsDir ?? 'reports'),
      resultsDir,
      stateFile: join(resultsDir, '.runs', `${runId}.json`),
      labelsDir: at(config.validation.labels_dir),
      minKappa: config.validation.min_kappa,
      limitation: config.validation.limitation,
      gfsWeights: { ...config.gfs_weights },
      mode,
      configFile,
      cells: subjects.length * questions.length * runs,
      describe: {
        config: config.name,
        subjects: subjects.map((x) => described(x.id, x.config, x.parameters, x.maxTokens)),
        judges: judges.map((j) => described(j.id, j.config, j.parameters, j.maxTokens)),
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
          version: subjectPrompt.version,
          sha256: subjectPrompt.sha256,
          file: config.subject_prompt.file,
        },
        judgePrompt: { version: config.judge_prompt.version, sha256: judgeHash },
      },
    },
    cells: new CellStores(resultsDir, dryRun),
    ledger,
    leases,
    inbox: new ReplyInbox(resultsDir, leases.owner),
    retrieved: new Map(),
    warnings: [],
    dryRun,
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
