/**
 * Spans grouped into traces, in bounded memory: the spans of a trace may come in any order and from any
 * file, so each trace is held as a small summary (its root span's input, output, times and fields; the
 * first LLM span's user message; the last LLM span's output and model; the retrievers' documents; token
 * and cost sums), never as its raw spans. `cases()` turns each summary into a `TraceCase` or says what
 * it lacks (`TRACE_PROBLEMS`), never guessing.
 */
import type { SystemContext } from '../system/contract.ts';
import type { TraceCase, TraceImportReport, TraceOrigin } from './case.ts';
import { isSecretName, redactLogged } from './redact.ts';
import { isContentKey, type LoggedSpan, metadataFields } from './span.ts';

type LeftOut = TraceImportReport['left_out'][number];

/** Where a span was read: its file, format and line. */
export type SpanOrigin = TraceOrigin;

/** One trace, as much of it as a case needs. */
interface TraceSummary {
  traceId: string;
  origin: SpanOrigin;
  spans: number;
  root: LoggedSpan | null;
  firstLlm: { startMs: number; question: string | null } | null;
  lastLlm: { endMs: number; answer: string | null; model: string | null } | null;
  retrievers: number;
  textless: number;
  retrieved: { startMs: number; documents: SystemContext[] }[];
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
  earliestMs: number | null;
  schemaProblem: string | null;
  /** the root span's fields (`rootFields`) */
  fields: Record<string, string>;
}

const add = (a: number | null, b: number | null) => (b === null ? a : (a ?? 0) + b);
const minOf = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));

/** Longest value of a field kept (a longer string attribute is content, not a stratum). */
const FIELD_MAX = 200;

export class TraceGroups {
  private readonly traces = new Map<string, TraceSummary>();
  /** spans read */
  spans = 0;

  /** `leftOut` receives the spans left out for want of a trace id, as they are read. */
  constructor(private readonly leftOut: LeftOut[]) {}

  /** Adds one span to its trace's summary (a span with no trace id is left out, named). */
  add(span: LoggedSpan, origin: SpanOrigin): void {
    this.spans++;
    if (!span.traceId) {
      this.leftOut.push({
        trace_id: null,
        problem: 'no-trace-id',
        message: `span ${span.spanId ?? '(no span id)'} "${span.name}" has no trace id`,
        file: origin.file,
        line: origin.line,
      });
      return;
    }
    let t = this.traces.get(span.traceId);
    if (!t) {
      t = {
        traceId: span.traceId,
        origin,
        spans: 0,
        root: null,
        firstLlm: null,
        lastLlm: null,
        retrievers: 0,
        textless: 0,
        retrieved: [],
        inputTokens: null,
        outputTokens: null,
        costUsd: null,
        earliestMs: null,
        schemaProblem: null,
        fields: {},
      };
      this.traces.set(span.traceId, t);
    }
    summarise(t, span);
  }

  /** How many traces have been seen. */
  get size(): number {
    return this.traces.size;
  }

  /** Each trace as a case, or a left-out entry saying what it lacks; in the order traces were first seen. */
  *cases(): Generator<{ case: TraceCase } | { leftOut: LeftOut }> {
    for (const t of this.traces.values()) yield caseOf(t);
  }
}

function summarise(t: TraceSummary, span: LoggedSpan): void {
  t.spans++;
  t.earliestMs = minOf(t.earliestMs, span.startMs);
  if (span.schemaProblem && !t.schemaProblem)
    t.schemaProblem = `span ${span.spanId ?? span.name}: ${span.schemaProblem}`;
  if (span.parentId === null && (t.root === null || (span.startMs ?? 0) < (t.root.startMs ?? 0))) {
    // the root keeps what the case reads of it: its fields now, not its attributes
    t.fields = rootFields(span);
    t.root = { ...span, attrs: new Map(), documents: null };
  }
  if (span.role === 'llm') {
    const start = span.startMs ?? Number.POSITIVE_INFINITY;
    const end = span.endMs ?? Number.NEGATIVE_INFINITY;
    const question = span.userMessage;
    if (question !== null && (t.firstLlm === null || start < t.firstLlm.startMs))
      t.firstLlm = { startMs: start, question };
    const answer = span.outputMessage ?? span.output ?? span.outputJson;
    if (answer !== null && (t.lastLlm === null || end >= t.lastLlm.endMs))
      t.lastLlm = { endMs: end, answer, model: span.model };
    t.inputTokens = add(t.inputTokens, span.inputTokens);
    t.outputTokens = add(t.outputTokens, span.outputTokens);
    t.costUsd = add(t.costUsd, span.costUsd);
  }
  if (span.role === 'retriever') {
    t.retrievers++;
    t.textless += span.textless;
    if (span.documents) t.retrieved.push({ startMs: span.startMs ?? 0, documents: span.documents });
  }
}

