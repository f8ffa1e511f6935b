/**
 * One logged span as the grouping reads it (`LoggedSpan`), from its attributes and events in either
 * convention: OpenTelemetry GenAI (`gen_ai.*`, names from `@opentelemetry/semantic-conventions`) or
 * OpenInference (`input.value`, `llm.*`, `retrieval.documents.*`, names from
 * `@arizeai/openinference-semantic-conventions`). An OTLP export may carry either; both are read.
 */
import {
  DOCUMENT_CONTENT,
  DOCUMENT_ID,
  DOCUMENT_METADATA,
  DOCUMENT_SCORE,
  INPUT_MIME_TYPE,
  INPUT_VALUE,
  LLM_COST_TOTAL,
  LLM_INPUT_MESSAGES,
  LLM_MODEL_NAME,
  LLM_OUTPUT_MESSAGES,
  LLM_REQUEST_MODEL_NAME,
  LLM_RESPONSE_MODEL_NAME,
  LLM_TOKEN_COUNT_COMPLETION,
  LLM_TOKEN_COUNT_PROMPT,
  METADATA,
  OUTPUT_MIME_TYPE,
  OUTPUT_VALUE,
  RETRIEVAL_DOCUMENTS,
  SemanticConventions,
} from '@arizeai/openinference-semantic-conventions';
import {
  ATTR_GEN_AI_COMPLETION,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_PROMPT,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_RETRIEVAL_DOCUMENTS,
  ATTR_GEN_AI_USAGE_COMPLETION_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_GEN_AI_USAGE_PROMPT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
  GEN_AI_OPERATION_NAME_VALUE_RETRIEVAL,
  GEN_AI_OPERATION_NAME_VALUE_TEXT_COMPLETION,
} from '@opentelemetry/semantic-conventions/incubating';
import type { SystemContext } from '../system/contract.ts';
import { type Attributes, field, listAt, numberAt, stringAt } from './attributes.ts';
import { eventMessages, type LoggedEvent, type LoggedMessage, lastOf, messagesAt } from './messages.ts';

/** What a span did in the application, as far as the trace needs it. */
export type SpanRole = 'llm' | 'retriever' | 'chain' | 'other';

/** One span, read: its place in the trace and what the case may take from it. */
export interface LoggedSpan {
  traceId: string | null;
  spanId: string | null;
  /** null for a root span */
  parentId: string | null;
  name: string;
  role: SpanRole;
  startMs: number | null;
  endMs: number | null;
  /** `input.value` / `output.value` (the text of a JSON input's question or answer field) */
  input: string | null;
  output: string | null;
  /**
   * `input.value` / `output.value` as logged when they are JSON with no such field (a function's
   * arguments as a JSON array, a whole request or response): read only when nothing else in the trace
   * says the question or answer
   */
  inputJson: string | null;
  outputJson: string | null;
  /** the last user message of its input messages; the last message of its output messages */
  userMessage: string | null;
  outputMessage: string | null;
  /** the documents a retriever span returned (null: none logged); `textless` counts those without text */
  documents: SystemContext[] | null;
  textless: number;
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  /** string attributes a sample can be stratified by (read for root spans only) */
  attrs: Attributes;
  /** an attribute present in a shape rge does not read, named */
  schemaProblem: string | null;
}

const LLM_OPERATIONS = new Set<string>([
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_TEXT_COMPLETION,
  GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT,
]);
const CHAIN_OPERATIONS = new Set<string>([
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_WORKFLOW,
]);

function roleOf(attrs: Attributes): SpanRole {
  const kind = stringAt(attrs, SemanticConventions.OPENINFERENCE_SPAN_KIND)?.toUpperCase();
  if (kind === 'LLM') return 'llm';
  if (kind === 'RETRIEVER') return 'retriever';
  if (kind === 'CHAIN' || kind === 'AGENT') return 'chain';
  const op = stringAt(attrs, ATTR_GEN_AI_OPERATION_NAME);
  if (op !== null && LLM_OPERATIONS.has(op)) return 'llm';
  if (op === GEN_AI_OPERATION_NAME_VALUE_RETRIEVAL) return 'retriever';
  if (op !== null && CHAIN_OPERATIONS.has(op)) return 'chain';
  if (kind !== undefined || op !== null) return 'other';
  if (attrs.has(ATTR_GEN_AI_REQUEST_MODEL) || attrs.has(LLM_MODEL_NAME)) return 'llm';
  return 'other';
}

