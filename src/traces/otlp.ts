/**
 * OTLP JSON as an OpenTelemetry collector's file exporter writes it: JSON Lines, each line an
 * `ExportTraceServiceRequest` (`{resourceSpans: [{resource, scopeSpans: [{scope, spans: [...]}]}]}`),
 * each span with `traceId`, `spanId`, `parentSpanId`, `name`, `startTimeUnixNano`, `endTimeUnixNano`,
 * `attributes` and `events`. Ids are hex (base64 ids, as a protobuf JSON encoder writes them, are turned
 * into hex). A resource's `service.name` is a field of its root spans.
 */
import { type Attributes, otlpAttributes, stringAt } from './attributes.ts';
import type { LoggedEvent } from './messages.ts';
import { type LoggedSpan, readSpan } from './span.ts';

/** Whether a record is an OTLP request. */
export const isOtlpRecord = (v: unknown): boolean =>
  v !== null && typeof v === 'object' && Array.isArray((v as { resourceSpans?: unknown }).resourceSpans);

const HEX = /^[0-9a-fA-F]+$/;

/** An OTLP id as lower-case hex; null when absent, empty or all zeros (the invalid id). */
export function otlpId(id: unknown): string | null {
  if (typeof id !== 'string' || id === '') return null;
  const hex = HEX.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
  return /^0*$/.test(hex) ? null : hex;
}

/** Whole nanoseconds as milliseconds, split so that the millisecond survives (a 19-digit count is past 2^53). */
const bigNanosToMs = (n: bigint): number => Number(n / 1_000_000n) + Number(n % 1_000_000n) / 1e6;

/** Nanoseconds since the epoch (a decimal string, a number, or protobuf's {low, high}) as milliseconds. */
export function nanosToMs(t: unknown): number | null {
  if (typeof t === 'string' && /^\d+$/.test(t)) return bigNanosToMs(BigInt(t));
  if (typeof t === 'string' && t !== '') return Number(t) / 1e6;
  if (typeof t === 'number') return t / 1e6;
  if (t !== null && typeof t === 'object' && 'low' in t && 'high' in t) {
    const { low, high } = t as { low: number; high: number };
    return bigNanosToMs((BigInt(high >>> 0) << 32n) | BigInt(low >>> 0));
  }
  return null;
}

/** A schema URL of a major version rge does not read (the GenAI conventions it reads are 1.x). */
function schemaProblemOf(url: unknown): string | null {
  if (typeof url !== 'string' || url === '') return null;
  const m = /\/schemas\/(\d+)\.\d+/.exec(url);
  if (!m) return `schemaUrl ${url} is not an OpenTelemetry schema URL`;
  return m[1] === '1' ? null : `schemaUrl ${url}: rge reads the 1.x semantic conventions`;
}

interface OtlpSpan {
  traceId?: unknown;
  spanId?: unknown;
  parentSpanId?: unknown;
  name?: unknown;
  startTimeUnixNano?: unknown;
  endTimeUnixNano?: unknown;
  attributes?: unknown;
  events?: { name?: unknown; attributes?: unknown }[];
}

function spanOf(s: OtlpSpan, service: string | null, schemaProblem: string | null): LoggedSpan {
  const attrs: Attributes = otlpAttributes(s.attributes);
  const parentId = otlpId(s.parentSpanId);
  if (parentId === null && service !== null && !attrs.has('service.name')) attrs.set('service.name', service);
  const events: LoggedEvent[] = Array.isArray(s.events)
    ? s.events.map((e) => ({ name: String(e?.name ?? ''), attrs: otlpAttributes(e?.attributes) }))
    : [];
  const span = readSpan(
    attrs,
    events,
    { traceId: otlpId(s.traceId), spanId: otlpId(s.spanId), parentId, name: String(s.name ?? '') },
    { startMs: nanosToMs(s.startTimeUnixNano), endMs: nanosToMs(s.endTimeUnixNano) },
  );
  if (schemaProblem && !span.schemaProblem) span.schemaProblem = schemaProblem;
  return span;
}

/** The spans of one OTLP request. */
export function otlpSpans(record: unknown): LoggedSpan[] {
  const out: LoggedSpan[] = [];
  const resourceSpans = (record as { resourceSpans: unknown[] }).resourceSpans;
  for (const rs of resourceSpans as {
    resource?: { attributes?: unknown };
    schemaUrl?: unknown;
    scopeSpans?: unknown;
    instrumentationLibrarySpans?: unknown;
  }[]) {
    if (rs === null || typeof rs !== 'object') continue;
    const service = stringAt(otlpAttributes(rs.resource?.attributes), 'service.name');
    const scopes = (rs.scopeSpans ?? rs.instrumentationLibrarySpans ?? []) as {
      schemaUrl?: unknown;
      spans?: unknown;
    }[];
    if (!Array.isArray(scopes)) continue;
    for (const ss of scopes) {
      if (!ss || !Array.isArray(ss.spans)) continue;
      const schemaProblem = schemaProblemOf(ss.schemaUrl) ?? schemaProblemOf(rs.schemaUrl);
      for (const s of ss.spans as OtlpSpan[])
        if (s !== null && typeof s === 'object') out.push(spanOf(s, service, schemaProblem));
    }
  }
  return out;
}
