/**
 * The subjects' sections of the run config (composed by src/run/config/config.ts): `subjects[]` (the models
 * under test) and `subject_prompt`.
 */
import { z } from 'zod';
import { LIVE_PROVIDERS } from '../providers/catalogue.ts';
import { liveFields, modelEntryFields } from '../providers/config.ts';
import { type AddIssue, Path } from '../util/config-fields.ts';

/**
 * A user's own RAG system as the subject (src/system): a module's function, an HTTP endpoint, a command,
 * or its logged traces (src/traces/subject.ts: each question's answer and contexts as the application
 * logged them, nothing called).
 */
export const SYSTEM_PROVIDERS = ['module', 'http', 'command', 'logged-traces'] as const;
export type SystemProvider = (typeof SYSTEM_PROVIDERS)[number];

export const SUBJECT_PROVIDERS = ['offline', 'replay', ...LIVE_PROVIDERS, ...SYSTEM_PROVIDERS] as const;

export function isSystemProvider(provider: string): provider is SystemProvider {
  return (SYSTEM_PROVIDERS as readonly string[]).includes(provider);
}

/** What a system subject adds: how rge reaches it, and its version. */
const systemFields = {
  module: Path.optional().describe('module: the TypeScript or JavaScript file exporting the system function'),
  export: z.string().min(1).optional().describe("module: the function's export name (default: default)"),
  url: z.string().url().optional().describe('http: the endpoint each question is POSTed to, as JSON'),
  headers: z
    .record(z.string().min(1), z.string())
    .optional()
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${NAME} is the config's own notation
    .describe('http: request headers; ${NAME} in a value is read from the environment (never written)'),
  command: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe('command: the program and its arguments (question JSON on stdin, answer JSON on stdout)'),
  cwd: Path.optional().describe(
    "command: the folder the command runs in, relative to the config's folder (default: the config file's folder)",
  ),
  pool: z
    .number()
    .int()
    .positive()
    .nullable()
    .optional()
    .describe('command: N long-lived processes speaking JSON Lines; null or absent: a process per question'),
  cases: Path.optional().describe(
    'logged-traces: the logged cases (cases.jsonl of `rge traces import`); the questions file must hold their questions (`rge traces questions`)',
  ),
  version: z
    .string()
    .min(1)
    .optional()
    .describe("the system's version: a changed one is asked again (module: default the file's sha256)"),
  version_files: z
    .array(Path)
    .min(1)
    .optional()
    .describe(
      "files and folders whose contents are the system's version (with a module's file): a changed prompt is asked again",
    ),
  timeout_ms: z.number().int().positive().optional().describe('per question (default 120000)'),
  concurrency: z.number().int().positive().optional().describe('questions in flight at once (default 4)'),
  rpm: z.number().positive().nullable().optional().describe('http: requests per minute; null = unlimited'),
  max_attempts: z
    .number()
    .int()
    .min(1)
    .max(20)
    .optional()
    .describe('http: attempts per question (default 4)'),
};

export const Subject = z.strictObject({
  ...modelEntryFields(
    SUBJECT_PROVIDERS,
    "vendor family (a system's: its model's); no judge judges a subject of its own family",
  ),
  max_tokens: z.number().int().positive().optional().describe('a model subject: its output limit'),
  replay_file: Path.optional().describe('recorded answers to replay (provider replay only)'),
  ...liveFields,
  ...systemFields,
});
export type Subject = z.infer<typeof Subject>;

export const SubjectPromptSettings = z
  .strictObject({
    file: Path.nullable().describe(
      'the subject prompt file (e.g. prompts/subject.md); null = the built-in v1',
    ),
  })
  .default({ file: null })
  .describe('what every subject is told and shown: the system text and the user message template');

/** Which system field each system provider needs; the others are its alone. */
const SYSTEM_FIELD: Record<SystemProvider, 'module' | 'url' | 'command' | 'cases'> = {
  module: 'module',
  http: 'url',
  command: 'command',
  'logged-traces': 'cases',
};
const SYSTEM_ONLY = [
  'export',
  'headers',
  'cwd',
  'pool',
  'version',
  'version_files',
  'timeout_ms',
  'concurrency',
  'rpm',
  'max_attempts',
];
const SAMPLING = ['temperature', 'top_p', 'reasoning_effort', 'thinking_level', 'send_seed'];

/** A system subject's rules: the field its way in needs, no field of another way, no model parameter. */
function systemIssues(i: number, s: Record<string, unknown>, issue: AddIssue): void {
  const provider = typeof s.provider === 'string' && isSystemProvider(s.provider) ? s.provider : null;
  for (const [p, field] of Object.entries(SYSTEM_FIELD) as [SystemProvider, string][]) {
    if (provider === p && s[field] === undefined)
      issue(['subjects', i, field], `required when provider is ${p}`);
    if (provider !== p && s[field] !== undefined)
      issue(['subjects', i, field], `only a ${p} subject takes ${field} (provider is ${String(s.provider)})`);
  }
  for (const field of SYSTEM_ONLY)
    if (provider === null && s[field] !== undefined)
      issue(['subjects', i, field], `only a system subject (${SYSTEM_PROVIDERS.join(', ')}) takes ${field}`);
  if (provider === 'logged-traces')
    for (const field of ['version', 'version_files', 'timeout_ms'])
      if (s[field] !== undefined)
        issue(
          ['subjects', i, field],
          `a logged-traces subject is asked nothing and its version is its cases file's sha256: it takes no ${field}`,
        );
  if (s.version !== undefined && s.version_files !== undefined)
    issue(['subjects', i, 'version_files'], 'give version or version_files, not both');
  if (provider !== 'module' && s.export !== undefined)
    issue(['subjects', i, 'export'], 'only a module subject takes export');
  for (const field of ['pool', 'cwd'])
    if (provider !== 'command' && s[field] !== undefined)
      issue(['subjects', i, field], `only a command subject takes ${field}`);
  if (provider !== 'http' && (s.headers ?? s.rpm ?? s.max_attempts) !== undefined)
    issue(
      ['subjects', i, s.headers !== undefined ? 'headers' : s.rpm !== undefined ? 'rpm' : 'max_attempts'],
      'only an http subject takes it',
    );
  if (provider === null && s.max_tokens === undefined)
    issue(['subjects', i, 'max_tokens'], `required for a model subject (provider ${String(s.provider)})`);
  if (provider !== null)
    for (const field of ['max_tokens', ...SAMPLING])
      if (s[field] !== undefined)
        issue(
          ['subjects', i, field],
          `a system subject is not sent ${field}: it samples as it does, with the seed rge gives each question`,
        );
}

/** A subject entry's own cross-field rules: a replay file exactly for a replay subject; a system's fields. */
export function subjectIssues(i: number, s: Record<string, unknown>, issue: AddIssue): void {
  systemIssues(i, s, issue);
  if (s.provider === 'replay' && s.replay_file === undefined)
    issue(['subjects', i, 'replay_file'], 'required when provider is replay');
  if (s.provider !== 'replay' && s.replay_file !== undefined)
    issue(
      ['subjects', i, 'replay_file'],
      `only a replay subject reads a replay file (provider is ${String(s.provider)})`,
    );
}
