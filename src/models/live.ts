/**
 * A live model as a run calls it: its entry's adapter (kinds.ts) wrapped in `MeteredProvider`, which
 * prices, rate-limits, retries and budgets every live call the same way. A vendor's key and base URL
 * come from the environment (src/providers/credentials.ts); an OpenAI-compatible server's from its entry.
 */
import type { LiveProvider } from '../providers/catalogue.ts';
import { pricedModel } from '../providers/catalogue.ts';
import { contractOf } from '../providers/contract.ts';
import { apiKeyFor, baseUrlFor, compatibleKey, type Vendor } from '../providers/credentials.ts';
import type { LiveAdapter } from '../providers/live/adapter.ts';
import { DEFAULT_LIMITS, MeteredProvider, ProviderLimiter, type RateLimits } from '../providers/metered.ts';
import { RgeError } from '../util/errors.ts';
import type { LiveKind } from './kinds.ts';
import type { ModelSpec, ProviderSettingsSpec, RegistryContext, Role } from './spec.ts';

/**
 * The version of rge's request mapping for live providers: part of every cell's identity, so a change
 * in how requests are built (caching blocks, structured output) never reuses answers of the old one.
 * live-v2: each model is sent what its contract allows (src/providers/contract.ts): no sampling
 * parameter to Claude, Gemini's thinking level as the REST enum and its thinking allowance, and the
 * reply's stop reason recorded.
 */
export const LIVE_ADAPTER_VERSION = 'live-v2';

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

/**
 * The live adapter of a model entry. Each adapter module (and its SDK, 0.1-0.3 s to load) is imported
 * only when a run has a model of its provider, so offline runs and the CLI never load them.
 */
async function liveAdapter(
  spec: ModelSpec & { provider: LiveProvider },
  entry: LiveKind,
  who: string,
  ctx: RegistryContext,
): Promise<LiveAdapter> {
  const settings = ctx.settings[spec.provider];
  const timeoutMs = (settings ?? { timeout_ms: DEFAULT_LIMITS.timeoutMs }).timeout_ms;
  const { contract } = contractOf(spec.provider, spec.model);
  if (entry.kind === 'openai-compatible') {
    const baseURL = spec.base_url;
    if (!baseURL) throw new RgeError(`${who}: an openai-compatible model needs base_url`);
    return entry.adapter(() => ({
      apiKey: ctx.requireKeys ? compatibleKey(who, spec.api_key_env, ctx.env) : 'dry-run',
      baseURL,
      timeoutMs,
      contract,
    }));
  }
  // a `live` entry is a vendor's: the table's type (`KindTable`) gives that kind to no other name
  const vendor = spec.provider as Vendor;
  const baseURL = baseUrlFor(vendor, settings?.base_url, ctx.env);
  return entry.adapter(() => ({
    apiKey: ctx.requireKeys ? apiKeyFor(vendor, who, ctx.env) : 'dry-run',
    ...(baseURL ? { baseURL } : {}),
    timeoutMs,
    contract,
  }));
}

/** A live model entry's provider: priced, rate-limited (one limiter per account), budgeted. */
export async function meteredProvider(
  spec: ModelSpec & { provider: LiveProvider },
  entry: LiveKind,
  role: Role,
  ctx: RegistryContext,
): Promise<MeteredProvider> {
  const who = `${role} ${spec.id}`;
  const priced = pricedModel(who, spec.provider, spec.model, spec.prices);
  const limiters = ctx.limiters ?? new Map<string, ProviderLimiter>();
  // a server named by its endpoint is its own account
  const account = entry.identity === 'model+endpoint' ? `${spec.provider}:${spec.base_url}` : spec.provider;
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
    adapter: await liveAdapter(spec, entry, who, ctx),
    priced,
    limiter,
    spender: ctx.spender,
    ...(ctx.onRetry ? { onRetry: ctx.onRetry } : {}),
  });
}
