/**
 * The one place a provider is built, for subjects and judges alike, from a model entry of the run config:
 * `offline` baselines (subjects), `heuristic` judges, `replay` of recorded answers, and the live
 * providers (`anthropic`, `openai`, `gemini`, `openai-compatible`) wrapped in `MeteredProvider`, which
 * prices, rate-limits, retries and budgets every live call the same way.
 *
 * The provider's family is the config's `family` (the cross-family panel reads the config, so the two
 * must agree). Keys are checked here, for every live model of the run, before anything is called; a
 * dry run builds the same providers without keys (nothing is called).
 */
import { access } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { heuristicJudge } from '../judging/heuristic/index.ts';
import {
  FREE,
  type LiveProvider,
  type ModelPrices,
  OFFLINE_SUBJECT_MODELS,
  type PricedModel,
  pricedModel,
} from '../providers/catalogue.ts';
import { contractOf, parameterIssues, type StatedParameters } from '../providers/contract.ts';
import { apiKeyFor, baseUrlFor, compatibleKey } from '../providers/credentials.ts';
import type { LiveAdapter } from '../providers/live/adapter.ts';
import {
  DEFAULT_LIMITS,
  MeteredProvider,
  ProviderLimiter,
  type RateLimits,
  type Spender,
} from '../providers/metered.ts';
import { EagerProvider } from '../providers/offline/eager.ts';
import { ExtractiveProvider } from '../providers/offline/extractive.ts';
import { ReplayProvider } from '../providers/replay.ts';
import type { Provider } from '../providers/types.ts';
import { isSystemProvider } from '../subject/config.ts';
import type { SystemUnderTest } from '../system/contract.ts';
import { RgeError } from '../util/errors.ts';

export { OFFLINE_SUBJECT_MODELS };

export type OfflineSubjectModel = (typeof OFFLINE_SUBJECT_MODELS)[number];

/**
 * The version of rge's request mapping for live providers: part of every cell's identity, so a change
 * in how requests are built (caching blocks, structured output) never reuses answers of the old one.
 * live-v2: each model is sent what its contract allows (src/providers/contract.ts): no sampling
 * parameter to Claude, Gemini's thinking level as the REST enum and its thinking allowance, and the
 * reply's stop reason recorded.
 */
export const LIVE_ADAPTER_VERSION = 'live-v2';

/** A system subject entry of the run config (src/subject/config.ts: provider module, http or command). */
export interface SystemSpec {
  id: string;
  provider: string;
  model: string;
  module?: string | undefined;
  export?: string | undefined;
  url?: string | undefined;
  headers?: Record<string, string> | undefined;
  command?: string[] | undefined;
  /** command: the folder it runs in (relative to the root; default the root) */
  cwd?: string | undefined;
  pool?: number | null | undefined;
  version?: string | undefined;
  version_files?: string[] | undefined;
  timeout_ms?: number | undefined;
  concurrency?: number | undefined;
  rpm?: number | null | undefined;
  max_attempts?: number | undefined;
}

/** A model entry of the run config (a subject or a judge), with the parameters it states. */
export interface ModelSpec extends StatedParameters {
  id: string;
  provider: string;
  model: string;
  family: string;
  replay_file?: string | undefined;
  base_url?: string | undefined;
  api_key_env?: string | undefined;
  prices?: ModelPrices | undefined;
}

/** Per-provider settings of the run config (`providers:`). */
export interface ProviderSettingsSpec {
  base_url?: string | undefined;
  concurrency: number;
  rpm: number | null;
  tpm: number | null;
  timeout_ms: number;
  max_attempts: number;
  min_backoff_ms: number;
  max_backoff_ms: number;
}

export interface RegistryContext {
  /** the repository root; relative files are resolved against it */
  root: string;
  /** environment (process env over .env) */
  env: Record<string, string | undefined>;
  settings: Partial<Record<LiveProvider, ProviderSettingsSpec>>;
  /** the budget; null for a dry run (nothing is called) */
  spender: Spender | null;
  /** false for a dry run: no key is needed because nothing is called */
  requireKeys: boolean;
  onRetry?: (message: string) => void;
  /** one limiter per provider account, shared by all its models */
  limiters?: Map<string, ProviderLimiter>;
}

