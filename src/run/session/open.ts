/**
 * A run, opened: its plan (plan/plan.ts, a value) beside what the plan is run with — the index, the results
 * folder's stores (cells, budget ledger, leases, the reply inbox) and, when the session is to call
 * models, every subject's and judge's provider, built through the one registry (keys checked before
 * anything is spent). The work of the run (its cells, panels and verdict cells) is derived once per
 * session (work.ts).
 *
 * A slice of a run (the Vitest entry's files, src/vitest/evals-slices.ts) is the same session with a
 * narrower plan: `narrowed` shares the index, the stores and the providers.
 */
import { createProvider, createSystem, SYSTEM_DEFAULTS } from '../../models/registry.ts';
import { environment } from '../../providers/credentials.ts';
import type { ProviderLimiter } from '../../providers/metered.ts';
import type { Provider } from '../../providers/types.ts';
import { type Index, openIndex } from '../../retrieval/index.ts';
import type { CellStores } from '../../store/cells.ts';
import { ResultsFolder } from '../../store/folder.ts';
import type { ReplyInbox } from '../../store/inbox.ts';
import type { CellLeases } from '../../store/leases.ts';
import type { BudgetLedger } from '../../store/ledger.ts';
import { RgeError } from '../../util/errors.ts';
import { capSourceOf } from '../config/config.ts';
import { indexExists } from '../config/corpus-index.ts';
import { inConfig, type LoadContext, planFromRequest, scratchIndexDir } from '../plan/load.ts';
import type { PlannedJudge, PlannedSubject, RunPlan } from '../plan/plan.ts';
import { resolveFrom, usesIndex } from '../plan/plan.ts';
import type { RunRequest } from '../plan/request.ts';
import { RunRetrieval } from './retrieval.ts';
import { PipelineSubject, type SubjectSystem, SystemSubject } from './subjects.ts';
import { RunWork } from './work.ts';

export interface OpenContext {
  /** the folder the plan's relative paths are resolved against */
  root: string;
  /** where retry notices and budget warnings go */
  log?: (line: string) => void;
  /** the environment (process env over .env); for tests */
  env?: Record<string, string | undefined>;
  /** read what is stored, write nothing, call nothing, need no key (`rge eval run --dry-run`) */
  dryRun?: boolean;
  /** build the providers, to run the stages (default); false: the session only reads the stores */
  calls?: boolean;
  /** a dry run's temporary folder, where it built the index it needed (plan/load.ts `LoadContext.scratch`) */
  scratch?: string;
}

/** What a session runs its plan with; a narrowed session shares it. */
interface RunResources {
  root: string;
  index: Index | null;
  /** the results folder: its cell stores, ledger, leases and this process's inbox */
  folder: ResultsFolder;
  /** providers by `subject:<id>` / `judge:<id>`, and each subject as the stages call it; null when the session only reads */
  callers: Callers | null;
  dryRun: boolean;
  log: (line: string) => void;
  /** each question's top-k, retrieved once and shared by every subject, run index and slice */
  retrieval: RunRetrieval;
}

export class RunSession {
  /** the run's cells, panels and verdict cells, derived once for this session's plan */
  readonly work: RunWork;

  private constructor(
    readonly plan: RunPlan,
    private readonly resources: RunResources,
  ) {
    this.work = new RunWork(plan, resources.retrieval);
  }

  /** Opens a plan: its index, its results folder's stores, and (to call) its providers. */
  static async open(plan: RunPlan, ctx: OpenContext): Promise<RunSession> {
    const dryRun = ctx.dryRun === true;
    const log = ctx.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    const folder = new ResultsFolder(plan.info.resultsDir, {
      readOnly: dryRun,
      ledger: {
        capUsd: plan.config.budget.cap_usd,
        warnUsd: plan.config.budget.warn_usd,
        configFile: plan.info.configFile,
        capSource: capSourceOf(plan.request.config, plan.request.overrides),
        onWarn: log,
      },
    });
    const index = await openPlannedIndex(plan, ctx);
    if (index && index.checksum !== plan.info.indexChecksum)
      throw new Error(
        `the index at ${index.dir} (${index.checksum}) is not the one run ${plan.info.runId} was planned on (${plan.info.indexChecksum})`,
      );
    // a dry run builds them too, without keys: a model the registry cannot build is found before a real run
    const calls = ctx.calls ?? true;
    return new RunSession(plan, {
      root: ctx.root,
      index,
      folder,
      callers: calls ? await buildCallers(plan, ctx, dryRun ? null : folder.ledger, log) : null,
      dryRun,
      log,
      retrieval: new RunRetrieval(index, plan.config.retrieval.k),
    });
  }

  /** The same session for a narrower plan of the same run (a slice): the index, stores and providers are shared. */
  narrowed(plan: RunPlan): RunSession {
    return new RunSession(plan, this.resources);
  }

  get root(): string {
    return this.resources.root;
  }
  get index(): Index | null {
    return this.resources.index;
  }
  /** the results folder the session's stores are in */
  get resultsDir(): string {
    return this.plan.info.resultsDir;
  }
  get folder(): ResultsFolder {
    return this.resources.folder;
  }
  get cells(): CellStores {
    return this.resources.folder.cells;
  }
  get ledger(): BudgetLedger {
    return this.resources.folder.ledger;
  }
  get leases(): CellLeases {
    return this.resources.folder.leases;
  }
  get inbox(): ReplyInbox {
    return this.resources.folder.inbox;
  }
  get dryRun(): boolean {
    return this.resources.dryRun;
  }
  get log(): (line: string) => void {
    return this.resources.log;
  }

