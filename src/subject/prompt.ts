/**
 * The subject prompt, v1: what every subject model is told and shown. The text is versioned and hashed
 * (SHA-256) so a report can say exactly which prompt produced its answers, and a changed prompt is a new
 * version, never a silent edit.
 *
 * `promptHash(request)` is the cache key of an answer (together with the question id and the run index;
 * the results store must key on all three plus this hash): it covers the system text, the messages, the
 * model and the temperature, so a different prompt, context, model or temperature is a different cell.
 */
import { readFile } from 'node:fs/promises';
import {
  type ContextChunk,
  type ModelRequest,
  parametersIdentity,
  type RequestParameters,
  type SubjectInput,
} from '../providers/types.ts';
import { RgeError } from '../util/errors.ts';
import { sha256 } from '../util/fs.ts';
import { promptFileParts } from '../util/prompt-file.ts';

export const SUBJECT_PROMPT_VERSION = 'v1';

export const SUBJECT_SYSTEM_PROMPT_V1 = [
  'You answer questions about company annual reports using only the numbered context passages you are given.',
  '',
  'Rules:',
  '1. Answer only from the context. Do not use outside knowledge, even when you are sure of it.',
  '2. Cite every claim with the id of the passage it comes from, in square brackets, right after the claim,',
  '   for example [reliance-FY24-1a2b3c4d]. Cite only ids that appear in the context.',
  '3. If the context does not contain the answer, say plainly that the provided context does not state it,',
  '   and do not guess. Say what is missing.',
  '4. State units and periods with every figure: the currency and scale (for example Rs crore, Rs lakh, USD',
  '   million, %), the fiscal year or quarter, and whether a figure is standalone or consolidated.',
  '5. Copy figures exactly as written in the context, including Indian digit grouping (9,00,122.00).',
  '6. Be brief: answer the question asked, then stop.',
].join('\n');

/** The versioned subject prompt text and its SHA-256. */
export const SUBJECT_PROMPT = {
  version: SUBJECT_PROMPT_VERSION,
  system: SUBJECT_SYSTEM_PROMPT_V1,
} as const;

export const subjectPromptHash: string = sha256(SUBJECT_SYSTEM_PROMPT_V1);

export interface RenderSubjectOptions {
  model: string;
  /** the sampling and reasoning parameters sent (resolved from the config and the model's contract) */
  parameters: RequestParameters;
  maxTokens: number;
  cell: NonNullable<ModelRequest['cell']>;
  /** the prompt (a run's prompt file); default the built-in v1 */
  prompt?: SubjectPrompt;
}

/** The header line of a context block: `[id] (company, fy, pp. a-b, heading)`. */
export function contextHeader(chunk: ContextChunk): string {
  const [from, to] = chunk.pages;
  const pages = from === to ? `p. ${from}` : `pp. ${from}-${to}`;
  const parts = [chunk.company, chunk.fy ?? 'FY n/a', pages, ...(chunk.heading ? [chunk.heading] : [])];
  return `[${chunk.id}] (${parts.join(', ')})`;
}

/** The built-in v1 user message template (prompts/subject.md holds the same). */
export const SUBJECT_USER_TEMPLATE_V1 = [
  'Question: {{question}}',
  '',
  'Context ({{passages}}):',
  '',
  '{{context}}',
  '',
  'Answer the question from the context only, citing passage ids in square brackets.',
].join('\n');

/** A subject prompt: its version, the system text, the user message template, and the file's SHA-256. */
export interface SubjectPrompt {
  version: string;
  system: string;
  template: string;
  /** SHA-256 of the prompt file (or of the built-in system text) */
  sha256: string;
  file: string | null;
}

