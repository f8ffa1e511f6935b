/**
 * The subject prompt, v1: what every subject model is told and shown. The text is versioned and hashed
 * (SHA-256) so a report can say exactly which prompt produced its answers, and a changed prompt is a new
 * version, never a silent edit.
 *
 * `promptHash(request)` is the cache key of an answer (together with the question id and the run index;
 * the results store must key on all three plus this hash): it covers the system text, the messages, the
 * model and the temperature, so a different prompt, context, model or temperature is a different cell.
 */
import type { ContextChunk, ModelRequest, SubjectInput } from '../providers/types.ts';
import { sha256 } from '../util/fs.ts';

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
  temperature: number;
  maxTokens: number;
  cell: NonNullable<ModelRequest['cell']>;
}

/** The header line of a context block: `[id] (company, fy, pp. a-b, heading)`. */
export function contextHeader(chunk: ContextChunk): string {
  const [from, to] = chunk.pages;
  const pages = from === to ? `p. ${from}` : `pp. ${from}-${to}`;
  const parts = [chunk.company, chunk.fy ?? 'FY n/a', pages, ...(chunk.heading ? [chunk.heading] : [])];
  return `[${chunk.id}] (${parts.join(', ')})`;
}

/** The user message: the question, then each retrieved chunk as a block under its header. */
export function renderSubjectUserMessage(input: SubjectInput): string {
  const blocks = input.chunks.map((c) => `${contextHeader(c)}\n${c.text.trim()}`);
  return [
    `Question: ${input.question}`,
    '',
    `Context (${input.chunks.length} passage${input.chunks.length === 1 ? '' : 's'}):`,
    '',
    blocks.length > 0 ? blocks.join('\n\n') : '(no passages were retrieved)',
    '',
    'Answer the question from the context only, citing passage ids in square brackets.',
  ].join('\n');
}

/**
 * The provider seed of a cell (OpenAI and Gemini take one): 31 bits of SHA-256 over the run's seed, the
 * question and the run index, so every cell is reproducible and the runs of a question differ.
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
  const content = renderSubjectUserMessage(input);
  return {
    model: opts.model,
    system: SUBJECT_SYSTEM_PROMPT_V1,
    messages: [{ role: 'user', content, cacheBreak: content.length }],
    seed: cellSeed(opts.cell),
    temperature: opts.temperature,
    maxTokens: opts.maxTokens,
    structured: input,
    cell: opts.cell,
  };
}

/**
 * SHA-256 over system + messages + model + temperature (JSON, fixed key order). Not over max tokens or
 * the cell: the run index is a separate part of the results-store key.
 */
export function promptHash(
  request: Pick<ModelRequest, 'system' | 'messages' | 'model' | 'temperature'>,
): string {
  return sha256(
    JSON.stringify({
      system: request.system,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
      model: request.model,
      temperature: request.temperature,
    }),
  );
}