  /** The provider of a judge or a model subject; an error when the session was opened only to read. */
  providerOf(role: 'subject' | 'judge', id: string): Provider {
    const provider = this.resources.callers?.providers.get(`${role}:${id}`);
    if (!provider)
      throw new Error(`${role} ${id} has no provider in this session (opened to read, or a system)`);
    return provider;
  }

  /** A subject as the stages call it (rge's pipeline or a system); an error when opened only to read. */
  subjectOf(id: string): SubjectSystem {
    const subject = this.resources.callers?.subjects.get(id);
    if (!subject) throw new Error(`subject ${id} cannot be asked in this session (it was opened to read)`);
    return subject;
  }

  /** Frees what the subjects hold (a system's processes, sockets); the session can no longer call them. */
  async close(): Promise<void> {
    for (const subject of this.resources.callers?.subjects.values() ?? []) await subject.close();
  }

  /** The answer store of a subject's model. */
  answers(subject: Pick<PlannedSubject, 'provider' | 'model'>) {
    return this.cells.answers(subject.provider, subject.model);
  }

  /** The verdict store of a judge's model. */
  verdicts(judge: Pick<PlannedJudge, 'provider' | 'model'>) {
    return this.cells.verdicts(judge.provider, judge.model);
  }

  /** The store of a judge's model's paid first replies kept for their retry. */
  attempts(judge: Pick<PlannedJudge, 'provider' | 'model'>) {
    return this.cells.attempts(judge.provider, judge.model);
  }

  /** What the checks computed from a subject's model's answers (stages/answer-checks.ts). */
  checks(subject: Pick<PlannedSubject, 'provider' | 'model'>) {
    return this.cells.checks(subject.provider, subject.model);
  }
}

/**
 * The index a plan was planned on: the config's (or the one a dry run built in its temporary folder);
 * none for a dry run's index not built, or a run of systems only, which reads no index of rge's.
 */
async function openPlannedIndex(plan: RunPlan, ctx: OpenContext): Promise<Index | null> {
  const corpus = plan.config.corpus;
  if (!corpus || !usesIndex(plan.subjects) || plan.info.indexChecksum === 'not-built') return null;
  const scratch = ctx.scratch === undefined ? null : scratchIndexDir(ctx.scratch);
  return openIndex(scratch && indexExists(scratch) ? scratch : resolveFrom(ctx.root, corpus.index));
}

/** What a session calls: the judges' and model subjects' providers, and every subject as the stages ask it. */
interface Callers {
  providers: Map<string, Provider>;
  subjects: Map<string, SubjectSystem>;
}

/**
 * Every judge's and subject's provider or system, built through the one registry; each must be what the
 * plan identified (its id and version are part of every cell's identity).
 */
async function buildCallers(
  plan: RunPlan,
  ctx: OpenContext,
  spender: BudgetLedger | null,
  log: (line: string) => void,
): Promise<Callers> {
  const registry = {
    root: ctx.root,
    env: ctx.env ?? environment(ctx.root),
    settings: plan.config.providers,
    spender,
    requireKeys: spender !== null,
    onRetry: log,
    limiters: new Map<string, ProviderLimiter>(),
  };
  const callers: Callers = { providers: new Map(), subjects: new Map() };
  const inConfigFile = <T>(make: () => Promise<T>) => inConfig(plan.info.configFile, make);
  for (const s of plan.subjects) {
    if (s.kind === 'system') {
      // a command runs in its config's folder unless the config says where (its cwd)
      const configFile = plan.info.configFile;
      const system = await inConfigFile(() => createSystem(s.config, { ...registry, configFile }));
      const planned = builtVersion(s.identity.version);
      if (system.version !== planned)
        throw new RgeError(
          `subject ${s.id}: the system is now at version ${system.version}, planned at ${planned} (its file changed during the run?)`,
        );
      const concurrency = s.config.concurrency ?? SYSTEM_DEFAULTS.concurrency;
      callers.subjects.set(s.id, new SystemSubject(s, system, spender, concurrency));
      continue;
    }
    const provider = await inConfigFile(() => createProvider(s.config, 'subject', registry));
    checkIdentity('subject', s, provider);
    callers.providers.set(`subject:${s.id}`, provider);
    callers.subjects.set(s.id, new PipelineSubject(provider));
  }
  for (const j of plan.judges) {
    const provider = await inConfigFile(() => createProvider(j.config, 'judge', registry));
    checkIdentity('judge', j, provider);
    callers.providers.set(`judge:${j.id}`, provider);
  }
  return callers;
}

/** A model's version as its provider states it: the plan's, less a rerun's epoch (`+rerun.N`). */
const builtVersion = (planned: string) => planned.replace(/\+rerun\.\d+$/, '');

function checkIdentity(role: string, m: PlannedSubject | PlannedJudge, provider: Provider): void {
  if (provider.id !== m.identity.id || (provider.version ?? '') !== builtVersion(m.identity.version))
    throw new Error(
      `${role} ${m.id}: its provider is ${provider.id}@${provider.version ?? ''}, planned as ${m.identity.id}@${m.identity.version}`,
    );
}

/** Plans a request and opens its plan: the two steps of a one-process run (tools, tests). */
export async function openRun(request: RunRequest, ctx: OpenContext & LoadContext): Promise<RunSession> {
  const plan = await planFromRequest(request, ctx);
  for (const note of plan.notes) (ctx.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(note);
  return RunSession.open(plan, ctx);
}