/** The user message: the question, then each retrieved chunk as a block under its header. */
export function renderSubjectUserMessage(
  input: SubjectInput,
  template: string = SUBJECT_USER_TEMPLATE_V1,
): string {
  const blocks = input.chunks.map((c) => `${contextHeader(c)}\n${c.text.trim()}`);
  const values: Record<string, string> = {
    question: input.question,
    passages: `${input.chunks.length} passage${input.chunks.length === 1 ? '' : 's'}`,
    context: blocks.length > 0 ? blocks.join('\n\n') : '(no passages were retrieved)',
  };
  return template.replace(/\{\{(question|passages|context)\}\}/g, (_m, name: string) => values[name] ?? '');
}

/**
 * Reads a subject prompt file (`prompts/subject.md`): a `# Subject prompt <version>` title, the system
 * text under `## System` and the user message template under `## User` ({{question}}, {{passages}},
 * {{context}}); an HTML comment is documentation. A file without both sections, or a template without
 * {{question}} and {{context}}, is an error naming the file.
 */
export function parseSubjectPrompt(text: string, file: string): SubjectPrompt {
  const { version, system, template } = promptFileParts(text, 'Subject prompt');
  const where = { file };
  if (!version) throw new RgeError('no "# Subject prompt <version>" title', where);
  if (!system) throw new RgeError('no "## System" section (the system prompt)', where);
  if (!template) throw new RgeError('no "## User" section (the user message template)', where);
  for (const needed of ['{{question}}', '{{context}}'])
    if (!template.includes(needed)) throw new RgeError(`the "## User" template has no ${needed}`, where);
  return { version, system, template, sha256: sha256(text), file };
}

export async function loadSubjectPrompt(file: string): Promise<SubjectPrompt> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new RgeError(err.code === 'ENOENT' ? 'subject prompt file not found' : err.message, { file });
  });
  return parseSubjectPrompt(text, file);
}

/** The built-in prompt v1 (the same text as prompts/subject.md). */
export const BUILTIN_SUBJECT_PROMPT: SubjectPrompt = {
  version: SUBJECT_PROMPT_VERSION,
  system: SUBJECT_SYSTEM_PROMPT_V1,
  template: SUBJECT_USER_TEMPLATE_V1,
  sha256: sha256(SUBJECT_SYSTEM_PROMPT_V1),
  file: null,
};

/**
 * The provider seed of a cell (OpenAI and Gemini take one): 31 bits of SHA-256 over the run's seed, the
 * question and the run index, so a rerun sends each cell the same request and the runs of a question
 * differ. It does not make a reply repeat: the providers promise a best effort at most (OpenAI's `seed`
 * is deprecated), so rge reuses stored answers rather than relying on it, and measures the run-to-run
 * spread.
 */
export function cellSeed(cell: NonNullable<ModelRequest['cell']>): number {
  return (
    Number.parseInt(sha256(`${cell.seed}:${cell.questionId}:${cell.runIndex}`).slice(0, 8), 16) & 0x7fffffff
  );
}

/**
 * The request a subject provider receives; offline providers read `structured`, live ones the text. The
 * whole user message (question and context) is the same for every run of a question, so it is marked
 * cacheable: runs after the first read it from the provider's prompt cache.
 */
export function renderSubjectRequest(input: SubjectInput, opts: RenderSubjectOptions): ModelRequest {
  const prompt = opts.prompt ?? BUILTIN_SUBJECT_PROMPT;
  const content = renderSubjectUserMessage(input, prompt.template);
  return {
    model: opts.model,
    system: prompt.system,
    messages: [{ role: 'user', content, cacheBreak: content.length }],
    seed: cellSeed(opts.cell),
    parameters: opts.parameters,
    maxTokens: opts.maxTokens,
    structured: input,
    cell: opts.cell,
  };
}

/**
 * SHA-256 over system + messages + model + the parameters sent (JSON, fixed key order; the temperature
 * under its own key, any other parameter under `parameters`, see `parametersIdentity`). Not over max
 * tokens or the cell: the run index is a separate part of the results-store key.
 */
export function promptHash(
  request: Pick<ModelRequest, 'system' | 'messages' | 'model' | 'parameters'>,
): string {
  return sha256(
    JSON.stringify({
      system: request.system,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
      model: request.model,
      ...parametersIdentity(request.parameters),
    }),
  );
}
