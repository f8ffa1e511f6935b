/**
 * The trace import (issue 56): OTLP JSON written by the OpenTelemetry JS SDK, OpenInference spans and
 * contract JSON Lines of the same traffic reach the same cases; every bad input is named with its file
 * and line or trace id, and the rest imported; nothing half-written is a case.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  importTraces,
  importTracesTo,
  readTraceCases,
  readTraceImportReport,
  type TraceCase,
  type TraceImportReport,
} from '../../src/traces/index.ts';
import { runRge } from '../helpers/cli.ts';
import { scratchDirs } from '../helpers/scratch.ts';
import { contractJsonLines, openInferenceJsonLines, otlpJsonLines, TRAFFIC } from '../helpers/traffic.ts';

const scratch = scratchDirs('rge-traces-');

async function written(name: string, text: string): Promise<string> {
  const dir = scratch();
  await mkdir(dir, { recursive: true });
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

async function imported(files: string[]): Promise<{ cases: TraceCase[]; report: TraceImportReport }> {
  const it = importTraces(files);
  const cases: TraceCase[] = [];
  for (;;) {
    const next = await it.next();
    if (next.done) return { cases, report: next.value };
    cases.push(next.value);
  }
}

/** What the three forms must agree on. */
const essence = (c: TraceCase) => ({
  trace_id: c.trace_id,
  question: c.question,
  answer: c.answer.answer,
  contexts: c.answer.contexts.map((x) => ({ id: x.id, text: x.text, source: x.source, page: x.page })),
  model: c.answer.model,
  usage: c.answer.usage,
  latency_ms: c.answer.latency_ms,
  started_at: c.started_at,
  route: c.fields.route,
  day: c.fields.day,
});

