/**
 * One RAG application's logged traffic written three ways, for the trace import's tests (issue 56):
 * - OTLP JSON Lines as an OpenTelemetry collector's file exporter writes them, made by the real
 *   OpenTelemetry JS SDK (`@opentelemetry/sdk-trace-base`, an in-memory exporter) and serialised with
 *   `@opentelemetry/otlp-transformer`'s JSON serializer: GenAI attributes in their current form
 *   (`gen_ai.input.messages`, ...) or their older event form (`gen_ai.user.message`, `gen_ai.choice`);
 * - OpenInference spans as Phoenix exports them (JSON Lines; flat or nested attributes);
 * - JSON Lines in rge's system contract shape.
 * Each turn is a trace: a root CHAIN span, a retriever span with documents, an LLM span.
 */
import { context, trace } from '@opentelemetry/api';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  type IdGenerator,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

export interface LoggedDocument {
  id: string;
  text: string;
  score: number;
  source: string;
  page: number;
}

/** One user's question as the application served it. */
export interface LoggedTurn {
  traceId: string;
  question: string;
  answer: string;
  documents: LoggedDocument[];
  model: string;
  inputTokens: number;
  outputTokens: number;
  /** when the root span started (ms since the epoch) and how long it took */
  startMs: number;
  latencyMs: number;
  /** 'current': gen_ai.*.messages attributes on root and LLM spans; 'events': the older event form, no root input */
  form: 'current' | 'events';
  /** string attributes of the root span (route, tenant, a logged header) */
  fields: Record<string, string>;
}

const DAY = Date.UTC(2025, 5, 2, 9, 0, 0);

export const TRAFFIC: LoggedTurn[] = [
  {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    question: 'What was revenue from operations in FY24?',
    answer: 'Revenue from operations was Rs 1,234 crore [acme-12].',
    documents: [
      {
        id: 'acme-12',
        text: 'Revenue from operations: Rs 1,234 crore.',
        score: 0.82,
        source: 'acme-fy24.pdf',
        page: 12,
      },
      { id: 'acme-40', text: 'Other income: Rs 56 crore.', score: 0.61, source: 'acme-fy24.pdf', page: 40 },
    ],
    model: 'gpt-5-mini-2025-08-07',
    inputTokens: 1830,
    outputTokens: 42,
    startMs: DAY,
    latencyMs: 812,
    form: 'current',
    fields: { route: 'faq', tenant: 'acme' },
  },
  {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    question: 'How many employees did the company have?',
    answer: 'It had 4,512 employees [hr-3].',
    documents: [
      { id: 'hr-3', text: 'Employees at year end: 4,512.', score: 0.77, source: 'acme-fy24.pdf', page: 88 },
    ],
    model: 'claude-sonnet-4-6',
    inputTokens: 950,
    outputTokens: 18,
    startMs: DAY + 60_000,
    latencyMs: 640,
    form: 'events',
    fields: { route: 'hr', tenant: 'acme' },
  },
  {
    traceId: 'b7ad6b7169203331a2c1d3e4f5a6b7c8',
    question: 'Summarise the dividend policy; my key is sk-proj-abcdefghijklmnopqrstuvwxyz012345',
    answer: 'The board recommends a dividend of Rs 5 per share [div-1].',
    documents: [
      {
        id: 'div-1',
        text: 'A dividend of Rs 5 per share is recommended.',
        score: 0.9,
        source: 'acme-fy24.pdf',
        page: 7,
      },
    ],
    model: 'gpt-5-mini-2025-08-07',
    inputTokens: 700,
    outputTokens: 20,
    startMs: DAY + 86_400_000,
    latencyMs: 1500,
    form: 'current',
    fields: {
      route: 'faq',
      tenant: 'globex',
      'http.request.header.authorization': 'Bearer eyJhbGciOiJIUzI1NiJ9.secret',
    },
  },
];

const userMessages = (q: string) =>
  JSON.stringify([
    { role: 'system', parts: [{ type: 'text', content: 'Answer from the passages only.' }] },
    { role: 'user', parts: [{ type: 'text', content: q }] },
  ]);
const assistantMessages = (a: string) =>
  JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: a }], finish_reason: 'stop' }]);

/** Ids the SDK hands out: the turns' trace ids in order, and span ids counting up. */
function fixedIds(turns: readonly LoggedTurn[]): IdGenerator {
  let t = 0;
  let s = 0;
  return {
    generateTraceId: () => (turns[t++] as LoggedTurn).traceId,
    generateSpanId: () => (++s).toString(16).padStart(16, '0'),
  };
}

