/**
 * A run, opened: its plan (plan.ts, a value) beside what the plan is run with — the index, the results
 * folder's stores (cells, budget ledger, leases, the reply inbox) and, when the session is to call
 * models, every subject's and judge's provider, built through the one registry (keys checked before
 * anything is spent). The work of the run (its cells, panels and verdict cells) is derived once per
 * session (work.ts).
 *
 * A slice of a run (the Vitest entry's files, src/vitest/evals-slices.ts) is the same session with a
 * narrower plan: `narrowed` shares the index, the stores and the providers.
 */
import { createProvider } from '../models/registry.ts';
import { environment } from '../providers/credentials.ts';
import type { ProviderLimiter } from '../providers/metered.ts';
import type { Provider } from '../providers/types.ts';
import { type Index, openIndex } from '../retrieval/index.ts';
import type { CellStores } from '../store/cells.ts';
import { ResultsFolder } from '../store/folder.ts';
import type { ReplyInbox } from '../store/inbox.ts';
import type { CellLeases } from '../store/leases.ts';
import type { BudgetLedger } from '../store/ledger.ts';
import { capSourceOf } from './config.ts';
import { inConfig, type LoadContext, planFromRequest } from './load.ts';
import type { PlannedJudge, PlannedSubject, RunPlan } from './plan.ts';
import { resolveFrom } from './plan.ts';
import type { RunRequest } from './request.ts';
import { RunRetrieval, RunWork } from './work.ts';

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
}

/** What a session runs its plan with; a narrowed session shares it. */
interface RunResources {
  root: string;
  index: Index | null;
  /** the results folder: its cell stores, ledger, leases and this process's inbox */
  folder: ResultsFolder;
  /** providers by `subject:<id>` / `judge:<id>`; null when the session only reads */
  providers: ReadonlyMap<string, Provider> | null;
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
    const indexDir = resolveFrom(ctx.root, plan.config.corpus.index);
    const index = plan.info.indexChecksum === 'not-built' ? null : await openIndex(indexDir);
    if (index && index.checksum !== plan.info.indexChecksum)
      throw new Error(
        `the index at ${indexDir} (${index.checksum}) is not the one run ${plan.info.runId} was planned on (${plan.info.indexChecksum})`,
      );
    // a dry run builds them too, without keys: a model the registry cannot build is found before a real run
    const calls = ctx.calls ?? true;
    return new RunSession(plan, {
      root: ctx.root,
      index,
      folder,
      providers: calls ? await buildProviders(plan, ctx, dryRun ? null : folder.ledger, log) : null,
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

  /** The provider of a subject or judge; an error when the session was opened only to read. */
  providerOf(role: 'subject' | 'judge', id: string): Provider {
    const provider = this.resources.providers?.get(`${role}:${id}`);
    if (!provider)
      throw new Error(`${role} ${id} has no provider in this session (it was opened to read, not to call)`);
    return provider;
  }

  /** The answer store of a subject's model. */
  answers(subject: Pick<PlannedSubject, 'provider' | 'model'>) {
    return this.cells.answers(subject.provider, subject.model);
  }

  /** The verdict store of a judge's model. */
  verdicts(judge: Pick<PlannedJudge, 'provider' | 'model'>) {
    return this.cells.verdicts(judge.provider, judge.model);
  }
}

/**
 * Every subject's and judge's provider, built through the one registry; each must be the provider the
 * plan identified (its id and version are part of every cell's identity).
 */
async function buildProviders(
  plan: RunPlan,
  ctx: OpenContext,
  spender: BudgetLedger | null,
  log: (line: string) => void,
): Promise<Map<string, Provider>> {
  const limiters = new Map<string, ProviderLimiter>();
  const registry = {
    root: ctx.root,
    env: ctx.env ?? environment(ctx.root),
    settings: plan.config.providers,
    spender,
    requireKeys: spender !== null,
    onRetry: log,
    limiters,
  };
  const providers = new Map<string, Provider>();
  const models = [
    ...plan.subjects.map((m) => ['subject', m] as const),
    ...plan.judges.map((m) => ['judge', m] as const),
  ];
  for (const [role, m] of models) {
    const provider = await inConfig(plan.info.configFile, () => createProvider(m.config, role, registry));
    if (provider.id !== m.identity.id || (provider.version ?? '') !== m.identity.version)
      throw new Error(
        `${role} ${m.id}: its provider is ${provider.id}@${provider.version ?? ''}, planned as ${m.identity.id}@${m.identity.version}`,
      );
    providers.set(`${role}:${m.id}`, provider);
  }
  return providers;
}

/** Plans a request and opens its plan: the two steps of a one-process run (tools, tests). */
export async function openRun(request: RunRequest, ctx: OpenContext & LoadContext): Promise<RunSession> {
  const plan = await planFromRequest(request, ctx);
  for (const note of plan.notes) (ctx.log ?? ((l: string) => process.stderr.write(`${l}\n`)))(note);
  return RunSession.open(plan, ctx);
}
