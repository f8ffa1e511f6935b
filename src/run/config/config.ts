/**
 * The run config (`configs/*.yaml`): what corpus, which subjects and judges, how many runs, the budget,
 * the thresholds that gate CI. One zod schema, `RunConfig`, validates every config; `loadRunConfig`
 * reports every problem of a file in one pass as `file:line: field: message`.
 *
 * Paths written in a config (corpus.sources, corpus.pdfs, corpus.index, questions.file,
 * subject_prompt.file, validation.labels_dir, a subject's replay_file, module, version_files and cwd)
 * are relative to the config file's folder; a `--set` value and a default are relative to the working
 * folder (the root). A config, once read, holds them relative to the root (paths.ts), so every
 * stage resolves them against the root; `resolveRunPaths` makes them absolute.
 *
 * Locating a zod issue at its YAML line follows `src/corpus/sources.ts` (parseDocument + LineCounter,
 * the deepest existing node on the issue's path) and reports in its `SourcesIssue` shape.
 */
import { resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import { SourcesFileError, type SourcesIssue, yamlErrorMessage } from '../../corpus/sources.ts';
import { ThresholdSettings } from '../../gate/config.ts';
import { CorpusSettings } from '../../ingest/config.ts';
import { Judge, JudgePromptSettings } from '../../judging/config.ts';
import { crossFamilyPanel } from '../../judging/panel.ts';
import { ProvidersSettings } from '../../providers/config.ts';
import { QuestionsSettings } from '../../questions/config.ts';
import { RetrievalSettings } from '../../retrieval/config.ts';
import { GfsWeightsSettings } from '../../scoring/config.ts';
import { Subject, SubjectPromptSettings } from '../../subject/config.ts';
import { isRecord, Path } from '../../util/config-fields.ts';
import { RgeError, UsageError } from '../../util/errors.ts';
import { readInputFile } from '../../util/fs.ts';
import { locateIssue, nearestOffset } from '../../util/yaml-paths.ts';
import { type ConfigPath, configPaths, oldWayIssues, rebaseWrittenPaths, setConfigPath } from './paths.ts';
import { crossFieldIssues } from './rules.ts';

export const RUN_MODES = ['sync', 'batch'] as const;
export type RunMode = (typeof RUN_MODES)[number];

/**
 * The run config: each stage's section is defined beside its stage (src/ingest/config.ts,
 * src/retrieval/config.ts, src/questions/config.ts, src/subject/config.ts, src/judging/config.ts,
 * src/gate/config.ts, src/scoring/config.ts, src/providers/config.ts); the run's own sections (runs,
 * budget, mode, batch, validation, estimate) are here.
 */
export const RunConfig = z
  .strictObject({
    version: z.literal(1),
    name: z.string().min(1),
    seed: z.string().min(1).describe('recorded in the results so a run can be reproduced'),
    corpus: CorpusSettings.optional().describe(
      "rge's corpus and index: required unless every subject is a system (module, http, command), which retrieves for itself",
    ),
    retrieval: RetrievalSettings,
    questions: QuestionsSettings,
    subjects: z.array(Subject).min(1),
    judges: z.array(Judge).min(1),
    runs: z.number().int().min(1).describe('repeated runs per question, to measure subject and judge noise'),
    budget: z.strictObject({
      cap_usd: z.number().min(0).describe('hard cap in USD; 0 = nothing may be spent (offline providers)'),
      warn_usd: z.number().min(0).describe('warn when the estimate or spend passes this; below cap_usd'),
    }),
    thresholds: ThresholdSettings,
    judge_prompt: JudgePromptSettings,
    subject_prompt: SubjectPromptSettings,
    gfs_weights: GfsWeightsSettings,
    latency_budget_ms: z.number().int().positive().describe('per answer, in milliseconds'),
    mode: z
      .enum(RUN_MODES)
      .default('sync')
      .describe(
        "batch: the providers' batch APIs (half price, up to 24 h); sync: one call at a time per slot",
      ),
    providers: ProvidersSettings,
    batch: z
      .strictObject({
        poll_interval_ms: z.number().int().positive().default(30_000),
        max_wait_hours: z.number().positive().default(26),
      })
      .default({ poll_interval_ms: 30_000, max_wait_hours: 26 }),
    validation: z
      .strictObject({
        labels_dir: Path.default('data/labels').describe(
          'where rge validation label and rge validation review save',
        ),
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
      .default({ labels_dir: 'data/labels', min_kappa: 0.75, limitation: null }),
    estimate: z
      .strictObject({
        subject_output_tokens: z.number().int().positive().default(300),
        judge_output_tokens: z.number().int().positive().default(700),
        cache_hit_rate: z
          .number()
          .min(0)
          .max(1)
          .default(0.8)
          .describe('share of would-be cache reads that hit (the report compares it with the run)'),
      })
      .default({ subject_output_tokens: 300, judge_output_tokens: 700, cache_hit_rate: 0.8 })
      .describe('assumptions of the pre-flight cost estimate'),
  })
  // Cross-field rules run even when other fields are broken, so one pass reports everything.
  .superRefine((config, ctx) => crossFieldIssues(config, ctx), { when: () => true });
export type RunConfig = z.infer<typeof RunConfig>;
export type RunConfigInput = z.input<typeof RunConfig>;

/**
 * A subject's two judges in a config, chosen by `crossFamilyPanel` of src/judging/panel.ts (the only way
 * judges are chosen): two judges of other families than the subject's, of two different families when
 * possible.
 */
export function panelFor(config: RunConfig, subjectId: string): Judge[] {
  const subject = config.subjects.find((s) => s.id === subjectId);
  if (!subject) throw new RgeError(`no subject ${subjectId} in run config ${config.name}`);
  return crossFamilyPanel(subject.family, config.judges);
}

/**
 * One problem of a config, at the 1-based line of the offending YAML node; or, when a `--set` argument
 * put the offending value there, that argument (`argument`, and line 0: no line of the file holds it).
 */
export type RunConfigIssue = SourcesIssue & { argument?: string };

/** `file:line: field: message`, or `--set path=value: field: message` for a value a `--set` gave. */
export function formatRunConfigIssue(issue: RunConfigIssue): string {
  return issue.argument === undefined
    ? `${issue.file}:${issue.line}: ${issue.field}: ${issue.message}`
    : `--set ${issue.argument}: ${issue.field}: ${issue.message}`;
}

/** A config that does not parse or validate; the message lists every issue (formatRunConfigIssue). */
export class RunConfigError extends SourcesFileError {
  constructor(issues: readonly RunConfigIssue[]) {
    super(issues);
    this.message = issues.map(formatRunConfigIssue).join('\n');
    this.name = 'RunConfigError';
  }
}

/** The path of a `--set path=value` argument, as strings (array items by index). */
const overridePath = (override: string): string[] => override.slice(0, override.indexOf('=')).split('.');

/**
 * Gives an issue to the `--set` argument it comes from: the last one that set the issue's field or a
 * field above it (its value is what is wrong). A rule across fields of a section that a `--set` changed
 * (e.g. warn_usd must be below cap_usd) stays at the file's line, naming the argument too.
 */
function blameOverride(
  issue: RunConfigIssue,
  path: readonly PropertyKey[],
  overrides: readonly string[],
): RunConfigIssue {
  const at = path.map(String);
  const within = (p: string[], q: string[]) => p.length <= q.length && p.every((k, i) => k === q[i]);
  const setIt = overrides.findLast((o) => within(overridePath(o), at));
  if (setIt !== undefined) return { ...issue, line: 0, argument: setIt };
  const section = at.slice(0, -1);
  const sibling = overrides.findLast((o) => {
    const parent = overridePath(o).slice(0, -1);
    return parent.length > 0 && parent.length === section.length && within(parent, section);
  });
  return sibling === undefined ? issue : { ...issue, message: `${issue.message} (with --set ${sibling})` };
}

/**
 * Where a run's budget comes from, as the ledger records it: the config file as given, and the
 * `--set budget.*` arguments, e.g. `configs/live.yaml --set budget.cap_usd=0.65`.
 */
export function capSourceOf(configFile: string, overrides: readonly string[]): string {
  const budget = overrides.filter((o) => o.startsWith('budget.'));
  return [configFile, ...budget.map((o) => `--set ${o}`)].join(' ');
}

/** Where a config's paths are read from: the folder rge runs in (default: the process's). */
export interface RunConfigPlace {
  /** `path=value` overrides (`--set`); their paths are relative to the root */
  overrides?: readonly string[];
  /** the working folder: `--set` paths and defaults are relative to it, and the config read holds every path so */
  root?: string;
}

/**
 * Reads and validates a run config; throws `RunConfigError` naming every problem at once, a path
 * written relative to the working folder rather than to the config's folder among them.
 */
export async function loadRunConfig(path: string, opts: RunConfigPlace = {}): Promise<RunConfig> {
  const text = await readInputFile(path, 'config file');
  const place = { configFile: path, root: opts.root ?? process.cwd(), overrides: opts.overrides ?? [] };
  const { config, yaml, lineOf, kept } = parsedRunConfig(text, path, place);
  const oldWay = oldWayIssues(config, kept, place).map((issue) => ({
    file: path,
    line: lineOf(nearestOffset(yaml, issue.path)),
    field: issue.field,
    message: issue.message,
  }));
  if (oldWay.length > 0) throw new RunConfigError(oldWay.sort((a, b) => a.line - b.line));
  return config;
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

/**
 * Parses run-config YAML text; `file` names the file in error messages and, with `root` (default the
 * process's working folder), places it: the paths it writes are read against its folder.
 */
export function parseRunConfig(
  text: string,
  file: string,
  overrides: readonly string[] = [],
  root: string = process.cwd(),
): RunConfig {
  return parsedRunConfig(text, file, { configFile: file, root, overrides }).config;
}

/** The config of a text, its YAML (for lines) and the paths of the file it holds, rebased to the root. */
function parsedRunConfig(
  text: string,
  file: string,
  place: { configFile: string; root: string; overrides: readonly string[] },
) {
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
  const raw = yaml.toJS();
  const written: ConfigPath[] = configPaths(raw);
  const parsed = RunConfig.safeParse(applyOverrides(raw, place.overrides));
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      // one located issue per unknown key, else one
      const paths =
        issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...issue.path, k]) : [issue.path];
      issues.push(
        ...locateIssue(issue, yaml, file, lineOf).map((located, i) =>
          blameOverride(located, paths[i] ?? issue.path, place.overrides),
        ),
      );
    }
  if (issues.length > 0 || !parsed.success)
    throw new RunConfigError(issues.sort((a, b) => a.line - b.line || a.field.localeCompare(b.field)));
  const kept = rebaseWrittenPaths(parsed.data, written, place);
  return { config: parsed.data, yaml, lineOf, kept };
}

/** The config with every path made absolute against `root` (the working folder its paths are relative to). */
export function resolveRunPaths(config: RunConfig, root: string): RunConfig {
  const resolved = structuredClone(config);
  for (const { path, written } of configPaths(resolved))
    setConfigPath(resolved, path, resolve(root, written));
  return resolved;
}

/** A run config's corpus section. */
export type RunCorpus = z.infer<typeof CorpusSettings>;

/** A run config with its corpus section (a config with a model subject, or a systems config that gives one). */
export type CorpusRunConfig = RunConfig & { corpus: RunCorpus };

/**
 * The config, checked to have a corpus section, for what needs rge's corpus or index (`what`, e.g.
 * "rge corpus ingest"); a config whose subjects are all systems may have none: an error naming it.
 */
export function withCorpus(config: RunConfig, what: string, configFile?: string): CorpusRunConfig {
  if (config.corpus !== undefined) return config as CorpusRunConfig;
  throw new RgeError(
    `${what} needs rge's corpus and index, and config ${config.name} has no corpus section (its subjects are all systems, which retrieve for themselves)`,
    configFile === undefined ? {} : { file: configFile },
  );
}