/**
 * A JSON input or output's text: the first of its usual fields that is a string (`text`), else the JSON as
 * logged (`json`); a value that is not JSON is its own text.
 */
function plainText(
  value: string | null,
  mime: string | null,
  keys: readonly string[],
): { text: string | null; json: string | null } {
  if (value === null) return { text: null, json: null };
  const t = value.trimStart();
  if (!(mime?.includes('json') || t.startsWith('{') || t.startsWith('['))) return { text: value, json: null };
  try {
    const parsed: unknown = JSON.parse(t);
    if (typeof parsed === 'string') return { text: parsed, json: null };
    for (const k of keys) {
      const v = field(parsed, k);
      if (typeof v === 'string') return { text: v, json: null };
    }
  } catch {
    // not JSON after all: the text as logged
    return { text: value, json: null };
  }
  return { text: null, json: value };
}

const QUESTION_KEYS = ['question', 'query', 'input', 'text', 'message', 'user_input'];
const ANSWER_KEYS = ['answer', 'output', 'text', 'content', 'result', 'response'];

const firstNumber = (attrs: Attributes, keys: readonly string[]): number | null => {
  for (const k of keys) {
    const n = numberAt(attrs, k);
    if (n !== null) return n;
  }
  return null;
};
const firstString = (attrs: Attributes, keys: readonly string[]): string | null => {
  for (const k of keys) {
    const s = stringAt(attrs, k);
    if (s !== null && s !== '') return s;
  }
  return null;
};

/** A document's metadata (an object or a JSON string), for its source and page. */
function sourceAndPage(metadata: unknown): Pick<SystemContext, 'source' | 'page'> {
  let m = metadata;
  if (typeof m === 'string')
    try {
      m = JSON.parse(m);
    } catch {
      return {};
    }
  const source = field(m, 'source') ?? field(m, 'file_name') ?? field(m, 'title') ?? field(m, 'url');
  const page = Number(field(m, 'page') ?? field(m, 'page_number') ?? field(m, 'page_label'));
  return {
    ...(typeof source === 'string' ? { source } : {}),
    ...(Number.isInteger(page) && page >= 1 ? { page } : {}),
  };
}

/** The documents of a retriever span, in either convention, with how many came without a text. */
function documentsOf(
  attrs: Attributes,
  spanId: string | null,
): {
  documents: SystemContext[] | null;
  textless: number;
  problem: string | null;
} {
  const oi = listAt(attrs, RETRIEVAL_DOCUMENTS);
  const list = oi ?? listAt(attrs, ATTR_GEN_AI_RETRIEVAL_DOCUMENTS);
  if (list === null) return { documents: null, textless: 0, problem: null };
  if ('unreadable' in list) return { documents: null, textless: 0, problem: list.unreadable };
  const documents: SystemContext[] = [];
  let textless = 0;
  for (const [i, item] of list.items.entries()) {
    const doc = oi ? (field(item, 'document') ?? item) : item;
    const at = (flat: string, plain: string) => field(item, flat) ?? field(doc, plain);
    const text = at(DOCUMENT_CONTENT, 'content') ?? field(doc, 'text') ?? field(doc, 'page_content');
    if (typeof text !== 'string') {
      textless++;
      continue;
    }
    const id = at(DOCUMENT_ID, 'id');
    const score = Number(at(DOCUMENT_SCORE, 'score'));
    documents.push({
      id: typeof id === 'string' || typeof id === 'number' ? String(id) : `${spanId ?? 'span'}-${i}`,
      text,
      ...sourceAndPage(at(DOCUMENT_METADATA, 'metadata')),
      ...(Number.isFinite(score) && at(DOCUMENT_SCORE, 'score') !== undefined ? { score } : {}),
    });
  }
  return { documents, textless, problem: null };
}