/** The turns' spans through the OpenTelemetry JS SDK, as OTLP JSON Lines (`lines` requests, spans split across them). */
export async function otlpJsonLines(turns: readonly LoggedTurn[], lines = 2): Promise<string> {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    // a service name of its own: the SDK's default names the node executable's path, which differs by machine
    resource: resourceFromAttributes({ 'service.name': 'rag-app' }),
    idGenerator: fixedIds(turns),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('rag-app', '1.0.0');
  for (const turn of turns) {
    const t0 = turn.startMs;
    const root = tracer.startSpan('rag.answer', {
      startTime: t0,
      attributes: {
        'gen_ai.operation.name': 'invoke_workflow',
        ...turn.fields,
        ...(turn.form === 'current'
          ? {
              'gen_ai.input.messages': userMessages(turn.question),
              'gen_ai.output.messages': assistantMessages(turn.answer),
            }
          : {}),
      },
    });
    const ctx = trace.setSpan(context.active(), root);
    const retriever = tracer.startSpan(
      'retrieve',
      {
        startTime: t0 + 5,
        attributes: {
          'gen_ai.operation.name': 'retrieval',
          'gen_ai.retrieval.query.text': turn.question,
          'gen_ai.retrieval.documents': JSON.stringify(
            turn.documents.map((d) => ({
              id: d.id,
              score: d.score,
              content: d.text,
              metadata: { source: d.source, page: d.page },
            })),
          ),
        },
      },
      ctx,
    );
    retriever.end(t0 + 40);
    const llm = tracer.startSpan(
      `chat ${turn.model}`,
      {
        startTime: t0 + 50,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': turn.model.replace(/-\d{4}-\d\d-\d\d$/, ''),
          'gen_ai.response.model': turn.model,
          'gen_ai.usage.input_tokens': turn.inputTokens,
          'gen_ai.usage.output_tokens': turn.outputTokens,
          ...(turn.form === 'current'
            ? {
                'gen_ai.input.messages': userMessages(turn.question),
                'gen_ai.output.messages': assistantMessages(turn.answer),
              }
            : {}),
        },
      },
      ctx,
    );
    if (turn.form === 'events') {
      llm.addEvent('gen_ai.system.message', { content: 'Answer from the passages only.' }, t0 + 51);
      llm.addEvent('gen_ai.user.message', { content: turn.question }, t0 + 51);
      llm.addEvent(
        'gen_ai.choice',
        { index: 0, finish_reason: 'stop', message: JSON.stringify({ content: turn.answer }) },
        t0 + 60,
      );
    }
    llm.end(t0 + turn.latencyMs - 10);
    root.end(t0 + turn.latencyMs);
  }
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  const per = Math.ceil(spans.length / lines);
  const out: string[] = [];
  for (let i = 0; i < spans.length; i += per)
    out.push(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans.slice(i, i + per))));
  await provider.shutdown();
  return `${out.join('\n')}\n`;
}

const iso = (ms: number) => new Date(ms).toISOString();
const spanId = (traceIndex: number, k: number) => `${(traceIndex * 3 + k).toString(16).padStart(16, '0')}`;

/** The turns as OpenInference spans (Phoenix-like JSON Lines); `nested` writes the attributes nested. */
export function openInferenceJsonLines(turns: readonly LoggedTurn[], nested = false): string {
  const lines: object[] = [];
  for (const [i, turn] of turns.entries()) {
    const t0 = turn.startMs;
    const ids = (k: number) => ({ trace_id: turn.traceId, span_id: spanId(i, k) });
    lines.push({
      name: 'rag.answer',
      context: ids(1),
      parent_id: null,
      span_kind: 'CHAIN',
      start_time: iso(t0),
      end_time: iso(t0 + turn.latencyMs),
      attributes: {
        'openinference.span.kind': 'CHAIN',
        ...(turn.form === 'current' ? { 'input.value': turn.question, 'output.value': turn.answer } : {}),
        metadata: JSON.stringify(turn.fields),
      },
    });
    const documents = turn.documents.map((d) => ({
      document: {
        id: d.id,
        content: d.text,
        score: d.score,
        metadata: JSON.stringify({ source: d.source, page: d.page }),
      },
    }));
    lines.push({
      name: 'retrieve',
      context: ids(2),
      parent_id: spanId(i, 1),
      span_kind: 'RETRIEVER',
      start_time: iso(t0 + 5),
      end_time: iso(t0 + 40),
      attributes: nested
        ? {
            openinference: { span: { kind: 'RETRIEVER' } },
            input: { value: turn.question },
            retrieval: { documents },
          }
        : Object.fromEntries([
            ['openinference.span.kind', 'RETRIEVER'],
            ['input.value', turn.question],
            ...documents.flatMap((d, k) =>
              Object.entries(d.document).map(([key, v]) => [`retrieval.documents.${k}.document.${key}`, v]),
            ),
          ]),
    });
    lines.push({
      name: `chat ${turn.model}`,
      context: ids(3),
      parent_id: spanId(i, 1),
      span_kind: 'LLM',
      start_time: iso(t0 + 50),
      end_time: iso(t0 + turn.latencyMs - 10),
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.model_name': turn.model,
        'llm.token_count.prompt': turn.inputTokens,
        'llm.token_count.completion': turn.outputTokens,
        'llm.token_count.total': turn.inputTokens + turn.outputTokens,
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.0.message.content': 'Answer from the passages only.',
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.content': turn.question,
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': turn.answer,
      },
    });
  }
  return `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`;
}

/** The turns as JSON Lines in the system contract shape. */
export function contractJsonLines(turns: readonly LoggedTurn[]): string {
  return `${turns
    .map((turn) =>
      JSON.stringify({
        trace_id: turn.traceId,
        question: turn.question,
        answer: turn.answer,
        contexts: turn.documents.map((d) => ({
          id: d.id,
          text: d.text,
          source: d.source,
          page: d.page,
          score: d.score,
        })),
        usage: { input_tokens: turn.inputTokens, output_tokens: turn.outputTokens },
        model: turn.model,
        latency_ms: turn.latencyMs,
        started_at: iso(turn.startMs),
        metadata: turn.fields,
      }),
    )
    .join('\n')}\n`;
}