export function isOfflineSubjectModel(model: string): model is OfflineSubjectModel {
  return (OFFLINE_SUBJECT_MODELS as readonly string[]).includes(model);
}

export function isLiveProvider(provider: string): provider is LiveProvider {
  return ['anthropic', 'openai', 'gemini', 'openai-compatible'].includes(provider);
}

function limitsOf(settings: ProviderSettingsSpec | undefined): RateLimits {
  if (!settings) return DEFAULT_LIMITS;
  return {
    concurrency: settings.concurrency,
    rpm: settings.rpm,
    tpm: settings.tpm,
    timeoutMs: settings.timeout_ms,
    maxAttempts: settings.max_attempts,
    minBackoffMs: settings.min_backoff_ms,
    maxBackoffMs: settings.max_backoff_ms,
  };
}

/** The price of any provider's model: free for offline ones, the catalogue's or the config's for live ones. */
export function priceOf(spec: ModelSpec, who: string): PricedModel {
  return isLiveProvider(spec.provider) ? pricedModel(who, spec.provider, spec.model, spec.prices) : FREE;
}

/**
 * The live adapter of a model entry. Each adapter module (and its SDK, 0.1-0.3 s to load) is imported
 * only when a run has a model of its provider, so offline runs and the CLI never load them.
 */
async function liveAdapter(
  spec: ModelSpec,
  provider: LiveProvider,
  who: string,
  ctx: RegistryContext,
): Promise<LiveAdapter> {
  const settings = ctx.settings[provider];
  const timeoutMs = (settings ?? { timeout_ms: DEFAULT_LIMITS.timeoutMs }).timeout_ms;
  const { contract } = contractOf(provider, spec.model);
  if (provider === 'openai-compatible') {
    if (!spec.base_url) throw new RgeError(`${who}: an openai-compatible model needs base_url`);
    const { OpenAIAdapter } = await import('../providers/live/openai.ts');
    return new OpenAIAdapter({
      provider: 'openai-compatible',
      apiKey: ctx.requireKeys ? compatibleKey(who, spec.api_key_env, ctx.env) : 'dry-run',
      baseURL: spec.base_url,
      timeoutMs,
      contract,
    });
  }
  const baseURL = baseUrlFor(provider, settings?.base_url, ctx.env);
  // called once the adapter's module is loaded (a missing key stops the run after the SDK loads)
  const options = () => ({
    apiKey: ctx.requireKeys ? apiKeyFor(provider, who, ctx.env) : 'dry-run',
    ...(baseURL ? { baseURL } : {}),
    timeoutMs,
    contract,
  });
  switch (provider) {
    case 'anthropic': {
      const { AnthropicAdapter } = await import('../providers/live/anthropic.ts');
      return new AnthropicAdapter(options());
    }
    case 'openai': {
      const { OpenAIAdapter } = await import('../providers/live/openai.ts');
      return new OpenAIAdapter({ provider: 'openai', ...options() });
    }
    case 'gemini': {
      const { GeminiAdapter } = await import('../providers/live/gemini.ts');
      return new GeminiAdapter(options());
    }
  }
}

