/**
 * `npm run bench -- traces`: importing logged traces (issue 56). 100,000 seeded spans (`--quick`: 10,000)
 * of a RAG application (each trace a root CHAIN span with the question and answer, a retriever span
 * with three documents, an LLM span with GenAI attributes), written as an OpenTelemetry collector's file
 * exporter writes them: OTLP JSON Lines, 100 spans a request, a trace's spans in the order they ended
 * (children first) and split across requests. Measured: `rge traces import`'s work (importTracesTo:
 * stream, group, write cases.jsonl and import.json) in spans/s, goal >= 20,000 on two cores, against the
 * reference in the same run: reading the same file line by line and `JSON.parse` of every line alone.
 * The peak heap and RSS during the import are sampled every 20 ms: the import holds a summary per
 * trace, never the file or its spans.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import seedrandom from 'seedrandom';
import { importTracesTo } from '../src/traces/import.ts';
import { type Bench, type BenchRow, throughputRow } from './harness.ts';

const SPANS = 100_000;
const QUICK_SPANS = 10_000;
const PER_REQUEST = 100;

const WORDS =
  'revenue operations crore profit margin dividend board employees segment growth capital expenditure cash flow ratio debt equity subsidiary'.split(
    ' ',
  );

const hex = (rng: () => number, n: number) => {
  let s = '';
  for (let i = 0; i < n; i++) s += Math.floor(rng() * 16).toString(16);
  return s;
};
const words = (rng: () => number, n: number) =>
  Array.from({ length: n }, () => WORDS[Math.floor(rng() * WORDS.length)]).join(' ');
const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
const int = (key: string, v: number) => ({ key, value: { intValue: v } });
const ns = (ms: number) => `${ms}000000`;

/** The three spans of one seeded trace, in the order they end: retriever, LLM, root. */
function traceSpans(rng: () => number, i: number, t0: number): object[] {
  const traceId = hex(rng, 32);
  const rootId = hex(rng, 16);
  const question = `What does the report say about ${words(rng, 6)}?`;
  const answer = `${words(rng, 30)} [d${i}-0].`;
  const docs = [0, 1, 2].map((k) => ({ id: `d${i}-${k}`, content: words(rng, 50), score: rng() }));
  const messages = (role: string, text: string) =>
    JSON.stringify([{ role, parts: [{ type: 'text', content: text }] }]);
  const base = { traceId, kind: 1, status: { code: 0 }, events: [], links: [] };
  return [
    {
      ...base,
      spanId: hex(rng, 16),
      parentSpanId: rootId,
      name: 'retrieve',
      startTimeUnixNano: ns(t0 + 2),
      endTimeUnixNano: ns(t0 + 30),
      attributes: [
        str('gen_ai.operation.name', 'retrieval'),
        str('gen_ai.retrieval.documents', JSON.stringify(docs)),
      ],
    },
    {
      ...base,
      spanId: hex(rng, 16),
      parentSpanId: rootId,
      name: 'chat gpt-5-mini',
      startTimeUnixNano: ns(t0 + 31),
      endTimeUnixNano: ns(t0 + 700),
      attributes: [
        str('gen_ai.operation.name', 'chat'),
        str('gen_ai.request.model', 'gpt-5-mini'),
        int('gen_ai.usage.input_tokens', 1000 + Math.floor(rng() * 900)),
        int('gen_ai.usage.output_tokens', 20 + Math.floor(rng() * 80)),
        str('gen_ai.input.messages', messages('user', question)),
        str('gen_ai.output.messages', messages('assistant', answer)),
      ],
    },
    {
      ...base,
      spanId: rootId,
      name: 'rag.answer',
      startTimeUnixNano: ns(t0),
      endTimeUnixNano: ns(t0 + 720),
      attributes: [
        str('openinference.span.kind', 'CHAIN'),
        str('input.value', question),
        str('output.value', answer),
        str('route', ['faq', 'hr', 'finance'][i % 3] as string),
      ],
    },
  ];
}

