/**
 * What a run is asked: the one value both front doors build and everything after them reads. `rge eval
 * run` builds it from its flags, `npx vitest run evals` from its environment variables (RGE_*); both parse
 * through the one schema here, so a bad value is the same usage error (exit 2) whichever door it came
 * through, naming the flag or the variable it came from. The request then crosses into Vitest as one
 * validated value (src/vitest/handoff.ts), never as variables read again.
 *
 * A request is what was asked, not what it means: the config is read and the questions narrowed by the
 * plan (plan.ts).
 */
import { z } from 'zod';
import { UsageError } from '../../util/errors.ts';
import { RUN_MODES } from '../config/config.ts';

/** The request's fields, each with its flag and its environment variable. */
export const REQUEST_INPUTS = {
  config: { flag: '--config', env: 'RGE_CONFIG' },
  overrides: { flag: '--set', env: 'RGE_SET' },
  subjects: { flag: '--subjects', env: 'RGE_SUBJECTS' },
  questions: { flag: '--questions', env: 'RGE_QUESTIONS' },
  sample: { flag: '--sample', env: 'RGE_SAMPLE' },
  cases: { flag: '--case', env: 'RGE_CASES' },
  runs: { flag: '--runs', env: 'RGE_RUNS' },
  mode: { flag: '--mode', env: 'RGE_MODE' },
  stages: { flag: '(stages)', env: 'RGE_STAGES' },
  resultsDir: { flag: '--results-dir', env: 'RGE_RESULTS_DIR' },
  reportsDir: { flag: '--reports-dir', env: 'RGE_REPORTS_DIR' },
} as const;

export type RequestField = keyof typeof REQUEST_INPUTS;
/** Which door a raw request came through: its fields are then named as flags or as variables. */
export type RequestDoor = 'flags' | 'env';

const POSITIVE = 'must be a positive integer';

/** A whole number of at least 1 (0 would be a run of nothing), given as a number or as its digits. */
const Count = z.preprocess(
  (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
  z.number({ error: POSITIVE }).int({ error: POSITIVE }).min(1, { error: POSITIVE }),
);

/** A list of ids, given as a list or as one comma-separated string. */
const IdList = z.preprocess(
  (v) => (typeof v === 'string' ? v.split(',').map((s) => s.trim()) : v),
  z.array(z.string().min(1, { error: 'has an empty id' })).min(1, { error: 'names no id' }),
);

/** `path=value` config overrides, given as a list or as the JSON array RGE_SET holds. */
const Overrides = z.preprocess(
  (v) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  },
  z.array(z.string(), { error: 'must be a JSON array of "path=value" strings' }).superRefine((list, ctx) => {
    for (const item of list)
      if (!/^[^=]+=/.test(item))
        ctx.addIssue({
          code: 'custom',
          message: `takes path=value, got ${JSON.stringify(item)}`,
          params: { shown: true },
        });
  }),
);

const Folder = z.string().min(1, { error: 'must name a folder' });

export const RunRequest = z
  .strictObject({
    /** the run config file, relative to the root */
    config: z.string().min(1, { error: 'must name a config file' }).default('configs/fixture.yaml'),
    /** `path=value` overrides of config fields (`--set`) */
    overrides: Overrides.default([]),
    /** only these subjects (config ids) */
    subjects: IdList.optional(),
    /** only the first N questions */
    questions: Count.optional(),
    /** a seeded sample of N questions, stratified by category (the config's seed) */
    sample: Count.optional(),
    /** only these question ids, in the question file's order */
    cases: IdList.optional(),
    /** runs per question (default: the config's) */
    runs: Count.optional(),
    /** sync or batch (default: the config's) */
    mode: z.enum(RUN_MODES, { error: `must be one of ${RUN_MODES.join(', ')}` }).optional(),
    /** `run`: the Vitest entry runs the stages; `done`: another process ran them, the cases only read */
    stages: z.enum(['run', 'done'], { error: 'must be run or done' }).default('run'),
    /** the results folder (cell stores, ledger, batches), relative to the root */
    resultsDir: Folder.default('data/results'),
    /** the reports folder, relative to the root */
    reportsDir: Folder.default('reports'),
  })
  .superRefine((r, ctx) => {
    // the message names the other fields in the door they came through
    if (r.sample !== undefined && (r.questions !== undefined || r.cases !== undefined))
      ctx.addIssue({
        code: 'custom',
        path: ['sample'],
        message: 'draws its own questions: give it without {questions} or {cases}',
        params: { shown: true },
      });
  });
export type RunRequest = z.infer<typeof RunRequest>;
/** A request as a program states it (numbers as numbers, lists as lists); the defaults fill the rest. */
export type RunRequestInput = z.input<typeof RunRequest>;

/** The name of a field in the door it came through: `--sample` or `RGE_SAMPLE`. */
function nameIn(door: RequestDoor, field: string): string {
  const input = REQUEST_INPUTS[field as RequestField];
  if (!input) return field;
  return door === 'flags' ? input.flag : input.env;
}

/**
 * Parses a request; a bad field is a usage error naming it in its door (`--runs must be ...`,
 * `RGE_SAMPLE must be ...`) with the value given. Fields absent (undefined) take their defaults.
 */
export function parseRunRequest(raw: Record<string, unknown>, door: RequestDoor = 'flags'): RunRequest {
  const given = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
  const parsed = RunRequest.safeParse(given);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const field = String(issue.path[0] ?? '');
    if (issue.code === 'unrecognized_keys') return `${issue.keys.join(', ')}: not part of a run request`;
    const message = issue.message.replace(/\{(\w+)\}/g, (_, f: string) => nameIn(door, f));
    // a message that shows the value itself (an override, a rule across fields) is not given it twice
    const value = given[field];
    const showsItself = issue.code === 'custom' && issue.params?.shown === true;
    const shown = value === undefined || showsItself ? '' : `, got ${JSON.stringify(value)}`;
    return `${nameIn(door, field)} ${message}${shown}`;
  });
  throw new UsageError(problems.join('; '));
}

/**
 * The request of `npx vitest run evals`, from its environment: RGE_CONFIG, RGE_SET (a JSON array),
 * RGE_SUBJECTS and RGE_CASES (comma-separated), RGE_QUESTIONS, RGE_SAMPLE, RGE_RUNS, RGE_MODE,
 * RGE_STAGES, RGE_RESULTS_DIR, RGE_REPORTS_DIR. A variable set to the empty string counts as unset.
 */
export function requestFromEnv(env: Record<string, string | undefined>): RunRequest {
  const raw: Record<string, unknown> = {};
  for (const [field, { env: name }] of Object.entries(REQUEST_INPUTS)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[field] = value;
  }
  return parseRunRequest(raw, 'env');
}
