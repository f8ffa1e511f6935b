/**
 * OpenInference spans as Phoenix exports them, one span per JSON object (JSON Lines, or a JSON array):
 * `{name, context: {trace_id, span_id}, parent_id, span_kind, start_time, end_time, attributes, events}`,
 * the attributes flat with dots (`"retrieval.documents.0.document.id"`) or nested
 * (`{"retrieval": {"documents": [{"document": {...}}]}}`). A dataframe-style export with top-level
 * `context.trace_id` and `attributes.input.value` columns is read too. An OpenInference span sent over
 * OTLP is an OTLP record (otlp.ts); its attributes are read the same way.
 */
import { SemanticConventions } from '@arizeai/openinference-semantic-conventions';
import { type Attributes, field, nestedAttributes } from './attributes.ts';
import type { LoggedEvent } from './messages.ts';
import { type LoggedSpan, readSpan } from './span.ts';

/** Whether a record looks like an OpenInference span. */
export function isOpenInferenceRecord(v: unknown): boolean {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const r = v as Record<string, unknown>;
  return (
    field(r, 'context.trace_id') !== undefined ||
    'span_kind' in r ||
    'parent_id' in r ||
    (typeof r.attributes === 'object' && 'span_id' in r)
  );
}

/** A time as ISO 8601, or a number of ns, µs, ms or s since the epoch, in ms. */
export function timeMs(t: unknown): number | null {
  if (typeof t === 'string' && t !== '') {
    const ms = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(t) ? t : `${t}Z`);
    if (Number.isFinite(ms)) return ms;
    const n = Number(t);
    return Number.isFinite(n) ? timeMs(n) : null;
  }
  if (typeof t !== 'number' || !Number.isFinite(t)) return null;
  if (t > 1e17) return t / 1e6;
  if (t > 1e14) return t / 1e3;
  if (t > 1e11) return t;
  return t * 1000;
}

const idOf = (x: unknown): string | null =>
  typeof x === 'string' && x !== '' ? x.toLowerCase() : typeof x === 'number' ? String(x) : null;

/** The attributes of a span record, nested, flat, or as `attributes.*` columns. */
function attributesOf(r: Record<string, unknown>): Attributes {
  const attrs = nestedAttributes(r.attributes);
  for (const [k, v] of Object.entries(r))
    if (k.startsWith('attributes.') && v !== null && v !== undefined) attrs.set(k.slice(11), v);
  const kind = r.span_kind;
  if (typeof kind === 'string' && !attrs.has(SemanticConventions.OPENINFERENCE_SPAN_KIND))
    attrs.set(SemanticConventions.OPENINFERENCE_SPAN_KIND, kind);
  return attrs;
}

/** One OpenInference span record, read. */
export function openInferenceSpan(record: unknown): LoggedSpan {
  const r = record as Record<string, unknown>;
  const events: LoggedEvent[] = Array.isArray(r.events)
    ? (r.events as Record<string, unknown>[]).map((e) => ({
        name: String(e?.name ?? ''),
        attrs: nestedAttributes(e?.attributes),
      }))
    : [];
  return readSpan(
    attributesOf(r),
    events,
    {
      traceId: idOf(field(r, 'context.trace_id') ?? r.trace_id),
      spanId: idOf(field(r, 'context.span_id') ?? r.span_id),
      parentId: idOf(r.parent_id ?? r.parent_span_id),
      name: String(r.name ?? ''),
    },
    { startMs: timeMs(r.start_time), endMs: timeMs(r.end_time) },
  );
}
