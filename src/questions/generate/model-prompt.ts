/**
 * The question generator prompt (prompts/question-generator.md) and what a model's reply to it is read
 * as. The prompt shows a generation task's chunks (never a whole long document), each fenced in a
 * <chunk> tag with its document name and heading, and asks for `count` candidates of the task's category
 * as JSON following `generationJsonSchema()`: `{ candidates: [...] }`.
 *
 * The schema sent is strict-mode friendly for every provider (OpenAI `json_schema` strict, Anthropic
 * `output_config.format`, Gemini `responseSchema`): every property is required, no `null` and no union,
 * so an optional field of `CandidateBody` is written as an empty value ("" , [], "none") that
 * `candidateBodyOf` drops before `CandidateBody.safeParse`. A reply in `CandidateBody`'s own shape (the
 * optional fields left out) reads the same.
 *
 * Pure: no I/O but reading the prompt file (`readGeneratorPrompt`).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DERIVATION_OPS } from '../../analysis/derivation.ts';
import { GOLD_UNITS } from '../../analysis/numbers.ts';
import type { Chunk } from '../../corpus/schema.ts';
import type { ModelRequest, RequestParameters, StopInfo } from '../../providers/types.ts';
import { RgeError } from '../../util/errors.ts';
import { sha256 } from '../../util/fs.ts';
import { promptFileParts } from '../../util/prompt-file.ts';
import { DistractorKind, ExpectedBehavior, QUESTION_CATEGORIES } from '../schema.ts';
import type { GenerationTask } from './generator.ts';

/** The packaged prompt file: what a generator uses unless it is given another. */
export const GENERATOR_PROMPT_FILE = fileURLToPath(
  new URL('../../../prompts/question-generator.md', import.meta.url),
);

/** A parsed generator prompt: its version, system text, user template and the SHA-256 of the file. */
export interface GeneratorPrompt {
  version: string;
  system: string;
  template: string;
  /** SHA-256 of the whole file: the generator's `prompt_hash` */
  sha256: string;
  file: string;
}

const PLACEHOLDERS = ['count', 'category', 'language', 'chunk_count', 'chunks'] as const;

/**
 * Reads a generator prompt file's text: a `# Question generator prompt <version>` title, `## System`
 * and `## User` (the template, with every placeholder of PLACEHOLDERS); an HTML comment is
 * documentation. A file without them is an error naming it.
 */
export function parseGeneratorPrompt(text: string, file: string): GeneratorPrompt {
  const { version, system, template } = promptFileParts(text, 'Question generator prompt');
  const where = { file };
  if (!version) throw new RgeError('no "# Question generator prompt <version>" title', where);
  if (!system) throw new RgeError('no "## System" section (the system prompt)', where);
  if (!template) throw new RgeError('no "## User" section (the task message template)', where);
  for (const name of PLACEHOLDERS)
    if (!template.includes(`{{${name}}}`))
      throw new RgeError(`the "## User" template has no {{${name}}}`, where);
  return { version, system, template, sha256: sha256(text), file };
}

/** Reads and parses a generator prompt file (default: the packaged prompts/question-generator.md). */
export function readGeneratorPrompt(file: string = GENERATOR_PROMPT_FILE): GeneratorPrompt {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new RgeError(code === 'ENOENT' ? 'generator prompt file not found' : String(err), { file });
  }
  return parseGeneratorPrompt(text, file);
}

/** Output tokens a task may take: room for `count` candidates of the longest category (multihop). */
export function generationMaxTokens(count: number): number {
  return 400 + 700 * count;
}

/** Text inside a fence cannot close it: `</chunk` is escaped. */
const fenced = (text: string) => text.replace(/<\/chunk/gi, '<\\/chunk');
const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** A task's chunks as the prompt shows them: each fenced, with its id, document, heading and pages. */
export function renderChunks(chunks: readonly Chunk[]): string {
  return chunks
    .map((c) => {
      const heading = c.headings && c.headings.length > 0 ? c.headings.join(' > ') : c.heading;
      const attrs = [
        `id="${attribute(c.id)}"`,
        `document="${attribute(c.source)}"`,
        ...(heading ? [`heading="${attribute(heading)}"`] : []),
        `pages="${c.pages[0] === c.pages[1] ? c.pages[0] : `${c.pages[0]}-${c.pages[1]}`}"`,
      ];
      return `<chunk ${attrs.join(' ')}>\n${fenced(c.text.trim())}\n</chunk>`;
    })
    .join('\n\n');
}

/** `Hindi (hi)` for an ISO 639-1 code; the chunks' own language when none is known. */
export function languageName(code: string | null): string {
  if (code === null) return 'the language the chunks are written in';
  let name: string | undefined;
  try {
    name = new Intl.DisplayNames(['en'], { type: 'language' }).of(code);
  } catch {
    name = undefined;
  }
  return name && name !== code ? `${name} (${code})` : code;
}

/** The task's user message: the template filled in. */
export function renderGenerationMessage(task: GenerationTask, template: string): string {
  const values: Record<(typeof PLACEHOLDERS)[number], string> = {
    count: String(task.count),
    category: task.category,
    language: languageName(task.language),
    chunk_count: `${task.chunks.length} chunk${task.chunks.length === 1 ? '' : 's'}`,
    chunks: renderChunks(task.chunks),
  };
  return template.replace(/\{\{(\w+)\}\}/g, (m, name: string) =>
    Object.hasOwn(values, name) ? values[name as keyof typeof values] : m,
  );
}

