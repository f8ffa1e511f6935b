/**
 * The providers' pieces of the run config (composed by src/run/config/config.ts): the fields every model entry
 * (a subject or a judge) has, what a live entry may add, the checks of an entry against the model
 * catalogue and the sampling contract, and `providers.<name>` (rate limits, retries, endpoint).
 */
import { z } from 'zod';
import { type AddIssue, Id } from '../util/config-fields.ts';
import {
  findModel,
  HEURISTIC_JUDGES,
  LIVE_PROVIDERS,
  ModelPrices,
  OFFLINE_SUBJECT_MODELS,
} from './catalogue.ts';
import { parameterIssues, type StatedParameters } from './contract.ts';
import { REASONING_EFFORTS, THINKING_LEVELS } from './types.ts';

/** What a live model entry may add: its own endpoint, key variable and prices. */
export const liveFields = {
  base_url: z
    .string()
    .url()
    .optional()
    .describe('endpoint of an openai-compatible server (vLLM, Ollama, LM Studio, a gateway)'),
  api_key_env: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name')
    .optional()
    .describe('environment variable holding the key of an openai-compatible endpoint (none: no key)'),
  prices: ModelPrices.optional().describe(
    'prices of a model the catalogue does not know (USD per million tokens); they win over the catalogue',
  ),
};

/**
 * What a model entry may ask to be sent besides the prompt. Each is checked against the model's sampling
 * contract (src/providers/contract.ts): a parameter the model's API refuses is an error naming the model
 * and the field. Absent = the contract's default (see `rge config validate` and the report).
 */
const parameterFields = {
  temperature: z
    .number()
    .min(0)
    .max(2)
    .optional()
    .describe(
      "sampling temperature; absent = the model contract's default (Claude takes none under API version 2026-10-21)",
    ),
  top_p: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe('nucleus sampling; only where the model contract allows it'),
  reasoning_effort: z
    .enum(REASONING_EFFORTS)
    .optional()
    .describe('OpenAI reasoning effort (GPT-5.x take temperature only with none)'),
  thinking_level: z.enum(THINKING_LEVELS).optional().describe('Gemini thinking level (Gemini 3)'),
  send_seed: z
    .boolean()
    .optional()
    .describe(
      "send the cell's seed (derived from the run seed); default: where the model contract takes one",
    ),
};

/**
 * The fields a subject and a judge entry share, in their order: id, provider (one of `providers`),
 * model, family (`family` says what the family means for this kind of entry), the sampling parameters.
 */
export function modelEntryFields<const P extends readonly [string, ...string[]]>(
  providers: P,
  family: string,
) {
  return {
    id: Id,
    provider: z.enum(providers),
    model: z.string().min(1),
    family: z.string().min(1).describe(family),
    ...parameterFields,
  };
}

/** Rate limits, retries and endpoint of one provider account, shared by all its models in a run. */
export const ProviderSettings = z.strictObject({
  base_url: z.string().url().optional().describe('overrides the SDK base URL variable'),
  concurrency: z.number().int().positive().default(4).describe('calls in flight at once'),
  rpm: z.number().positive().nullable().default(50).describe('requests per minute; null = unlimited'),
  tpm: z
    .number()
    .positive()
    .nullable()
    .default(null)
    .describe('input tokens per minute (cl100k estimate); null = unlimited'),
  timeout_ms: z.number().int().positive().default(120_000).describe('per attempt'),
  max_attempts: z.number().int().min(1).max(20).default(6).describe('attempts per call, the first included'),
  min_backoff_ms: z.number().int().min(0).default(1000),
  max_backoff_ms: z.number().int().min(0).default(60_000),
});
export type ProviderSettings = z.infer<typeof ProviderSettings>;

/** providers: the settings per live provider. */
export const ProvidersSettings = z
  .partialRecord(z.enum(LIVE_PROVIDERS), ProviderSettings)
  .default({})
  .describe('rate limits, retries and base URL per provider');

/**
 * The cross-field rules of one model entry (`key`[`i`], a subject or a judge), over unknown data since
 * they run on partly invalid configs too: base_url and api_key_env only for openai-compatible, a model
 * its provider has, parameters its contract takes.
 */
export function modelEntryIssues(key: string, i: number, m: Record<string, unknown>, issue: AddIssue): void {
  if (m.provider === 'openai-compatible' && m.base_url === undefined)
    issue([key, i, 'base_url'], "required when provider is openai-compatible (the server's /v1 URL)");
  if (m.provider !== 'openai-compatible' && m.base_url !== undefined)
    issue(
      [key, i, 'base_url'],
      `only an openai-compatible model takes base_url; set providers.${String(m.provider)}.base_url instead`,
    );
  if (m.provider !== 'openai-compatible' && m.api_key_env !== undefined)
    issue([key, i, 'api_key_env'], 'only an openai-compatible model names its key variable');
  const model = modelIssue(m);
  if (model) issue([key, i, 'model'], model);
  if (typeof m.provider === 'string' && typeof m.model === 'string')
    for (const p of parameterIssues(m.provider, m.model, statedParameters(m)))
      issue([key, i, p.field], p.message);
}

/** The parameter fields a (possibly invalid) model entry states, the ill-typed ones left out. */
function statedParameters(m: Record<string, unknown>): StatedParameters {
  const number = (x: unknown) => (typeof x === 'number' ? x : undefined);
  const effort = REASONING_EFFORTS.find((e) => e === m.reasoning_effort);
  const level = THINKING_LEVELS.find((l) => l === m.thinking_level);
  return {
    temperature: number(m.temperature),
    top_p: number(m.top_p),
    reasoning_effort: effort,
    thinking_level: level,
    send_seed: typeof m.send_seed === 'boolean' ? m.send_seed : undefined,
  };
}

/**
 * Why a model entry names a model its provider does not have, as the registry would refuse it at run
 * time (src/models/registry.ts), so that `rge config validate` rejects what `rge eval run` rejects:
 * an offline or heuristic model outside their lists, a live model with neither a catalogue entry nor
 * prices in the config. Undefined when the model is known (or the provider itself is invalid).
 */
function modelIssue(m: Record<string, unknown>): string | undefined {
  const { provider, model } = m;
  if (typeof model !== 'string' || model === '') return undefined;
  if (provider === 'offline' && !(OFFLINE_SUBJECT_MODELS as readonly string[]).includes(model))
    return `no offline model ${model}: one of ${OFFLINE_SUBJECT_MODELS.join(', ')}`;
  if (provider === 'heuristic' && !(HEURISTIC_JUDGES as readonly string[]).includes(model))
    return `no heuristic judge ${model}: one of ${HEURISTIC_JUDGES.join(', ')}`;
  if (
    typeof provider === 'string' &&
    (LIVE_PROVIDERS as readonly string[]).includes(provider) &&
    m.prices === undefined &&
    !findModel(provider, model)
  )
    return `model ${model} of provider ${provider} is not in the model catalogue (src/providers/catalogue.ts); give its prices in the run config`;
  return undefined;
}