/** Builds the provider of a subject or judge entry of the run config. */
export async function createProvider(
  spec: ModelSpec,
  role: 'subject' | 'judge',
  ctx: RegistryContext,
): Promise<Provider> {
  const who = `${role} ${spec.id}`;
  const refused = parameterIssues(spec.provider, spec.model, spec);
  if (refused.length > 0)
    throw new RgeError(`${who}: ${refused.map((i) => `${i.field}: ${i.message}`).join('; ')}`);
  if (isLiveProvider(spec.provider)) {
    const priced = pricedModel(who, spec.provider, spec.model, spec.prices);
    const limiters = ctx.limiters ?? new Map<string, ProviderLimiter>();
    const account =
      spec.provider === 'openai-compatible' ? `${spec.provider}:${spec.base_url}` : spec.provider;
    let limiter = limiters.get(account);
    if (!limiter) {
      limiter = new ProviderLimiter(limitsOf(ctx.settings[spec.provider]));
      limiters.set(account, limiter);
    }
    return new MeteredProvider({
      id: `${spec.provider}/${spec.model}`,
      family: spec.family,
      version: LIVE_ADAPTER_VERSION,
      role,
      adapter: await liveAdapter(spec, spec.provider, who, ctx),
      priced,
      limiter,
      spender: ctx.spender,
      ...(ctx.onRetry ? { onRetry: ctx.onRetry } : {}),
    });
  }
  switch (spec.provider) {
    case 'offline':
      if (role !== 'subject')
        throw new RgeError(`${who}: offline providers are subjects; judges use heuristic`);
      if (spec.model === 'extractive') return new ExtractiveProvider({ family: spec.family });
      if (spec.model === 'eager') return new EagerProvider({ family: spec.family });
      throw new RgeError(
        `${who}: no offline model ${spec.model}: one of ${OFFLINE_SUBJECT_MODELS.join(', ')}`,
      );
    case 'heuristic': {
      if (role !== 'judge') throw new RgeError(`${who}: heuristic providers are judges`);
      return heuristicJudge(spec.model);
    }
    case 'replay': {
      if (role !== 'subject') throw new RgeError(`${who}: replay providers are subjects`);
      if (spec.replay_file === undefined) throw new RgeError(`${who}: provider replay needs replay_file`);
      const file = isAbsolute(spec.replay_file) ? spec.replay_file : resolve(ctx.root, spec.replay_file);
      return ReplayProvider.load(file, { family: spec.family, id: `replay/${spec.model}` });
    }
    default:
      throw new RgeError(`${who}: unknown provider ${spec.provider}`);
  }
}

/**
 * What identifies the behaviour of a model entry's provider, for the run's plan: `provider/model` and
 * the live adapter's version for live providers (nothing is loaded and no key is needed); the provider's
 * own id and version for offline, heuristic and replay providers (built here: a replay file is read and
 * checked). A parameter the model's contract refuses is an error naming the entry.
 */
export async function providerIdentity(
  spec: ModelSpec,
  role: 'subject' | 'judge',
  ctx: Pick<RegistryContext, 'root'>,
): Promise<{ id: string; version: string }> {
  if (isLiveProvider(spec.provider)) {
    const refused = parameterIssues(spec.provider, spec.model, spec);
    if (refused.length > 0)
      throw new RgeError(`${role} ${spec.id}: ${refused.map((i) => `${i.field}: ${i.message}`).join('; ')}`);
    return { id: `${spec.provider}/${spec.model}`, version: LIVE_ADAPTER_VERSION };
  }
  if (role === 'subject' && isSystemProvider(spec.provider))
    return { id: `${spec.provider}/${spec.model}`, version: await systemVersion(spec, ctx.root) };
  const provider = await createProvider(spec, role, {
    root: ctx.root,
    env: {},
    settings: {},
    spender: null,
    requireKeys: false,
  });
  return { id: provider.id, version: provider.version ?? '' };
}

/** A system subject's defaults (src/system): per question, in flight at once, attempts over http. */
export const SYSTEM_DEFAULTS = { timeoutMs: 120_000, concurrency: 4, maxAttempts: 4 } as const;

/** A header value with `${NAME}` read from the environment; a variable that is not set is an error naming it. */
function headerValue(
  who: string,
  name: string,
  template: string,
  env: Record<string, string | undefined>,
): string {
  return template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => {
    const value = env[variable];
    if (value === undefined || value === '')
      throw new RgeError(`${who}: header ${name} reads \${${variable}}, which is not set in the environment`);
    return value;
  });
}

/** Whether a file is there. */
async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** Where a system subject's module is, absolute. */
function modulePath(spec: SystemSpec, root: string): string {
  const file = spec.module as string;
  return isAbsolute(file) ? file : resolve(root, file);
}