/** The contexts the retrievers returned, in the order they ran; a repeated id is kept once. */
function contextsOf(t: TraceSummary): SystemContext[] {
  const out: SystemContext[] = [];
  const seen = new Map<string, string>();
  for (const r of [...t.retrieved].sort((a, b) => a.startMs - b.startMs))
    for (const d of r.documents) {
      const text = redactLogged(d.text);
      const before = seen.get(d.id);
      if (before === text) continue;
      const id = before === undefined ? d.id : `${d.id}#${out.length + 1}`;
      seen.set(id, text);
      out.push({ ...d, id, text, ...(d.source ? { source: redactLogged(d.source) } : {}) });
    }
  return out;
}

/** The root span's string attributes (and OpenInference metadata) a sample can be stratified by. */
function rootFields(root: LoggedSpan): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [k, v] of root.attrs) {
    if (isContentKey(k) || k === 'metadata' || k.startsWith('metadata.')) continue;
    if (typeof v === 'string' && v.length <= FIELD_MAX)
      fields[k] = isSecretName(k) ? '[redacted]' : redactLogged(v);
  }
  for (const [k, v] of metadataFields(root.attrs))
    if (v.length <= FIELD_MAX) fields[k] = isSecretName(k) ? '[redacted]' : redactLogged(v);
  return fields;
}

function caseOf(t: TraceSummary): { case: TraceCase } | { leftOut: LeftOut } {
  const left = (problem: LeftOut['problem'], message: string) => ({
    leftOut: { trace_id: t.traceId, problem, message, file: t.origin.file, line: t.origin.line },
  });
  const root = t.root;
  if (root === null)
    return left(
      'unreadable',
      `incomplete: no root span among its ${t.spans} span(s) (in a file cut short, or in a file not given)`,
    );
  // a root input or output that is JSON with no question or answer field in it (a traced function's
  // arguments as a JSON array) is the last resort: the LLM spans' messages say it better
  const question = root.input ?? root.userMessage ?? t.firstLlm?.question ?? root.inputJson;
  const answer = root.output ?? root.outputMessage ?? t.lastLlm?.answer ?? root.outputJson;
  const spans = `${t.spans} span${t.spans === 1 ? '' : 's'}`;
  if (question === null || question.trim() === '')
    return t.schemaProblem
      ? left('unknown-schema', `no question read (${spans}); ${t.schemaProblem}`)
      : left('no-question', `no question: no root span input and no LLM span with a user message (${spans})`);
  if (answer === null)
    return t.schemaProblem
      ? left('unknown-schema', `no answer read (${spans}); ${t.schemaProblem}`)
      : left('no-answer', `no final answer: no root span output and no LLM span output (${spans})`);
  if (t.retrievers === 0) return left('no-retrieval', `no retriever span (${spans})`);
  if (t.retrieved.length === 0)
    return left(
      'no-retrieval',
      t.textless > 0
        ? `the retriever spans logged ${t.textless} document(s) without their text`
        : t.schemaProblem
          ? `the retriever spans' documents were not read: ${t.schemaProblem}`
          : `the ${t.retrievers} retriever span(s) logged no documents`,
    );
  const startMs = root.startMs ?? t.earliestMs;
  const startedAt = startMs === null ? null : new Date(startMs).toISOString();
  const model = t.lastLlm?.model ?? root.model ?? null;
  const latency = root.startMs !== null && root.endMs !== null ? root.endMs - root.startMs : null;
  return {
    case: {
      trace_id: t.traceId,
      question: redactLogged(question),
      answer: {
        answer: redactLogged(answer),
        contexts: contextsOf(t),
        ...(t.inputTokens !== null && t.outputTokens !== null
          ? { usage: { input_tokens: Math.round(t.inputTokens), output_tokens: Math.round(t.outputTokens) } }
          : {}),
        ...(t.costUsd !== null && t.costUsd >= 0 ? { cost_usd: t.costUsd } : {}),
        ...(latency !== null && latency >= 0 ? { latency_ms: latency } : {}),
        ...(model ? { model } : {}),
      },
      started_at: startedAt,
      fields: startedAt ? { ...t.fields, day: startedAt.slice(0, 10) } : t.fields,
      origin: t.origin,
    },
  };
}
