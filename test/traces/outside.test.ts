/**
 * The trace import checked from outside (issue 56): spans written by code rge did not write. A small RAG
 * app traced with OpenInference's own packages: `@arizeai/openinference-core`'s `traceChain` (the root
 * span per question) and `traceRetriever` with `getRetrieverAttributes` (the documents), and
 * `@arizeai/openinference-instrumentation-openai` turning the real `openai` SDK's
 * `chat.completions.create`, sent to the strict OpenAI loopback fake, into the LLM span. The spans are
 * collected by the OpenTelemetry JS SDK, exported as OTLP JSON Lines and as OpenInference span JSON, and
 * imported; each case must hold what the app did.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getRetrieverAttributes, traceChain, traceRetriever } from '@arizeai/openinference-core';
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { SemanticConventions } from '@arizeai/openinference-semantic-conventions';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importTracesTo, readTraceCases, type TraceCase } from '../../src/traces/index.ts';
import { scratchDirs } from '../helpers/scratch.ts';
import { type LoopbackServer, startOpenAIServer } from '../loopback/index.ts';

const KEY = 'sk-outside-0123';
const MODEL = 'gpt-4.1-mini';
const scratch = scratchDirs('rge-outside-');

interface Passage {
  id: string;
  text: string;
  source: string;
}

/** The app's corpus and the questions it is asked. */
const PASSAGES: Passage[] = [
  { id: 'acme-12', text: 'Revenue from operations: Rs 1,234 crore.', source: 'acme-fy24.pdf' },
  { id: 'acme-13', text: 'Revenue grew 12% over FY23.', source: 'acme-fy24.pdf' },
  { id: 'acme-40', text: 'Other income: Rs 56 crore.', source: 'acme-fy24.pdf' },
  { id: 'hr-3', text: 'Employees at year end: 4,512.', source: 'acme-hr.pdf' },
];
const QUESTIONS = ['What was revenue from operations in FY24?', 'How many employees did the company have?'];

/** What the app did for one question, as it saw it. */
interface Served {
  traceId: string;
  question: string;
  answer: string;
  passages: Passage[];
  model: string;
  usage: { prompt_tokens: number; completion_tokens: number };
}

let server: LoopbackServer;
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'outside-rag' }),
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
const contextManager = new AsyncLocalStorageContextManager();
const instrumentation = new OpenAIInstrumentation({ tracerProvider: provider });

/** The fake model answers from the first passage in its prompt, citing its id. */
function reply(system: string): string {
  const m = /\[([a-z]+-\d+)\] ([^\n]+)/.exec(system);
  return m ? `${m[2]} [${m[1]}]` : 'I cannot tell from the passages.';
}

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
  instrumentation.manuallyInstrument(OpenAI);
  server = await startOpenAIServer({ apiKey: KEY, respond: (call) => ({ text: reply(call.system) }) });
});

afterAll(async () => {
  instrumentation.disable();
  trace.disable();
  context.disable();
  await provider.shutdown();
  await server?.close();
});

/** The passages the app's retriever finds for a question: those sharing a word of five letters or more. */
function search(question: string): Passage[] {
  const words = new Set(question.toLowerCase().match(/[a-z]{5,}/g) ?? []);
  return PASSAGES.filter((p) => (p.text.toLowerCase().match(/[a-z]{5,}/g) ?? []).some((w) => words.has(w)));
}

/**
 * How the app marks each question's root span: a CHAIN span (`traceChain`, its input and output
 * recorded by the library's defaults), the same given a second argument (as an app passing options
 * along with the question does), or a plain OpenTelemetry span with no OpenInference attributes.
 */
type RootSpan = 'chain' | 'chain of two arguments' | 'plain span';

/** The RAG app: a root span per question around a RETRIEVER span and the OpenAI call. */
async function serve(rootSpan: RootSpan = 'chain'): Promise<Served[]> {
  const client = new OpenAI({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
  const served: Served[] = [];
  const retrieve = traceRetriever(async (query: string) => search(query), {
    name: 'retrieve',
    processOutput: (passages: Passage[]) =>
      getRetrieverAttributes({
        documents: passages.map((p) => ({ id: p.id, content: p.text, metadata: { source: p.source } })),
      }),
  });
  const answerQuestion = async (question: string, _options?: { topK: number }) => {
    const passages = await retrieve(question);
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: 'system',
          content: `Answer from the passages only.\n${passages.map((p) => `[${p.id}] ${p.text}`).join('\n')}`,
        },
        { role: 'user', content: question },
      ],
    });
    const text = completion.choices[0]?.message.content ?? '';
    served.push({
      traceId: trace.getActiveSpan()?.spanContext().traceId ?? '',
      question,
      answer: text,
      passages,
      model: completion.model,
      usage: {
        prompt_tokens: completion.usage?.prompt_tokens ?? -1,
        completion_tokens: completion.usage?.completion_tokens ?? -1,
      },
    });
    return text;
  };
  const chain = traceChain(answerQuestion, { name: 'rag.answer' });
  const tracer = provider.getTracer('outside-rag');
  const plain = (question: string) =>
    tracer.startActiveSpan('rag.answer', async (span) => {
      try {
        return await answerQuestion(question);
      } finally {
        span.end();
      }
    });
  for (const q of QUESTIONS)
    await (rootSpan === 'chain' ? chain(q) : rootSpan === 'plain span' ? plain(q) : chain(q, { topK: 2 }));
  return served;
}