/** A seeded export of `spans` spans as OTLP JSON Lines; written request by request. */
export async function writeExport(file: string, spans: number): Promise<void> {
  const rng = seedrandom('traces-bench');
  const out = createWriteStream(file);
  const lines: { length: number } = { length: 0 };
  let pending: object[] = [];
  const t0 = Date.UTC(2025, 5, 2);
  for (let i = 0; pending.length + lines.length * PER_REQUEST < spans; i++) {
    pending.push(...traceSpans(rng, i, t0 + i * 1000));
    while (
      pending.length >= PER_REQUEST ||
      (pending.length > 0 && pending.length + lines.length * PER_REQUEST >= spans)
    ) {
      const batch = pending.slice(0, Math.min(PER_REQUEST, spans - lines.length * PER_REQUEST));
      pending = pending.slice(PER_REQUEST);
      lines.length++;
      const ok = out.write(
        `${JSON.stringify({
          resourceSpans: [
            {
              resource: { attributes: [str('service.name', 'rag-app')] },
              scopeSpans: [{ scope: { name: 'rag-app', version: '1.0.0' }, spans: batch }],
            },
          ],
        })}\n`,
      );
      if (!ok) await once(out, 'drain');
    }
  }
  out.end();
  await finished(out);
}

/** The reference: every line read and parsed, nothing else. */
async function parseOnly(file: string): Promise<number> {
  let spans = 0;
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of rl) {
    const request = JSON.parse(line) as { resourceSpans: { scopeSpans: { spans: unknown[] }[] }[] };
    for (const rs of request.resourceSpans) for (const ss of rs.scopeSpans) spans += ss.spans.length;
  }
  return spans;
}

/** Runs `work` while sampling the process's heap and RSS; returns the peaks and the time. */
async function sampled<T>(
  work: () => Promise<T>,
): Promise<{ value: T; seconds: number; heapMb: number; rssMb: number }> {
  let heap = 0;
  let rss = 0;
  const sample = () => {
    const m = process.memoryUsage();
    heap = Math.max(heap, m.heapUsed);
    rss = Math.max(rss, m.rss);
  };
  sample();
  const timer = setInterval(sample, 20);
  const t0 = performance.now();
  try {
    const value = await work();
    const seconds = (performance.now() - t0) / 1000;
    sample();
    return { value, seconds, heapMb: heap / 2 ** 20, rssMb: rss / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

/** A full garbage collection, so that the heap before the import is what is live. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const bench: Bench = async (ctx) => {
  const spans = ctx.quick ? QUICK_SPANS : SPANS;
  const file = join(ctx.tmp, 'export.jsonl');
  await writeExport(file, spans);
  const bytes = (await stat(file)).size;
  ctx.log(`${spans.toLocaleString('en')} spans, ${(bytes / 2 ** 20).toFixed(1)} MB of OTLP JSON Lines`);
  collectGarbage();
  const reference = await sampled(() => parseOnly(file));
  collectGarbage();
  const before = process.memoryUsage();
  const run = await sampled(() => importTracesTo(join(ctx.tmp, 'cases'), [file]));
  const report = run.value;
  // the export ends mid-trace when the span count is not a multiple of 3: that trace is left out, incomplete
  const incomplete = spans % 3 === 0 ? 0 : 1;
  if (
    report.spans !== spans ||
    report.cases !== Math.floor(spans / 3) ||
    report.left_out.length !== incomplete ||
    report.left_out.some((l) => !l.message.startsWith('incomplete'))
  )
    throw new Error(
      `import read ${report.spans} spans, ${report.cases} cases, ${report.left_out.length} left out`,
    );
  const memory =
    `peak heap ${run.heapMb.toFixed(0)} MB, peak RSS ${run.rssMb.toFixed(0)} MB during the import ` +
    `(before it: heap ${(before.heapUsed / 2 ** 20).toFixed(0)} MB, RSS ${(before.rss / 2 ** 20).toFixed(0)} MB; ` +
    `parsing alone peaked at heap ${reference.heapMb.toFixed(0)} MB) for a ${(bytes / 2 ** 20).toFixed(0)} MB export`;
  const rows: BenchRow[] = [
    throughputRow(
      `trace import (${spans.toLocaleString('en')} OTLP spans -> ${report.cases.toLocaleString('en')} cases, written)`,
      'spans/s',
      spans / run.seconds,
      { name: 'readline + JSON.parse of every line alone', value: reference.value / reference.seconds },
      `${run.seconds.toFixed(2)} s (goal >= 20,000 spans/s on two cores); ${memory}`,
    ),
  ];
  return rows;
};
export default bench;