describe('the same traffic in three forms', () => {
  it('OTLP from the OpenTelemetry JS SDK, OpenInference (flat and nested) and contract lines give the same cases', async () => {
    const otlp = await imported([await written('otlp.jsonl', await otlpJsonLines(TRAFFIC))]);
    const flat = await imported([await written('oi.jsonl', openInferenceJsonLines(TRAFFIC))]);
    const nested = await imported([await written('oi-nested.jsonl', openInferenceJsonLines(TRAFFIC, true))]);
    const contract = await imported([await written('c.jsonl', contractJsonLines(TRAFFIC))]);
    for (const r of [otlp, flat, nested, contract]) {
      expect(r.report.left_out).toEqual([]);
      expect(r.cases).toHaveLength(TRAFFIC.length);
    }
    const sorted = (cs: TraceCase[]) => cs.map(essence).sort((a, b) => a.trace_id.localeCompare(b.trace_id));
    expect(sorted(flat.cases)).toEqual(sorted(otlp.cases));
    expect(sorted(nested.cases)).toEqual(sorted(otlp.cases));
    expect(sorted(contract.cases)).toEqual(sorted(otlp.cases));
    const first = otlp.cases.find((c) => c.trace_id === TRAFFIC[0]?.traceId) as TraceCase;
    expect(essence(first)).toMatchObject({
      question: 'What was revenue from operations in FY24?',
      answer: 'Revenue from operations was Rs 1,234 crore [acme-12].',
      contexts: [
        {
          id: 'acme-12',
          text: 'Revenue from operations: Rs 1,234 crore.',
          source: 'acme-fy24.pdf',
          page: 12,
        },
        { id: 'acme-40', text: 'Other income: Rs 56 crore.', source: 'acme-fy24.pdf', page: 40 },
      ],
      model: 'gpt-5-mini-2025-08-07',
      usage: { input_tokens: 1830, output_tokens: 42 },
      latency_ms: 812,
      started_at: '2025-06-02T09:00:00.000Z',
    });
    expect(otlp.report).toMatchObject({ spans: 9, traces: 3, cases: 3 });
    expect(otlp.report.files[0]).toMatchObject({ format: 'otlp', spans: 9, lines: 2 });
  });

  it('reads the older GenAI event form: the question from gen_ai.user.message, the answer from gen_ai.choice', async () => {
    const { cases } = await imported([await written('otlp.jsonl', await otlpJsonLines(TRAFFIC))]);
    const events = cases.find((c) => c.trace_id === TRAFFIC[1]?.traceId) as TraceCase;
    expect(events.question).toBe('How many employees did the company have?');
    expect(events.answer.answer).toBe('It had 4,512 employees [hr-3].');
  });

  it('redacts keys and tokens in what it keeps: the question, a logged Authorization header', async () => {
    const { cases } = await imported([await written('otlp.jsonl', await otlpJsonLines(TRAFFIC))]);
    const text = JSON.stringify(cases);
    expect(text).not.toContain('sk-proj-abcdefghijklmnop');
    expect(text).not.toContain('eyJhbGciOiJIUzI1NiJ9');
    const secret = cases.find((c) => c.trace_id === TRAFFIC[2]?.traceId) as TraceCase;
    expect(secret.question).toBe('Summarise the dividend policy; my key is [redacted]');
    expect(secret.fields['http.request.header.authorization']).toBe('[redacted]');
    expect(secret.fields).toMatchObject({ route: 'faq', tenant: 'globex', day: '2025-06-03' });
  });

  it('one trace split across files is one case', async () => {
    const lines = (await otlpJsonLines(TRAFFIC, 3)).trim().split('\n');
    const a = await written('a.jsonl', `${lines[0]}\n`);
    const b = await written('b.jsonl', `${lines.slice(1).join('\n')}\n`);
    const { cases, report } = await imported([a, b]);
    expect(cases).toHaveLength(3);
    expect(report.left_out).toEqual([]);
    expect(report.files.map((f) => f.spans)).toEqual([3, 6]);
  });

  it('reads an OpenInference JSON array (not JSON Lines) element by element, and a {data: [...]} wrapper', async () => {
    const spans = openInferenceJsonLines(TRAFFIC).trim().split('\n');
    const array = await written('oi.json', `[\n  ${spans.join(',\n  ')}\n]\n`);
    const wrapped = await written('oi-data.json', `{\n"data": [\n${spans.join(',\n')}\n]\n}\n`);
    expect((await imported([array])).cases).toHaveLength(3);
    expect((await imported([wrapped])).cases).toHaveLength(3);
  });

  it("a root span's input and output that are a traced function's arguments and result as JSON with no question or answer field: the LLM span's messages say them", async () => {
    // openinference-core's traceChain records a call of two arguments as a JSON array of them
    const span = (id: string, parent: string | null, attributes: Record<string, unknown>) =>
      JSON.stringify({
        name: id,
        context: { trace_id: 'abc123', span_id: id },
        parent_id: parent,
        start_time: '2025-06-02T09:00:00Z',
        end_time: '2025-06-02T09:00:01Z',
        attributes,
      });
    const file = await written(
      'oi-args.jsonl',
      [
        span('root', null, {
          'openinference.span.kind': 'CHAIN',
          'input.value': '["What was revenue?",{"topK":2}]',
          'input.mime_type': 'application/json',
          'output.value': '[{"reply":"Rs 1,234 crore [d1]."},["d1"]]',
          'output.mime_type': 'application/json',
        }),
        span('ret', 'root', {
          'openinference.span.kind': 'RETRIEVER',
          'retrieval.documents.0.document.id': 'd1',
          'retrieval.documents.0.document.content': 'Revenue: Rs 1,234 crore.',
        }),
        span('llm', 'root', {
          'openinference.span.kind': 'LLM',
          'input.value': '{"model":"m","messages":[{"role":"user","content":"What was revenue?"}]}',
          'input.mime_type': 'application/json',
          'llm.input_messages.0.message.role': 'user',
          'llm.input_messages.0.message.content': 'What was revenue?',
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.content': 'Rs 1,234 crore [d1].',
        }),
      ].join('\n'),
    );
    const { cases } = await imported([file]);
    expect(cases.map((c) => [c.question, c.answer.answer])).toEqual([
      ['What was revenue?', 'Rs 1,234 crore [d1].'],
    ]);
  });

  it('a root input that is JSON with no question field and no LLM message to say better is kept as logged', async () => {
    const file = await written(
      'oi-json-only.jsonl',
      [
        JSON.stringify({
          name: 'root',
          context: { trace_id: 'abc124', span_id: 'root' },
          parent_id: null,
          attributes: {
            'openinference.span.kind': 'CHAIN',
            'input.value': '["What was revenue?",{"topK":2}]',
            'input.mime_type': 'application/json',
            'output.value': 'Rs 1,234 crore [d1].',
          },
        }),
        JSON.stringify({
          name: 'ret',
          context: { trace_id: 'abc124', span_id: 'ret' },
          parent_id: 'root',
          attributes: {
            'openinference.span.kind': 'RETRIEVER',
            'retrieval.documents.0.document.id': 'd1',
            'retrieval.documents.0.document.content': 'Revenue: Rs 1,234 crore.',
          },
        }),
      ].join('\n'),
    );
    const { cases } = await imported([file]);
    expect(cases.map((c) => c.question)).toEqual(['["What was revenue?",{"topK":2}]']);
  });
});