async function written(name: string, text: string): Promise<string> {
  const dir = scratch();
  await mkdir(dir, { recursive: true });
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

/** Spans as OTLP JSON Lines, one `ExportTraceServiceRequest` a line, as a collector's file exporter writes them. */
const otlpLines = (spans: ReadableSpan[]) =>
  `${new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))}\n`;

/** An SDK time to the millisecond, as a case's `started_at` has it. */
const iso = ([s, ns]: [number, number]) => new Date(s * 1000 + Math.floor(ns / 1e6)).toISOString();
/** An SDK time as Phoenix writes it: to the microsecond, with its offset. */
const phoenixTime = ([s, ns]: [number, number]) =>
  new Date(s * 1000)
    .toISOString()
    .replace('.000Z', `.${String(Math.floor(ns / 1e3)).padStart(6, '0')}+00:00`);

/** Flat attributes nested at their dots, a numeric part an array index, as Phoenix exports them. */
function nested(flat: Record<string, unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(flat)) {
    const parts = key.split('.');
    let node = root;
    for (const [i, part] of parts.entries()) {
      const next = parts[i + 1];
      if (next === undefined) {
        node[part] = value;
        break;
      }
      node[part] ??= /^\d+$/.test(next) ? [] : {};
      node = node[part] as Record<string, unknown>;
    }
  }
  return root;
}

/**
 * Spans as OpenInference span JSON Lines in Phoenix's shape (neither OpenInference package writes a
 * file; the shape is Phoenix's span export): the attributes flat, as the SDK holds them, or nested.
 */
const openInferenceLines = (spans: ReadableSpan[], nest: boolean) =>
  spans
    .map((s) =>
      JSON.stringify({
        name: s.name,
        context: { trace_id: s.spanContext().traceId, span_id: s.spanContext().spanId },
        parent_id: s.parentSpanContext?.spanId ?? null,
        span_kind: s.attributes[SemanticConventions.OPENINFERENCE_SPAN_KIND],
        start_time: phoenixTime(s.startTime),
        end_time: phoenixTime(s.endTime),
        status_code: s.status.code === 1 ? 'OK' : s.status.code === 2 ? 'ERROR' : 'UNSET',
        attributes: nest ? nested(s.attributes) : s.attributes,
        events: s.events.map((e) => ({
          name: e.name,
          timestamp: phoenixTime(e.time),
          attributes: e.attributes ?? {},
        })),
      }),
    )
    .join('\n');

async function casesOf(file: string): Promise<TraceCase[]> {
  const dir = scratch();
  const report = await importTracesTo(dir, [file]);
  expect(report.left_out).toEqual([]);
  const cases: TraceCase[] = [];
  for await (const c of readTraceCases(dir)) cases.push(c);
  return cases;
}

/** What a case must hold: what the app did for that question. */
const expected = (s: Served) => ({
  trace_id: s.traceId,
  question: s.question,
  answer: s.answer,
  contexts: s.passages.map((p) => ({ id: p.id, text: p.text, source: p.source })),
  model: s.model,
  usage: { input_tokens: s.usage.prompt_tokens, output_tokens: s.usage.completion_tokens },
});
const read = (c: TraceCase) => ({
  trace_id: c.trace_id,
  question: c.question,
  answer: c.answer.answer,
  contexts: c.answer.contexts,
  model: c.answer.model,
  usage: c.answer.usage,
});

describe('spans written by OpenInference instrumentation rge did not write', () => {
  it('the app served each question: the fake answered from the retrieved passages', async () => {
    exporter.reset();
    const served = await serve();
    expect(served.map((s) => s.passages.map((p) => p.id))).toEqual([['acme-12', 'acme-13'], ['hr-3']]);
    expect(served[0]?.answer).toBe('Revenue from operations: Rs 1,234 crore. [acme-12]');
    expect(served.every((s) => s.usage.prompt_tokens > 0 && s.usage.completion_tokens > 0)).toBe(true);
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual([
      'retrieve',
      'OpenAI Chat Completions',
      'rag.answer',
      'retrieve',
      'OpenAI Chat Completions',
      'rag.answer',
    ]);
  });

  for (const rootSpan of ['chain', 'chain of two arguments', 'plain span'] as const)
    for (const format of ['otlp', 'openinference', 'openinference-nested'] as const)
      it(`${format}: each case holds the question, answer, contexts, model and tokens (root: ${rootSpan})`, async () => {
        exporter.reset();
        const served = await serve(rootSpan);
        const spans = exporter.getFinishedSpans();
        const file =
          format === 'otlp'
            ? await written('spans.otlp.jsonl', otlpLines(spans))
            : await written('spans.oi.jsonl', openInferenceLines(spans, format === 'openinference-nested'));
        const cases = await casesOf(file);
        expect(cases.map(read)).toEqual(served.map(expected));
        const roots = spans.filter((s) => s.name === 'rag.answer');
        for (const [i, c] of cases.entries()) {
          const root = roots[i] as ReadableSpan;
          expect(c.origin.format).toBe(format === 'otlp' ? 'otlp' : 'openinference');
          expect(c.started_at).toBe(iso(root.startTime));
          // OTLP's nanoseconds give the duration to the nanosecond; an ISO time is read to the millisecond
          const ms = root.duration[0] * 1000 + root.duration[1] / 1e6;
          if (format === 'otlp') expect(c.answer.latency_ms).toBeCloseTo(ms, 3);
          else expect(Math.abs((c.answer.latency_ms as number) - ms)).toBeLessThan(1);
          expect(c.fields).toEqual({
            ...(format === 'otlp' ? { 'service.name': 'outside-rag' } : {}),
            day: iso(root.startTime).slice(0, 10),
          });
        }
      });
});