/**
 * The version of a system subject: the config's `version`; else the sha256 over its `version_files`
 * and, for a module, its file (src/system/version.ts); a module alone is its file's sha256. An http or
 * command system with neither is '' (declare one to have a changed system asked again, or run
 * `rge eval run --rerun SUBJECT`).
 */
export async function systemVersion(spec: SystemSpec, root: string): Promise<string> {
  if (spec.version !== undefined) return spec.version;
  const who = `subject ${spec.id}`;
  const module = spec.provider === 'module' ? modulePath(spec, root) : null;
  if (module !== null && !(await exists(module))) throw new RgeError(`${who}: no module at ${module}`);
  if (spec.version_files !== undefined) {
    const { versionOfFiles } = await import('../system/version.ts');
    return versionOfFiles(who, [...(module !== null ? [module] : []), ...spec.version_files], root);
  }
  if (module === null) return '';
  const { sha256File } = await import('../util/fs.ts');
  return sha256File(module);
}

/** A system's pre-flight check; its error names the subject (a config may have several systems). */
async function preflight(who: string, check: () => Promise<unknown>): Promise<void> {
  try {
    await check();
  } catch (err) {
    if (err instanceof RgeError && err.file === undefined)
      throw new RgeError(`${who}: ${err.message}`, { exitCode: err.exitCode, cause: err });
    throw err;
  }
}

/**
 * A system subject as rge calls it (src/system), checked before the first question: a module is loaded
 * and its export found, an http endpoint answers, a command's program exists; each failure names it.
 * Its `version` is the one the run's identity records (`systemVersion`).
 */
export async function createSystem(
  spec: SystemSpec,
  ctx: Pick<RegistryContext, 'root' | 'env' | 'onRetry'>,
): Promise<SystemUnderTest & { version: string }> {
  const who = `subject ${spec.id}`;
  const system = await import('../system/index.ts');
  const timeoutMs = spec.timeout_ms ?? SYSTEM_DEFAULTS.timeoutMs;
  const concurrency = spec.concurrency ?? SYSTEM_DEFAULTS.concurrency;
  const version = await systemVersion(spec, ctx.root);
  if (spec.provider === 'module') {
    const loaded = await system.loadModuleSystem({
      file: modulePath(spec, ctx.root),
      ...(spec.export !== undefined ? { exportName: spec.export } : {}),
      timeoutMs,
    });
    return Object.assign(loaded, { version });
  }
  if (spec.provider === 'http') {
    const url = spec.url as string;
    const headers = Object.fromEntries(
      Object.entries(spec.headers ?? {}).map(([name, value]) => [
        name,
        headerValue(who, name, value, ctx.env),
      ]),
    );
    await preflight(who, () => system.checkReachable(url, timeoutMs));
    const limits = { ...DEFAULT_LIMITS, concurrency, rpm: spec.rpm ?? null };
    const sut = system.httpSystem({
      url,
      headers,
      timeoutMs,
      maxAttempts: spec.max_attempts ?? SYSTEM_DEFAULTS.maxAttempts,
      minBackoffMs: limits.minBackoffMs,
      maxBackoffMs: limits.maxBackoffMs,
      concurrency,
      rpm: limits.rpm,
      ...(ctx.onRetry ? { onRetry: ctx.onRetry } : {}),
    });
    return Object.assign(sut, { version });
  }
  const argv = spec.command as string[];
  const cwd = resolve(ctx.root, spec.cwd ?? '.');
  await preflight(who, () => system.checkProgram(argv, cwd));
  const sut = system.commandSystem({ argv, cwd, timeoutMs, pool: spec.pool ?? null, concurrency });
  return Object.assign(sut, { version });
}

/** A subject's provider with no budget and no live calls expected (tests, tools); keys are required. */
export async function createSubjectProvider(spec: ModelSpec, opts: { root: string }): Promise<Provider> {
  return createProvider(spec, 'subject', {
    root: opts.root,
    env: process.env,
    settings: {},
    spender: null,
    requireKeys: true,
  });
}