/** An OTLP line of one span. */
function otlpLine(span: Record<string, unknown>): string {
  return JSON.stringify({
    resourceSpans: [{ resource: {}, scopeSpans: [{ scope: { name: 't' }, spans: [span] }] }],
  });
}
const attr = (key: string, v: string | number) => ({
  key,
  value: typeof v === 'string' ? { stringValue: v } : { intValue: String(v) },
});

describe('bad input: named, the rest imported', () => {
  it('a file cut short: its last line is named unreadable, the traces read before it are imported', async () => {
    // two lines: the first holds trace 1 and two spans of trace 2; the second, cut, the rest
    const text = await otlpJsonLines(TRAFFIC, 2);
    const file = await written('cut.jsonl', text.slice(0, text.length - 200));
    const { cases, report } = await imported([file]);
    expect(cases.map((c) => c.trace_id)).toEqual([TRAFFIC[0]?.traceId]);
    expect(report.left_out).toEqual([
      {
        trace_id: null,
        problem: 'unreadable',
        message: expect.stringMatching(/^not JSON \(.*\); the file's last line: cut short\?$/),
        file,
        line: 2,
      },
      {
        trace_id: TRAFFIC[1]?.traceId,
        problem: 'unreadable',
        message: 'incomplete: no root span among its 2 span(s) (in a file cut short, or in a file not given)',
        file,
        line: 1,
      },
    ]);
  });

  it('a span without a trace id is left out naming the span; a trace without an answer, without a retriever, without a question', async () => {
    const t = (n: number) => `${n}`.repeat(32);
    const root = (n: number, extra: object[]) => ({
      traceId: t(n),
      spanId: `${n}`.repeat(16),
      name: 'rag',
      startTimeUnixNano: '1748854800000000000',
      endTimeUnixNano: '1748854801000000000',
      attributes: [attr('openinference.span.kind', 'CHAIN'), ...extra],
    });
    const retriever = (n: number) => ({
      traceId: t(n),
      spanId: `a${n}`.repeat(8),
      parentSpanId: `${n}`.repeat(16),
      name: 'retrieve',
      attributes: [
        attr('openinference.span.kind', 'RETRIEVER'),
        attr('retrieval.documents.0.document.id', 'd1'),
        attr('retrieval.documents.0.document.content', 'A passage.'),
      ],
    });
    const lines = [
      otlpLine({ ...root(1, [attr('input.value', 'Q?'), attr('output.value', 'A.')]), traceId: '' }),
      otlpLine(root(2, [attr('input.value', 'Q?')])),
      otlpLine(retriever(2)),
      otlpLine(root(3, [attr('input.value', 'Q?'), attr('output.value', 'A.')])),
      otlpLine(root(4, [attr('output.value', 'A.')])),
      otlpLine(retriever(4)),
      otlpLine(root(5, [attr('input.value', 'Q?'), attr('output.value', 'A [d1].')])),
      otlpLine(retriever(5)),
    ];
    const file = await written('bad.jsonl', `${lines.join('\n')}\n`);
    const { cases, report } = await imported([file]);
    expect(cases.map((c) => c.trace_id)).toEqual([t(5)]);
    const left = report.left_out.map((l) => [l.trace_id, l.problem, l.line]);
    expect(left).toEqual([
      [null, 'no-trace-id', 1],
      [t(2), 'no-answer', 2],
      [t(3), 'no-retrieval', 4],
      [t(4), 'no-question', 5],
    ]);
    expect(report.left_out[0]?.message).toBe('span 1111111111111111 "rag" has no trace id');
  });

  it('attributes of an unknown schema: messages in a shape rge does not read, or a 2.x schema URL, are named', async () => {
    const span = {
      traceId: '7'.repeat(32),
      spanId: '7'.repeat(16),
      name: 'chat',
      attributes: [attr('gen_ai.operation.name', 'chat'), attr('gen_ai.input.messages', '{"v2": true}')],
    };
    const file = await written('schema.jsonl', `${otlpLine(span)}\n`);
    const { report } = await imported([file]);
    expect(report.left_out[0]).toMatchObject({ trace_id: '7'.repeat(32), problem: 'unknown-schema' });
    expect(report.left_out[0]?.message).toContain('gen_ai.input.messages is neither a JSON array');
    const v2 = JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [
            { schemaUrl: 'https://opentelemetry.io/schemas/2.0.0', spans: [{ ...span, attributes: [] }] },
          ],
        },
      ],
    });
    const { report: r2 } = await imported([await written('v2.jsonl', `${v2}\n`)]);
    expect(r2.left_out[0]?.problem).toBe('unknown-schema');
    expect(r2.left_out[0]?.message).toContain('rge reads the 1.x semantic conventions');
  });

  it('a contract line that does not fit the contract names the field', async () => {
    const file = await written(
      'c.jsonl',
      [
        JSON.stringify({ question: 'Q?', answer: 'A.', contexts: [{ id: 'x', text: 't' }], tokens: 3 }),
        JSON.stringify({ question: 'Q?', contexts: [] }),
        JSON.stringify({ question: 'Q?', answer: 'A.', contexts: [{ id: 'x', text: 't' }] }),
      ].join('\n'),
    );
    const { cases, report } = await imported([file]);
    expect(cases.map((c) => c.trace_id)).toEqual(['c.jsonl:3']);
    expect(report.left_out.map((l) => [l.problem, l.line])).toEqual([
      ['unknown-schema', 1],
      ['no-answer', 2],
    ]);
    expect(report.left_out[0]?.message).toContain('not a contract field: tokens');
  });

  it('a file in no known format is an error naming it; nothing is written', async () => {
    const good = await written('c.jsonl', contractJsonLines(TRAFFIC));
    const other = await written('other.jsonl', '{"hello": "world"}\n');
    const out = scratch();
    await expect(importTracesTo(out, [good, other])).rejects.toThrow(
      `${other}:1: not a trace export rge reads (OTLP JSON, OpenInference spans, contract JSON Lines): the first record has hello`,
    );
    expect(existsSync(join(out, 'cases.jsonl'))).toBe(false);
    expect(existsSync(join(out, 'import.json'))).toBe(false);
  });
});

