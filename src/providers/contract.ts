/**
 * What a model entry of a run config may ask for, and what rge sends: the model's sampling contract
 * (`ModelContract` in the catalogue) applied to the entry's `temperature`, `top_p`, `reasoning_effort`,
 * `thinking_level` and `send_seed`. rge never sends a parameter the contract forbids: `parameterIssues`
 * names each one (the run config's validation reports them at their YAML line, before any call), and
 * `resolveParameters` gives what a request sends: the contract's defaults, overlaid by what the entry
 * states.
 *
 * A live model without a catalogue entry (an `openai-compatible` server, or a vendor model priced in
 * the config) has no known contract: it is sent only what its entry states, checked against what its
 * provider's API takes at all (every Anthropic model is under API version 2026-10-21, which refuses
 * sampling parameters). Offline baselines take a temperature (their sampling); heuristic judges and
 * replay take one and ignore it.
 */
import {
  ANTHROPIC_API_VERSION,
  findModel,
  LIVE_PROVIDERS,
  type LiveProvider,
  type ModelContract,
} from './catalogue.ts';
import type { RequestParameters } from './types.ts';

/** The parameter fields of a model entry of the run config, as the config names them. */
export interface StatedParameters {
  temperature?: number | undefined;
  top_p?: number | undefined;
  reasoning_effort?: RequestParameters['reasoning_effort'] | undefined;
  thinking_level?: RequestParameters['thinking_level'] | undefined;
  send_seed?: boolean | undefined;
}

export type ParameterField = keyof StatedParameters;

/** One parameter a model entry may not state, and what to do about it. */
export interface ParameterIssue {
  field: ParameterField;
  message: string;
}

/** A model's contract and whether it comes from the catalogue (`known`) or from its provider alone. */
export interface ResolvedContract {
  contract: ModelContract;
  /** true for a catalogue model; false when only what the config states is sent */
  known: boolean;
}

const NOTHING_STATED = 'no catalogue entry: only what the config states is sent';

/** What a contract with no catalogue entry starts from (a fresh object each time). */
const base = () => ({
  seed: true,
  defaults: {},
  thinkingAllowanceTokens: 0,
  note: NOTHING_STATED,
  source: 'the run config',
});

/** An API that takes temperature and top_p, and a reasoning field. */
const sampling = (apiVersion: string | null, reasoning: ModelContract['reasoning']): ModelContract => ({
  ...base(),
  apiVersion,
  sampling: { temperature: true, top_p: true },
  reasoning,
});

/** No seed, no reasoning field, no top_p; a temperature or not. */
const unseeded = (
  apiVersion: string | null,
  temperature: boolean,
  rest: Pick<ModelContract, 'note' | 'source'> & Partial<Pick<ModelContract, 'defaults'>>,
): ModelContract => ({
  ...base(),
  apiVersion,
  sampling: { temperature, top_p: false },
  seed: false,
  reasoning: null,
  ...rest,
});

const openAiApi = () =>
  sampling(null, {
    field: 'reasoning_effort',
    values: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'],
  });

/**
 * What each live provider's API takes of a model it has no catalogue entry for. Typed over the live
 * providers, so a provider added to `LIVE_PROVIDERS` does not compile until it says what its API takes.
 */
export const LIVE_CONTRACTS = {
  anthropic: () =>
    unseeded(ANTHROPIC_API_VERSION, false, {
      note: `${NOTHING_STATED}; API version ${ANTHROPIC_API_VERSION} refuses sampling parameters for every model`,
      source: 'https://platform.claude.com/docs/en/api/migration-2026-10-21',
    }),
  openai: openAiApi,
  'openai-compatible': openAiApi,
  gemini: () => sampling('v1beta', { field: 'thinking_level', values: ['minimal', 'low', 'medium', 'high'] }),
} satisfies Record<LiveProvider, () => ModelContract>;

/** The contract of a model with no catalogue entry, by provider. */
function providerContract(provider: string): ModelContract {
  if (Object.hasOwn(LIVE_CONTRACTS, provider)) return LIVE_CONTRACTS[provider as LiveProvider]();
  // offline baselines sample at their temperature; heuristic judges and replay ignore it
  return unseeded(null, true, {
    defaults: { temperature: 0 },
    note:
      provider === 'offline'
        ? 'an offline baseline: it samples at the configured temperature (default 0), seeded by the cell'
        : `${provider}: deterministic, the temperature is recorded and ignored`,
    source: 'rge',
  });
}

/** The contract a model entry is held to. */
export function contractOf(provider: string, model: string): ResolvedContract {
  const entry = findModel(provider, model);
  return entry
    ? { contract: entry.contract, known: true }
    : { contract: providerContract(provider), known: false };
}

function modelName(provider: string, model: string, c: ModelContract): string {
  return `${provider}/${model}${c.apiVersion && provider === 'anthropic' ? ` (API version ${c.apiVersion})` : ''}`;
}

/**
 * The parameters a model entry states that its contract forbids, each with what to do. Empty when the
 * entry can be sent as it is.
 */
export function parameterIssues(provider: string, model: string, stated: StatedParameters): ParameterIssue[] {
  return issuesUnder(contractOf(provider, model).contract, provider, model, stated);
}

/**
 * The parameters of a built request that `contract` forbids, as messages (empty when it may be sent).
 * The live adapters refuse such a request before it reaches the API, whoever built it.
 */
