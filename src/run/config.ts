/**
 * The run config (`configs/*.yaml`): what corpus, which subjects and judges, how many runs, the budget,
 * the thresholds that gate CI. One zod schema, `RunConfig`, validates every config; `loadRunConfig`
 * reports every problem of a file in one pass as `file:line: field: message`.
 *
 * Paths in a config (corpus.sources, corpus.pdfs, corpus.index, questions.file, subject_prompt.file,
 * subjects[].replay_file)
 * are relative to the repository root, i.e. the working folder rge runs in, NOT to the config file's
 * folder: `configs/fixture.yaml` says `fixtures/questions.jsonl`, exactly as a `--questions` flag would.
 * `resolveRunPaths` makes them absolute.
 *
 * Locating a zod issue at its YAML line follows `src/corpus/sources.ts` (parseDocument + LineCounter,
 * the deepest existing node on the issue's path) and reports in its `SourcesIssue` shape.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { formatIssue, type SourcesIssue, yamlErrorMessage } from '../corpus/sources.ts';
import { crossFamilyPanel as judgingPanel } from '../judging/panel.ts';
import { isJudgePromptVersion, JUDGE_PROMPT_VERSIONS } from '../judging/prompt.ts';
import {
  findModel,
  HEURISTIC_JUDGES,
  LIVE_PROVIDERS,
  ModelPrices,
  OFFLINE_SUBJECT_MODELS,
} from '../providers/catalogue.ts';
import { parameterIssues, type StatedParameters } from '../providers/contract.ts';
import { REASONING_EFFORTS, THINKING_LEVELS } from '../providers/types.ts';
import type { FusionParameters } from '../retrieval/index.ts';
import { errorMessage, RgeError, UsageError } from '../util/errors.ts';
import { sha256 } from '../util/fs.ts';
import { locateIssue } from '../util/yaml-paths.ts';

const Path = z.string().min(1, 'must be a path');
const Id = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be lowercase letters, digits, dot, dash or underscore');
/** A score threshold on the 0-2 rubric scale; null records the score without gating on it. */
const Threshold = z.number().min(0).max(2).nullable();

export const EMBEDDERS = ['use-lite', 'bge-m3', 'bm25', 'hybrid'] as const;

/** corpus.hybrid: how the hybrid embedder fuses BM25 with its dense model (recorded in the index manifest). */
export const HybridSettings = z
  .object({
    dense: z.enum(['use-lite', 'bge-m3']).default('use-lite').describe('the dense half of the hybrid'),
    rrf_k: z.number().min(0).default(60).describe('reciprocal rank fusion constant k'),
    depth: z.number().int().min(1).default(50).describe('chunks each ranking contributes before fusion'),
    lexical_weight: z.number().min(0).default(1).describe('weight of the BM25 ranking'),
    dense_weight: z.number().min(0).default(1).describe('weight of the dense ranking'),
  })
  .strict();
export type HybridSettings = z.infer<typeof HybridSettings>;

/** The embedder options a config's corpus section asks for (the fusion parameters of a hybrid). */
export function corpusEmbedderOptions(corpus: { embedder: string; hybrid?: HybridSettings | undefined }): {
  hybrid?: FusionParameters;
} {
  if (corpus.embedder !== 'hybrid') return {};
  const h = HybridSettings.parse(corpus.hybrid ?? {});
  return {
    hybrid: {
      dense: h.dense,
      rrfK: h.rrf_k,
      depth: h.depth,
      lexicalWeight: h.lexical_weight,
      denseWeight: h.dense_weight,
    },
  };
}
export const SUBJECT_PROVIDERS = ['offline', 'replay', ...LIVE_PROVIDERS] as const;
export const JUDGE_PROVIDERS = ['heuristic', ...LIVE_PROVIDERS] as const;
export const RUN_MODES = ['sync', 'batch'] as const;
export type RunMode = (typeof RUN_MODES)[number];

