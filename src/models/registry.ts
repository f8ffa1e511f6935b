/**
 * The one place a provider is built, for subjects and judges alike, from a model entry of the run config,
 * through the table of kinds (kinds.ts): `offline` baselines (subjects), `heuristic` judges, `replay` of
 * recorded answers, the live providers (`anthropic`, `openai`, `gemini`, `openai-compatible`) wrapped in
 * `MeteredProvider` (live.ts), and a user's systems (`module`, `http`, `command`: systems.ts).
 *
 * The provider's family is the config's `family` (the cross-family panel reads the config, so the two
 * must agree). Keys are checked here, for every live model of the run, before anything is called; a
 * dry run builds the same providers without keys (nothing is called).
 */
import { dirname } from 'node:path';
import {
  FREE,
  type LiveProvider,
  OFFLINE_SUBJECT_MODELS,
  type PricedModel,
  pricedModel,
} from '../providers/catalogue.ts';
import { parameterIssues } from '../providers/contract.ts';
import type { Provider } from '../providers/types.ts';
import type { SystemUnderTest } from '../system/contract.ts';
import { RgeError } from '../util/errors.ts';
import { findKind, isMetered, kindOf } from './kinds.ts';
import { LIVE_ADAPTER_VERSION, meteredProvider } from './live.ts';
import type { ModelSpec, RegistryContext, Role, SystemSpec } from './spec.ts';
import { SYSTEM_DEFAULTS, systemVersion } from './systems.ts';

export type { ModelSpec, ProviderSettingsSpec, RegistryContext, SystemSpec } from './spec.ts';
export { LIVE_ADAPTER_VERSION, OFFLINE_SUBJECT_MODELS, SYSTEM_DEFAULTS, systemVersion };

export type OfflineSubjectModel = (typeof OFFLINE_SUBJECT_MODELS)[number];

export function isOfflineSubjectModel(model: string): model is OfflineSubjectModel {
  return (OFFLINE_SUBJECT_MODELS as readonly string[]).includes(model);
}

/** Whether a provider name is a live one (its calls metered): the table's live entries, `LIVE_PROVIDERS`. */
export function isLiveProvider(provider: string): provider is LiveProvider {
  const entry = findKind(provider);
  return entry !== undefined && isMetered(entry.kind);
}

/** The price of any provider's model: free for offline ones, the catalogue's or the config's for live ones. */
export function priceOf(spec: ModelSpec, who: string): PricedModel {
  return isLiveProvider(spec.provider) ? pricedModel(who, spec.provider, spec.model, spec.prices) : FREE;
}

/** The parameters an entry states that its model's contract refuses, as one error naming the entry. */
function refuseParameters(spec: ModelSpec, who: string): void {
  const refused = parameterIssues(spec.provider, spec.model, spec);
  if (refused.length > 0)
    throw new RgeError(`${who}: ${refused.map((i) => `${i.field}: ${i.message}`).join('; ')}`);
}

/** Builds the provider of a subject or judge entry of the run config, as the table of kinds says. */
export async function createProvider(spec: ModelSpec, role: Role, ctx: RegistryContext): Promise<Provider> {
  const who = `${role} ${spec.id}`;
  refuseParameters(spec, who);
  const entry = findKind(spec.provider);
  if (entry === undefined) throw new RgeError(`${who}: unknown provider ${spec.provider}`);
  switch (entry.kind) {
    case 'live':
    case 'openai-compatible':
      return meteredProvider(spec as ModelSpec & { provider: LiveProvider }, entry, role, ctx);
    case 'offline':
    case 'replay':
      if (!(entry.roles as readonly Role[]).includes(role))
        throw new RgeError(
          `${who}: ${spec.provider} providers are ${entry.roles.map((r) => `${r}s`).join(' and ')}${entry.instead ? `; ${entry.instead}` : ''}`,
        );
      return entry.build(spec, who, ctx.root);
    case 'system':
      // a system is no model: createSystem builds it
      throw new RgeError(`${who}: unknown provider ${spec.provider}`);
  }
}

/**
 * What identifies the behaviour of a model entry's provider, for the run's plan: `provider/model` and
 * the live adapter's version for live providers (nothing is loaded and no key is needed); a system's
 * `provider/model` and its version (`systemVersion`); the provider's own id and version for offline,
 * heuristic and replay providers (built here: a replay file is read and checked). A parameter the
 * model's contract refuses is an error naming the entry.
 */
export async function providerIdentity(
  spec: ModelSpec,
  role: Role,
  ctx: Pick<RegistryContext, 'root'>,
): Promise<{ id: string; version: string }> {
  const kind = findKind(spec.provider)?.kind;
  if (kind !== undefined && isMetered(kind)) {
    refuseParameters(spec, `${role} ${spec.id}`);
    return { id: `${spec.provider}/${spec.model}`, version: LIVE_ADAPTER_VERSION };
  }
  // a system subject is a Subject entry of a system's provider name
  if (role === 'subject' && kind === 'system')
    return {
      id: `${spec.provider}/${spec.model}`,
      version: await systemVersion(spec as SystemSpec, ctx.root),
    };
  const provider = await createProvider(spec, role, {
    root: ctx.root,
    env: {},
    settings: {},
    spender: null,
    requireKeys: false,
  });
  return { id: provider.id, version: provider.version ?? '' };
}

/**
 * A system subject as rge calls it (src/system), checked before the first question (systems.ts: a
 * module is loaded and its export found, an http endpoint answers, a command's program exists); each
 * failure names it. A command runs in its `cwd`, else in its config's folder (`configFile`). Its
 * `version` is the one the run's identity records (`systemVersion`).
 */
export async function createSystem(
  spec: SystemSpec,
  ctx: Pick<RegistryContext, 'root' | 'env' | 'onRetry'> & { configFile?: string },
): Promise<SystemUnderTest & { version: string }> {
  const entry = kindOf(spec.provider);
  if (entry.kind !== 'system') throw new RgeError(`subject ${spec.id}: ${spec.provider} is not a system`);
  const version = await systemVersion(spec, ctx.root);
  const system = await entry.build(spec, {
    root: ctx.root,
    env: ctx.env,
    ...(ctx.onRetry ? { onRetry: ctx.onRetry } : {}),
    ...(ctx.configFile !== undefined ? { configDir: dirname(ctx.configFile) } : {}),
    who: `subject ${spec.id}`,
    timeoutMs: spec.timeout_ms ?? SYSTEM_DEFAULTS.timeoutMs,
    concurrency: spec.concurrency ?? SYSTEM_DEFAULTS.concurrency,
  });
  return Object.assign(system, { version });
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