/** The input and output messages, in the first form the span has them. */
function messagesOf(attrs: Attributes, events: readonly LoggedEvent[]) {
  const problems: string[] = [];
  const read = (keys: readonly string[]): LoggedMessage[] | null => {
    for (const key of keys) {
      const m = messagesAt(attrs, key);
      if (m === null) continue;
      if ('unreadable' in m) problems.push(m.unreadable);
      else return m.messages;
    }
    return null;
  };
  const fromEvents = eventMessages(events);
  const input =
    read([ATTR_GEN_AI_INPUT_MESSAGES, LLM_INPUT_MESSAGES, ATTR_GEN_AI_PROMPT]) ?? fromEvents.input;
  const output =
    read([ATTR_GEN_AI_OUTPUT_MESSAGES, LLM_OUTPUT_MESSAGES, ATTR_GEN_AI_COMPLETION]) ?? fromEvents.output;
  return { input, output, problem: problems[0] ?? null };
}

/** What one span says, given its attributes, events, ids and times (ms since the epoch). */
export function readSpan(
  attrs: Attributes,
  events: readonly LoggedEvent[],
  ids: { traceId: string | null; spanId: string | null; parentId: string | null; name: string },
  times: { startMs: number | null; endMs: number | null },
): LoggedSpan {
  const role = roleOf(attrs);
  // a retriever's input is its query, not the user's messages
  const messages =
    role === 'retriever' ? { input: [], output: [], problem: null } : messagesOf(attrs, events);
  const docs = role === 'retriever' ? documentsOf(attrs, ids.spanId) : null;
  const llm = role === 'llm';
  const input = plainText(stringAt(attrs, INPUT_VALUE), stringAt(attrs, INPUT_MIME_TYPE), QUESTION_KEYS);
  const output = plainText(stringAt(attrs, OUTPUT_VALUE), stringAt(attrs, OUTPUT_MIME_TYPE), ANSWER_KEYS);
  return {
    ...ids,
    ...times,
    role,
    input: input.text,
    output: output.text,
    inputJson: input.json,
    outputJson: output.json,
    userMessage: lastOf(messages.input, 'user'),
    outputMessage: lastOf(messages.output, null),
    documents: docs?.documents ?? null,
    textless: docs?.textless ?? 0,
    model: firstString(attrs, [
      ATTR_GEN_AI_RESPONSE_MODEL,
      ATTR_GEN_AI_REQUEST_MODEL,
      LLM_MODEL_NAME,
      LLM_RESPONSE_MODEL_NAME,
      LLM_REQUEST_MODEL_NAME,
    ]),
    inputTokens: llm
      ? firstNumber(attrs, [
          ATTR_GEN_AI_USAGE_INPUT_TOKENS,
          ATTR_GEN_AI_USAGE_PROMPT_TOKENS,
          LLM_TOKEN_COUNT_PROMPT,
        ])
      : null,
    outputTokens: llm
      ? firstNumber(attrs, [
          ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
          ATTR_GEN_AI_USAGE_COMPLETION_TOKENS,
          LLM_TOKEN_COUNT_COMPLETION,
        ])
      : null,
    costUsd: llm ? numberAt(attrs, LLM_COST_TOTAL) : null,
    attrs: ids.parentId === null ? attrs : new Map(),
    schemaProblem: docs?.problem ?? messages.problem,
  };
}

/** The keys of a root span that are content, not a field to stratify by. */
const CONTENT_PREFIXES = [
  'input.',
  'output.',
  'llm.',
  'retrieval.',
  'gen_ai.',
  'openinference.',
  'exception.',
];
export const isContentKey = (key: string) => CONTENT_PREFIXES.some((p) => key.startsWith(p));

/** OpenInference's `metadata` attribute (a JSON string or an object) as string fields. */
export function metadataFields(attrs: Attributes): [string, string][] {
  let m: unknown = attrs.get(METADATA);
  if (typeof m === 'string')
    try {
      m = JSON.parse(m);
    } catch {
      return [];
    }
  if (m === null || typeof m !== 'object' || Array.isArray(m)) {
    const out: [string, string][] = [];
    for (const [k, v] of attrs)
      if (k.startsWith(`${METADATA}.`) && typeof v === 'string') out.push([k.slice(METADATA.length + 1), v]);
    return out;
  }
  return Object.entries(m as Record<string, unknown>).flatMap(([k, v]) =>
    typeof v === 'string' ? [[k, v] as [string, string]] : [],
  );
}