/** What a generation request is made of besides the task. */
export interface GenerationRequestOptions {
  model: string;
  prompt: GeneratorPrompt;
  parameters: RequestParameters;
  maxTokens: number;
  /** the provider seed sent when the parameters ask for one (`parameters.seed`) */
  seed: number;
}

/** The request a live model receives for a task: the system text, the task's message, the schema. */
export function renderGenerationRequest(task: GenerationTask, opts: GenerationRequestOptions): ModelRequest {
  return {
    model: opts.model,
    system: opts.prompt.system,
    messages: [{ role: 'user', content: renderGenerationMessage(task, opts.prompt.template) }],
    parameters: opts.parameters,
    maxTokens: opts.maxTokens,
    jsonSchema: generationJsonSchema(),
    seed: opts.seed,
  };
}

type Json = Record<string, unknown>;
const object = (properties: Record<string, Json>): Json => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const str = (description?: string): Json => ({ type: 'string', ...(description ? { description } : {}) });
const strings = (values: readonly string[]): Json => ({ type: 'string', enum: [...values] });
const array = (items: Json): Json => ({ type: 'array', items });

/** The sentinel of "no derivation" and "no trap" in the wire schema. */
const NONE = 'none';

/** The JSON Schema of a reply, `{ candidates: [...] }`, in the strict form every provider takes. */
export function generationJsonSchema(): Json {
  const operand = object({ label: str(), value: { type: 'number' }, unit: strings(GOLD_UNITS) });
  const figure = object({
    label: str(),
    value: { type: 'number' },
    unit: strings(GOLD_UNITS),
    derivation: object({ op: strings([NONE, ...DERIVATION_OPS]), operands: array(operand) }),
  });
  const candidate = object({
    category: strings(QUESTION_CATEGORIES),
    text: str('the question'),
    gold_answer: str(),
    gold_quotes: array(object({ document: str('as the chunk names it'), text: str('verbatim') })),
    expected_behavior: strings(ExpectedBehavior.options),
    numeric_gold: array(figure),
    false_premise: str('adversarial only; "" otherwise'),
    distractor_kind: strings([NONE, ...DistractorKind.options]),
    absent_terms: array(str()),
  });
  return object({ candidates: array(candidate) });
}

const isRecord = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * A candidate as the wire schema writes it, in `CandidateBody`'s shape: the empty values that stand
 * for an absent optional field ("" false_premise, "none" distractor_kind, [] absent_terms, a
 * derivation of op "none") are dropped; anything else is left for `CandidateBody` to judge.
 */
export function candidateBodyOf(item: unknown): unknown {
  if (!isRecord(item)) return item;
  const out: Record<string, unknown> = { ...item };
  if (out.false_premise === '' || out.false_premise === null) delete out.false_premise;
  if (out.distractor_kind === NONE || out.distractor_kind === '' || out.distractor_kind === null)
    delete out.distractor_kind;
  if ((Array.isArray(out.absent_terms) && out.absent_terms.length === 0) || out.absent_terms === null)
    delete out.absent_terms;
  if (Array.isArray(out.numeric_gold))
    out.numeric_gold = out.numeric_gold.map((g) => {
      if (!isRecord(g)) return g;
      const d = g.derivation;
      if (d === null || (isRecord(d) && (d.op === NONE || d.op === ''))) {
        const { derivation: _, ...rest } = g;
        return rest;
      }
      return g;
    });
  return out;
}

/** Why a reply gave no candidates: the reply's kind of failure, and a message naming what is wrong. */
export const GENERATION_FAILURES = ['prose', 'malformed-json', 'schema', 'refusal', 'truncated'] as const;
export type GenerationFailureKind = (typeof GENERATION_FAILURES)[number];

export type ReplyReading =
  | { ok: true; items: unknown[] }
  | { ok: false; kind: GenerationFailureKind; message: string };

/** The JSON text of a reply: a fenced block's body, else the outermost braces, else the trimmed text. */
function jsonText(text: string): string {
  const block = /```(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)\r?\n?```/.exec(text);
  if (block?.[1] !== undefined) return block[1].trim();
  const trimmed = text.trim();
  const start = trimmed.indexOf('{');
  const end = trimmed.lastIndexOf('}');
  return !trimmed.startsWith('{') && start >= 0 && end > start ? trimmed.slice(start, end + 1) : trimmed;
}

/**
 * A reply read as a list of candidate items: a refusal or safety stop, a reply cut at the output limit,
 * prose (no JSON object in it), malformed JSON, or JSON without a `candidates` list is a failure with
 * its kind; the items themselves are judged one by one afterwards.
 */
export function readGenerationReply(text: string, stop: StopInfo | undefined): ReplyReading {
  const kind = stop?.kind ?? 'complete';
  if (kind === 'refusal' || kind === 'safety')
    return { ok: false, kind: 'refusal', message: `the model declined (${stop?.reason ?? kind})` };
  if (kind === 'truncated')
    return {
      ok: false,
      kind: 'truncated',
      message: `the reply was cut at the output limit (${stop?.reason})`,
    };
  const json = jsonText(text);
  if (!json.startsWith('{') && !json.startsWith('['))
    return { ok: false, kind: 'prose', message: `the reply is prose, not JSON: "${excerpt(text)}"` };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { ok: false, kind: 'malformed-json', message: `the reply is malformed JSON (${why})` };
  }
  if (!isRecord(value) || !Array.isArray(value.candidates))
    return { ok: false, kind: 'schema', message: 'the reply is JSON without a "candidates" list' };
  return { ok: true, items: value.candidates };
}

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat;
}