/** What a live model entry may add: its own endpoint, key variable and prices. */
const liveFields = {
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

export const Subject = z
  .object({
    id: Id,
    provider: z.enum(SUBJECT_PROVIDERS),
    model: z.string().min(1),
    family: z.string().min(1).describe('vendor family; no judge judges a subject of its own family'),
    ...parameterFields,
    max_tokens: z.number().int().positive(),
    replay_file: Path.optional().describe('recorded answers to replay (provider replay only)'),
    ...liveFields,
  })
  .strict();
export type Subject = z.infer<typeof Subject>;

export const Judge = z
  .object({
    id: Id,
    provider: z.enum(JUDGE_PROVIDERS),
    model: z.string().min(1),
    family: z.string().min(1).describe('vendor family; the judge never judges a subject of this family'),
    ...parameterFields,
    ...liveFields,
  })
  .strict();
export type Judge = z.infer<typeof Judge>;

/** Rate limits, retries and endpoint of one provider account, shared by all its models in a run. */
export const ProviderSettings = z
  .object({
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
    max_attempts: z
      .number()
      .int()
      .min(1)
      .max(20)
      .default(6)
      .describe('attempts per call, the first included'),
    min_backoff_ms: z.number().int().min(0).default(1000),
    max_backoff_ms: z.number().int().min(0).default(60_000),
  })
  .strict();
export type ProviderSettings = z.infer<typeof ProviderSettings>;
export const DEFAULT_GFS_WEIGHTS = { grounding: 0.4, correctness: 0.35, calibration: 0.25 } as const;

const Weight = z.number().min(0).max(1);

export const RunConfig = z
  .object({
    version: z.literal(1),
    name: z.string().min(1),
    seed: z.string().min(1).describe('recorded in the results so a run can be reproduced'),
    corpus: z
      .object({
        sources: Path.optional().describe(
          'sources.yaml (url and sha256 per document); absent for a corpus that is not fetched',
        ),
        generated_from: Path.optional().describe(
          'facts file the corpus PDFs are generated from (the fixture world); then the PDFs and the index are built on first use',
        ),
        pdfs: Path.describe('folder of the corpus PDFs'),
        index: Path.describe('folder of the retrieval index'),
        embedder: z.enum(EMBEDDERS),
        hybrid: HybridSettings.optional().describe(
          'embedder hybrid only: the dense model and the fusion parameters (defaults: use-lite, rrf_k 60, depth 50, weights 1 and 1)',
        ),
        allow_download: z
          .boolean()
          .default(true)
          .describe(
            'may a missing embedding model (bge-m3) be downloaded from the Hugging Face hub on first use; false = offline, like --offline',
          ),
        chunk_tokens: z.number().int().positive().default(800),
        overlap_tokens: z.number().int().min(0).default(100),
        tables: z
          .enum(['auto', 'always', 'never'])
          .default('auto')
          .describe('table-aware extraction: auto (per page), always, never'),
      })
      .strict(),
    retrieval: z
      .object({ k: z.number().int().min(1).default(5) })
      .strict()
      .default({ k: 5 }),
    questions: z.object({ file: Path, version: z.number().int().min(1) }).strict(),
    subjects: z.array(Subject).min(1),
    judges: z.array(Judge).min(1),
    runs: z.number().int().min(1).describe('repeated runs per question, to measure subject and judge noise'),
    budget: z
      .object({
        cap_usd: z.number().min(0).describe('hard cap in USD; 0 = nothing may be spent (offline providers)'),
        warn_usd: z.number().min(0).describe('warn when the estimate or spend passes this; below cap_usd'),
      })
      .strict(),
    thresholds: z
      .object({
        correctness: Threshold,
        grounding: Threshold,
        calibration: Threshold,
        gfs: z.number().min(0).max(1).nullable(),
      })
      .strict()
      .describe('gate on each mean score (rubric 0-2; gfs 0-1); null records the score without gating'),
    judge_prompt: z
      .object({
        version: z.string().min(1),
        sha256: z
          .string()
          .regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 lowercase hex digits')
          .nullable()
          .describe('sha256 of the prompt text; null = not pinned'),
        text: z
          .string()
          .min(1)
          .nullable()
          .describe('the prompt text; null = the built-in prompt of that version'),
      })
      .strict(),
    subject_prompt: z
      .object({
        file: Path.nullable().describe(
          'the subject prompt file (e.g. prompts/subject.md); null = the built-in v1',
        ),
      })
      .strict()
      .default({ file: null })
      .describe('what every subject is told and shown: the system text and the user message template'),
    gfs_weights: z
      .object({ grounding: Weight, correctness: Weight, calibration: Weight })
      .strict()
      .default({ ...DEFAULT_GFS_WEIGHTS })
      .describe('weights of the grounding-faithfulness score; must sum to 1'),
    latency_budget_ms: z.number().int().positive().describe('per answer, in milliseconds'),
    mode: z
      .enum(RUN_MODES)
      .default('sync')
      .describe(
        "batch: the providers' batch APIs (half price, up to 24 h); sync: one call at a time per slot",
      ),
    providers: z
      .partialRecord(z.enum(LIVE_PROVIDERS), ProviderSettings)
      .default({})
      .describe('rate limits, retries and base URL per provider'),
    batch: z
      .object({
        poll_interval_ms: z.number().int().positive().default(30_000),
        max_wait_hours: z.number().positive().default(26),
      })
      .strict()
      .default({ poll_interval_ms: 30_000, max_wait_hours: 26 }),
    validation: z
      .object({
        labels_dir: Path.default('data/labels').describe('where rge label and rge review save'),
        min_kappa: z
          .number()
          .min(-1)
          .max(1)
          .default(0.75)
          .describe('the pre-registered threshold on every (judge x dimension) kappa against people'),
        limitation: z
          .string()
          .min(1)
          .nullable()
          .default(null)
          .describe('a documented limitation: lets a publishing run go ahead with cells below min_kappa'),
      })
      .strict()
      .default({ labels_dir: 'data/labels', min_kappa: 0.75, limitation: null }),
    estimate: z
      .object({
        subject_output_tokens: z.number().int().positive().default(300),
        judge_output_tokens: z.number().int().positive().default(700),
        cache_hit_rate: z
          .number()
          .min(0)
          .max(1)
          .default(0.8)
          .describe('share of would-be cache reads that hit (the report compares it with the run)'),
      })
      .strict()
      .default({ subject_output_tokens: 300, judge_output_tokens: 700, cache_hit_rate: 0.8 })
      .describe('assumptions of the pre-flight cost estimate'),
  })
  .strict()
  // Cross-field rules run even when other fields are broken, so one pass reports everything.
  .superRefine((config, ctx) => crossFieldIssues(config, ctx), { when: () => true });
export type RunConfig = z.infer<typeof RunConfig>;
export type RunConfigInput = z.input<typeof RunConfig>;

type Ctx = z.core.$RefinementCtx<unknown>;

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function records(x: unknown): [number, Record<string, unknown>][] {
  return Array.isArray(x)
    ? x.flatMap((item, i): [number, Record<string, unknown>][] => (isRecord(item) ? [[i, item]] : []))
    : [];
}

/** Rules across fields; written over unknown data, since they run on partly invalid configs too. */
function crossFieldIssues(value: unknown, ctx: Ctx): void {
  if (!isRecord(value)) return;
  const issue = (path: (string | number)[], message: string) =>
    ctx.addIssue({ code: 'custom', path, message, input: undefined });

  const corpus = value.corpus;
  if (
    isRecord(corpus) &&
    typeof corpus.chunk_tokens === 'number' &&
    typeof corpus.overlap_tokens === 'number'
  )
    if (corpus.overlap_tokens >= corpus.chunk_tokens)
      issue(['corpus', 'overlap_tokens'], `must be less than chunk_tokens (${corpus.chunk_tokens})`);

  const budget = value.budget;
  if (isRecord(budget) && typeof budget.cap_usd === 'number' && typeof budget.warn_usd === 'number') {
    const offline = budget.cap_usd === 0 && budget.warn_usd === 0;
    if (!offline && budget.warn_usd >= budget.cap_usd)
      issue(
        ['budget', 'warn_usd'],
        `must be less than cap_usd (${budget.cap_usd}); only a 0 cap allows a 0 warning`,
      );
  }

  const weights = value.gfs_weights;
  if (isRecord(weights)) {
    const parts = [weights.grounding, weights.correctness, weights.calibration];
    if (parts.every((w) => typeof w === 'number')) {
      const sum = (parts as number[]).reduce((a, b) => a + b, 0);
      if (Math.abs(sum - 1) > 1e-9)
        issue(['gfs_weights'], `weights must sum to 1, they sum to ${+sum.toFixed(6)}`);
    }
  }

  const prompt = value.judge_prompt;
  if (isRecord(prompt) && typeof prompt.version === 'string' && !isJudgePromptVersion(prompt.version))
    issue(['judge_prompt', 'version'], `must be one of ${JUDGE_PROMPT_VERSIONS.join(', ')}`);
  if (isRecord(prompt) && typeof prompt.text === 'string' && typeof prompt.sha256 === 'string')
    if (sha256(prompt.text) !== prompt.sha256)
      issue(['judge_prompt', 'sha256'], `does not match the text (its sha256 is ${sha256(prompt.text)})`);

  const subjects = records(value.subjects);
  const judges = records(value.judges);
  for (const [key, list] of [
    ['subjects', subjects],
    ['judges', judges],
  ] as const) {
    const first = new Map<unknown, number>();
    for (const [i, item] of list) {
      if (typeof item.id !== 'string') continue;
      const at = first.get(item.id);
      if (at === undefined) first.set(item.id, i);
      else issue([key, i, 'id'], `duplicate id ${item.id} (first at ${key}[${at}])`);
    }
  }
  for (const [key, list] of [
    ['subjects', subjects],
    ['judges', judges],
  ] as const) {
    for (const [i, m] of list) {
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
  }
  for (const [i, s] of subjects) {
    if (s.provider === 'replay' && s.replay_file === undefined)
      issue(['subjects', i, 'replay_file'], 'required when provider is replay');
    if (s.provider !== 'replay' && s.replay_file !== undefined)
      issue(
        ['subjects', i, 'replay_file'],
        `only a replay subject reads a replay file (provider is ${String(s.provider)})`,
      );
    if (typeof s.family !== 'string' || judges.length === 0) continue;
    const candidates = judges.flatMap(([, j]) =>
      typeof j.family === 'string' ? [{ id: String(j.id), family: j.family }] : [],
    );
    try {
      judgingPanel(s.family, candidates);
    } catch (err) {
      issue(['subjects', i, 'family'], errorMessage(err));
    }
  }
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
 * time (src/providers/registry.ts), so that `rge config validate` rejects what `rge eval run` rejects:
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

/**
 * A subject's two judges, chosen by `crossFamilyPanel` of src/judging/panel.ts (the only way judges are
 * chosen): two judges of other families than the subject's, of two different families when possible.
 */
export function crossFamilyPanel(config: RunConfig, subjectId: string): Judge[] {
  const subject = config.subjects.find((s) => s.id === subjectId);
  if (!subject) throw new RgeError(`no subject ${subjectId} in run config ${config.name}`);
  return judgingPanel(subject.family, config.judges);
}

/** One problem of a config, at the 1-based line of the offending YAML node. */
export type RunConfigIssue = SourcesIssue;

/** A config that does not parse or validate; the message lists every issue as `file:line: field: message`. */
export class RunConfigError extends RgeError {
  readonly issues: readonly RunConfigIssue[];

  constructor(issues: readonly RunConfigIssue[]) {
    super(issues.map(formatIssue).join('\n'));
    this.name = 'RunConfigError';
    this.issues = issues;
  }
}

/** Reads and validates a run config; throws `RunConfigError` naming every problem at once. */
export async function loadRunConfig(
  path: string,
  opts: { overrides?: readonly string[] } = {},
): Promise<RunConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    // a config path that does not exist is a usage error (exit 2): the command line names it
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new UsageError('config file not found', { file: path });
    throw new RgeError(`cannot read config: ${errorMessage(err)}`, { file: path, cause: err });
  }
  return parseRunConfig(text, path, opts.overrides ?? []);
}

/**
 * Applies `path=value` overrides (`rge eval run --set corpus.index=DIR`) to a parsed config: the path is
 * dot-separated (array items by index, e.g. `subjects.0.model`), the value is read as YAML (so `null`,
 * numbers and booleans keep their types). The result is validated like the file itself.
 */
export function applyOverrides(config: unknown, overrides: readonly string[]): unknown {
  for (const override of overrides) {
    const eq = override.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set takes path=value, got "${override}"`);
    const path = override.slice(0, eq).split('.');
    const value = parseDocument(override.slice(eq + 1)).toJS();
    let node: unknown = config;
    for (const [i, key] of path.entries()) {
      if (!isRecord(node) && !Array.isArray(node))
        throw new UsageError(`--set ${override}: ${path.slice(0, i).join('.')} is not an object`);
      const container = node as Record<string, unknown>;
      if (i === path.length - 1) container[key] = value;
      else {
        if (container[key] === undefined) container[key] = {};
        node = container[key];
      }
    }
  }
  return config;
}

/** Parses run-config YAML text; `file` only names the file in error messages. */
export function parseRunConfig(text: string, file: string, overrides: readonly string[] = []): RunConfig {
  const lineCounter = new LineCounter();
  const yaml = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  const lineOf = (offset: number): number => lineCounter.linePos(offset).line;
  const issues: RunConfigIssue[] = [...yaml.errors, ...yaml.warnings].map((err) => ({
    file,
    line: err.linePos?.[0].line ?? lineOf(err.pos[0]),
    field: 'yaml',
    message: yamlErrorMessage(err.message),
  }));
  // A file that is not YAML has no fields to check: report only where the YAML breaks.
  // Later YAML errors mostly follow from the first; the first is the one to fix.
  if (yaml.errors.length > 0) throw new RunConfigError(issues.slice(0, 1));
  const parsed = RunConfig.safeParse(applyOverrides(yaml.toJS(), overrides));
  if (!parsed.success)
    for (const issue of parsed.error.issues) issues.push(...locateIssue(issue, yaml, file, lineOf));
  if (issues.length > 0 || !parsed.success)
    throw new RunConfigError(issues.sort((a, b) => a.line - b.line || a.field.localeCompare(b.field)));
  return parsed.data;
}

/** The config with every path made absolute against `root` (the repository root = the working folder). */
export function resolveRunPaths(config: RunConfig, root: string): RunConfig {
  const abs = (p: string) => (isAbsolute(p) ? p : resolve(root, p));
  return {
    ...config,
    corpus: {
      ...config.corpus,
      ...(config.corpus.sources === undefined ? {} : { sources: abs(config.corpus.sources) }),
      ...(config.corpus.generated_from === undefined
        ? {}
        : { generated_from: abs(config.corpus.generated_from) }),
      pdfs: abs(config.corpus.pdfs),
      index: abs(config.corpus.index),
    },
    questions: { ...config.questions, file: abs(config.questions.file) },
    subject_prompt: { file: config.subject_prompt.file === null ? null : abs(config.subject_prompt.file) },
    subjects: config.subjects.map((s) =>
      s.replay_file === undefined ? s : { ...s, replay_file: abs(s.replay_file) },
    ),
  };
}

/** The JSON Schema of a config file for editors (what a YAML file may say, so defaulted fields are optional). */
export function runConfigJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(RunConfig, { io: 'input', target: 'draft-07' }),
    title: 'rge run config',
    description:
      'A run config of rge (configs/*.yaml). Paths are relative to the repository root (the working folder). ' +
      'Generated from src/run/config.ts by `rge config schema`; do not edit by hand.',
  };
}

/** The schema as committed: two-space JSON laid out as Biome formats it, newline-terminated. */
export function runConfigJsonSchemaText(): string {
  return `${formattedJson(runConfigJsonSchema(), 0, 0)}\n`;
}

const LINE_WIDTH = 110;

/**
 * JSON with two-space indentation where arrays of scalars stay on one line when they fit the line
 * width (as Biome formats JSON), so the written file passes `biome check` unchanged.
 * `column` is where the value starts on its line.
 */
function formattedJson(value: unknown, depth: number, column: number): string {
  const pad = '  '.repeat(depth + 1);
  const end = '  '.repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const scalars = value.every((v) => v === null || typeof v !== 'object');
    const inline = `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
    if (scalars && column + inline.length + 1 <= LINE_WIDTH) return inline;
    const items = value.map((v) => `${pad}${formattedJson(v, depth + 1, pad.length)}`);
    return `[\n${items.join(',\n')}\n${end}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    const items = entries.map(([k, v]) => {
      const key = `${JSON.stringify(k)}: `;
      return `${pad}${key}${formattedJson(v, depth + 1, pad.length + key.length)}`;
    });
    return `{\n${items.join(',\n')}\n${end}}`;
  }
  return JSON.stringify(value);
}