export function requestIssues(
  contract: ModelContract,
  provider: string,
  model: string,
  p: RequestParameters,
): string[] {
  const stated: StatedParameters = {
    temperature: p.temperature,
    top_p: p.top_p,
    reasoning_effort: p.reasoning_effort,
    thinking_level: p.thinking_level,
    send_seed: p.seed,
  };
  return issuesUnder(contract, provider, model, stated).map((i) => i.message);
}

function issuesUnder(
  contract: ModelContract,
  provider: string,
  model: string,
  stated: StatedParameters,
): ParameterIssue[] {
  const who = modelName(provider, model, contract);
  const issues: ParameterIssue[] = [];
  const live = LIVE_PROVIDERS.some((p) => p === provider);
  for (const field of ['temperature', 'top_p'] as const) {
    if (stated[field] === undefined || contract.sampling[field]) continue;
    issues.push({
      field,
      message:
        provider === 'anthropic'
          ? `${who} accepts no ${field}: the API refuses temperature, top_p and top_k with a 400, even at their defaults. ` +
            `Remove ${field} from this entry; Claude then samples at its default, and the report records the deviation from temperature 0 (docs/adr/0014)`
          : `${who} takes no ${field}. Remove it from this entry`,
    });
  }
  const only = contract.samplingOnlyWith;
  if (only) {
    const effort = stated.reasoning_effort ?? contract.defaults.reasoning_effort;
    for (const field of ['temperature', 'top_p'] as const)
      if (stated[field] !== undefined && effort !== only.reasoning_effort)
        issues.push({
          field,
          message:
            `${who} accepts ${field} only with reasoning_effort: ${only.reasoning_effort} (this entry has ${effort ?? 'the model default'}). ` +
            `Remove ${field}, or set reasoning_effort: ${only.reasoning_effort}`,
        });
  }
  for (const field of ['reasoning_effort', 'thinking_level'] as const) {
    const value = stated[field];
    if (value === undefined) continue;
    const control = contract.reasoning;
    if (!control || control.field !== field) {
      const takes = control ? `; it takes ${control.field}` : '';
      issues.push({
        field,
        message: live
          ? `${who} takes no ${field}${takes}. Remove it from this entry`
          : `only live models take ${field} (provider ${provider}). Remove it from this entry`,
      });
      continue;
    }
    const values: readonly string[] = control.values;
    if (!values.includes(value))
      issues.push({
        field,
        message: `${who} takes ${field} ${values.join(', ')}, not ${value}`,
      });
  }
  if (stated.send_seed === true && !contract.seed)
    issues.push({
      field: 'send_seed',
      message: live
        ? `${who} takes no seed. Remove send_seed from this entry`
        : `only live models send a seed (provider ${provider}); offline baselines are seeded by the cell. Remove send_seed`,
    });
  return issues;
}

/**
 * What a request of this model entry sends: the contract's defaults overlaid by what the entry states.
 * A stated temperature or top_p of a model whose sampling needs a reasoning setting (GPT-5.x) keeps the
 * default reasoning effort that allows it. Call `parameterIssues` first: this does not check.
 */
export function resolveParameters(
  provider: string,
  model: string,
  stated: StatedParameters,
): RequestParameters {
  const { contract } = contractOf(provider, model);
  const out: RequestParameters = { ...contract.defaults };
  if (stated.temperature !== undefined) out.temperature = stated.temperature;
  if (stated.top_p !== undefined) out.top_p = stated.top_p;
  if (stated.reasoning_effort !== undefined) out.reasoning_effort = stated.reasoning_effort;
  if (stated.thinking_level !== undefined) out.thinking_level = stated.thinking_level;
  if (stated.send_seed !== undefined) out.seed = stated.send_seed;
  // A reasoning effort that forbids sampling drops the contract's default temperature (not a stated one,
  // which parameterIssues refuses).
  const only = contract.samplingOnlyWith;
  if (only && out.reasoning_effort !== only.reasoning_effort) {
    if (stated.temperature === undefined) delete out.temperature;
    if (stated.top_p === undefined) delete out.top_p;
  }
  if (out.seed === false) delete out.seed;
  return out;
}

/** The parameters a request sends as one line: `temperature 0, reasoning_effort none, seed`. */
export function describeParameters(p: RequestParameters): string {
  const parts: string[] = [];
  if (p.temperature !== undefined) parts.push(`temperature ${p.temperature}`);
  if (p.top_p !== undefined) parts.push(`top_p ${p.top_p}`);
  if (p.reasoning_effort !== undefined) parts.push(`reasoning_effort ${p.reasoning_effort}`);
  if (p.thinking_level !== undefined) parts.push(`thinking_level ${p.thinking_level}`);
  if (p.seed) parts.push('seed');
  return parts.length > 0 ? parts.join(', ') : 'no sampling or reasoning parameter';
}

/**
 * How a model's parameters depart from the methodology's temperature 0 (section 7.1), in a sentence for
 * the report; null when temperature 0 is sent.
 */
export function temperatureDeviation(provider: string, model: string, p: RequestParameters): string | null {
  if (p.temperature === 0) return null;
  const { contract, known } = contractOf(provider, model);
  if (p.temperature !== undefined)
    return `temperature ${p.temperature}, as configured (the methodology fixes 0)`;
  if (known || !contract.sampling.temperature) return `no temperature: ${contract.note}`;
  return 'no temperature: the config states none, so the model samples at its default';
}

/** The output token limit a request sends for `maxTokens` of answer: Gemini 3 adds its thinking allowance. */
export function outputLimit(provider: string, model: string, maxTokens: number): number {
  return maxTokens + contractOf(provider, model).contract.thinkingAllowanceTokens;
}