describe('rge traces import', () => {
  it('writes DIR/cases.jsonl and DIR/import.json, prints the counts and every trace left out; exit 0', async () => {
    const dir = scratch();
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'otlp.jsonl'), await otlpJsonLines(TRAFFIC));
    await writeFile(join(dir, 'bad.jsonl'), `${JSON.stringify({ question: 'Q?', answer: 'A.' })}\n`);
    const { code, out, err } = await runRge(
      dir,
      'traces',
      'import',
      'otlp.jsonl',
      'bad.jsonl',
      '--to',
      'cases',
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('otlp.jsonl: otlp, 2 lines, 9 spans\n');
    expect(out).toContain('4 traces, 3 cases imported, 1 left out');
    expect(out).toContain(
      '  left out: bad.jsonl:1: trace bad.jsonl:1: no-retrieval: no retrieval: "contexts" is not a list\n',
    );
    const cases: TraceCase[] = [];
    for await (const c of readTraceCases(join(dir, 'cases'))) cases.push(c);
    expect(cases.map((c) => c.origin)).toEqual([
      { file: 'otlp.jsonl', format: 'otlp', line: 1 },
      { file: 'otlp.jsonl', format: 'otlp', line: 1 },
      { file: 'otlp.jsonl', format: 'otlp', line: 2 },
    ]);
    expect((await readTraceImportReport(join(dir, 'cases'))).cases).toBe(3);
  });

  it('exit 1 when no case was imported; a usage error for a bad --format or a missing file', async () => {
    const dir = scratch();
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'none.jsonl'), `${JSON.stringify({ question: 'Q?', answer: 'A.' })}\n`);
    const none = await runRge(dir, 'traces', 'import', 'none.jsonl', '--to', 'out');
    expect(none.code).toBe(1);
    expect(none.err).toBe('rge: no case was imported\n');
    expect(await readFile(join(dir, 'out', 'cases.jsonl'), 'utf8')).toBe('');
    const format = await runRge(dir, 'traces', 'import', 'none.jsonl', '--to', 'out', '--format', 'zipkin');
    expect(format.code).toBe(2);
    expect(format.err).toContain('--format must be one of auto, otlp, openinference, contract');
    const missing = await runRge(dir, 'traces', 'import', 'nope.jsonl', '--to', 'out');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('nope.jsonl: no such file');
    const other = await runRge(dir, 'traces', 'import', 'none.jsonl', '--to', 'out', '--format', 'otlp');
    expect(other.code).toBe(1);
    expect(other.out).toContain('unreadable: not a otlp record');
  });
});
