/**
 * The chat messages a logged LLM span carries, in each form the conventions have used:
 * - OpenTelemetry GenAI, current: `gen_ai.input.messages` / `gen_ai.output.messages`, a JSON string or a
 *   structured array of `{role, parts: [{type: "text", content}]}`;
 * - OpenTelemetry GenAI, older: the events `gen_ai.user.message`, `gen_ai.assistant.message`,
 *   `gen_ai.choice` (their `content`, or a `message` or `gen_ai.event.content` JSON body), and the
 *   `gen_ai.prompt` / `gen_ai.completion` attributes (indexed `gen_ai.prompt.0.content`, or JSON);
 * - OpenInference: `llm.input_messages` / `llm.output_messages`, indexed
 *   (`llm.input_messages.0.message.role`, `.message.content`, `.message.contents.0.message_content.text`)
 *   or nested.
 */
import {
  MESSAGE_CONTENT,
  MESSAGE_CONTENT_TEXT,
  MESSAGE_CONTENTS,
  MESSAGE_ROLE,
} from '@arizeai/openinference-semantic-conventions';
import {
  EVENT_GEN_AI_ASSISTANT_MESSAGE,
  EVENT_GEN_AI_CHOICE,
  EVENT_GEN_AI_USER_MESSAGE,
} from '@opentelemetry/semantic-conventions/incubating';
import { type Attributes, field, listAt, stringAt } from './attributes.ts';

/** One message: who said it and its text. */
export interface LoggedMessage {
  role: string;
  text: string;
}

/** A span event as the importers keep it: its name and attributes. */
export interface LoggedEvent {
  name: string;
  attrs: Attributes;
}

const asJson = (x: unknown): unknown => {
  if (typeof x !== 'string') return x;
  const t = x.trimStart();
  if (!t.startsWith('{') && !t.startsWith('[')) return x;
  try {
    return JSON.parse(t);
  } catch {
    return x;
  }
};

/** The text parts of a `parts` array (GenAI) or a `message.contents` list (OpenInference), joined. */
function partsText(parts: unknown[]): string | null {
  const texts: string[] = [];
  for (const p of parts) {
    if (typeof p === 'string') texts.push(p);
    const type = field(p, 'type');
    const content = field(p, 'content') ?? field(p, MESSAGE_CONTENT_TEXT) ?? field(p, 'text');
    if (typeof content === 'string' && (type === undefined || type === 'text')) texts.push(content);
  }
  return texts.length > 0 ? texts.join('\n') : null;
}

/** One message of any of the forms above, or null when it has no readable text. */
export function messageOf(item: unknown, defaultRole = ''): LoggedMessage | null {
  const m = asJson(item);
  if (typeof m === 'string') return { role: defaultRole, text: m };
  const role = field(m, 'role') ?? field(m, MESSAGE_ROLE) ?? field(m, 'message.role') ?? defaultRole;
  const content = field(m, 'content') ?? field(m, MESSAGE_CONTENT) ?? field(m, 'message.content');
  let text: string | null = typeof content === 'string' ? content : null;
  if (text === null && Array.isArray(content)) text = partsText(content);
  const parts = field(m, 'parts');
  if (text === null && Array.isArray(parts)) text = partsText(parts);
  if (text === null && m !== null && typeof m === 'object') {
    const contents = listAt(new Map(Object.entries(m as object)), MESSAGE_CONTENTS);
    if (contents && 'items' in contents) text = partsText(contents.items);
  }
  if (text === null) {
    // a gen_ai.choice body: {message: {content}}
    const inner = field(m, 'message');
    if (inner !== undefined && inner !== m) return messageOf(inner, String(role));
    return null;
  }
  return { role: String(role), text };
}

/** The messages of a list attribute; `unreadable` names an attribute present in a shape none of the forms has. */
export function messagesAt(
  attrs: Attributes,
  key: string,
): { messages: LoggedMessage[] } | null | { unreadable: string } {
  const list = listAt(attrs, key);
  if (list === null || 'unreadable' in list) return list;
  const messages: LoggedMessage[] = [];
  for (const item of list.items) {
    const m = messageOf(item);
    if (m) messages.push(m);
  }
  if (messages.length === 0 && list.items.length > 0)
    return { unreadable: `${key} holds ${list.items.length} item(s) with no role and text that rge reads` };
  return { messages };
}

/** The text an older-form GenAI event carries (`content`, or a `message`, `gen_ai.event.content` or `body` JSON). */
function eventText(attrs: Attributes, role: string): LoggedMessage | null {
  const content = stringAt(attrs, 'content');
  if (content !== null) return { role, text: content };
  for (const key of ['message', 'gen_ai.event.content', 'body']) {
    const v = attrs.get(key);
    if (v === undefined) continue;
    const m = messageOf(v, role);
    if (m) return { role, text: m.text };
  }
  return null;
}

/** The input and output messages of a span's older-form GenAI events, in their order. */
export function eventMessages(events: readonly LoggedEvent[]): {
  input: LoggedMessage[];
  output: LoggedMessage[];
} {
  const input: LoggedMessage[] = [];
  const output: LoggedMessage[] = [];
  for (const e of events) {
    if (e.name === EVENT_GEN_AI_USER_MESSAGE) {
      const m = eventText(e.attrs, 'user');
      if (m) input.push(m);
    } else if (e.name === EVENT_GEN_AI_CHOICE || e.name === EVENT_GEN_AI_ASSISTANT_MESSAGE) {
      const m = eventText(e.attrs, 'assistant');
      if (m) (e.name === EVENT_GEN_AI_CHOICE ? output : input).push(m);
    }
  }
  return { input, output };
}

/** The last message said by `role` (any role when none is), or null. */
export function lastOf(messages: readonly LoggedMessage[], role: string | null): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as LoggedMessage;
    if (role === null || m.role === role) return m.text;
  }
  return null;
}
