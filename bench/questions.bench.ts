/**
 * `npm run bench -- questions`: question generation's two budgets.
 *
 * 1. Verification speed: 10,000 seeded candidates (every kind the verifier must reject planted among
 *    good ones: fabricated and paraphrased quotes, figures the quote does not print, leaked answers,
 *    one-chunk multihop, answerable out-of-domain questions, quotes across a chunk boundary, copies)
 *    against a 2,500-chunk index of seeded report prose (25 documents), with BM25 top-k for the
 *    out-of-domain check and the lexical near-duplicate rule. Goal: at most 10 s on two cores. The
 *    reference, measured in the same run on the first 200 candidates: the first way one writes it,
 *    each quote looked for (whitespace normalised) in every chunk of the index.
 *    The use-lite embedding of the 10,000 questions (the embedding near-duplicate rule) is timed on its
 *    own row beside it.
 * 2. The dry-run estimate against the bill of the strict OpenAI loopback server for the same tasks
 *    (a model generator's replies scripted as a careful model writes them): goal within 10%.
 */
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import seedrandom from 'seedrandom';
import { chunkId } from '../src/corpus/chunk.ts';
import type { Chunk } from '../src/corpus/schema.ts';
import {
  type Candidate,
  CandidateBody,
  type CandidateBodyInput,
  candidateId,
} from '../src/questions/generate/candidate.ts';
import { QuoteIndex } from '../src/questions/generate/verify/quote-index.ts';
import { verifyCandidates } from '../src/questions/generate/verify/verify.ts';
import { normaliseWhitespace } from '../src/questions/load.ts';
import { bm25TopK } from '../src/run/generate/retrievers.ts';
import { type Bench, type BenchContext, type BenchRow, latencyRow, throughputRow } from './harness.ts';
import { reportSentences } from './synthetic-corpus.ts';

const DOCUMENTS = 25;
const CHUNKS_PER_DOCUMENT = 100;
const CANDIDATES = 10_000;
const NAIVE = 200;

/** The index: each document's chunks of seeded prose, each beginning with the previous one's last line (the overlap). */
function seededChunks(documents: number, perDocument: number): Chunk[] {
  const rng = seedrandom('questions-bench-corpus');
  const out: Chunk[] = [];
  for (let d = 0; d < documents; d++) {
    const source = `report-${String(d + 1).padStart(2, '0')}.pdf`;
    let previous: string | null = null;
    for (let i = 0; i < perDocument; i++) {
      const lines = reportSentences(rng, 650);
      if (previous) lines.unshift(previous);
      previous = lines[lines.length - 1] as string;
      const text = lines.join('\n');
      out.push({
        id: chunkId(`report-${d + 1}`, 'FY24', `${d}:${i}:${text}`),
        company: `report-${d + 1}`,
        fy: 'FY24',
        source,
        heading: 'MANAGEMENT DISCUSSION AND ANALYSIS',
        pages: [i + 1, i + 1],
        tokens: encode(text).length,
        text,
      });
    }
  }
  return out;
}

const pick = <T>(rng: () => number, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;

/** One seeded candidate: good (about two thirds) or one of the planted kinds. */
function seededBody(
  rng: () => number,
  chunks: readonly Chunk[],
  byDoc: Map<string, Chunk[]>,
): CandidateBodyInput {
  const c = pick(rng, chunks);
  const siblings = byDoc.get(c.source) as Chunk[];
  const lines = c.text.split('\n');
  const line = pick(rng, lines);
  const figure = /₹?[\d,]+(?:\.\d+)?%?(?: crore)?/.exec(line)?.[0] ?? '0';
  const quote = [{ document: c.source, text: line }];
  const base = {
    category: 'grounded-direct' as const,
    expected_behavior: 'answer' as const,
    gold_quotes: quote,
  };
  const ask = `What does ${c.source} report: ${line.split(/[₹\d]/)[0]?.trim().split(' ').slice(0, 6).join(' ')}?`;
  const u = rng();
  if (u < 0.4) return { ...base, text: ask, gold_answer: figure };
  if (u < 0.5) {
    const other = pick(
      rng,
      siblings.filter((x) => x !== c),
    );
    const second = pick(rng, other.text.split('\n').slice(1));
    return {
      ...base,
      category: 'grounded-multihop',
      text: `${ask} And the other one?`,
      gold_answer: figure,
      gold_quotes: [...quote, { document: c.source, text: second }],
    };
  }
  if (u < 0.6)
    return {
      category: 'out-of-domain',
      text: `What does ${c.source} say about its lunar mining licence?`,
      gold_answer: 'Nothing.',
      gold_quotes: [],
      expected_behavior: 'refuse',
      absent_terms: ['lunar mining licence'],
    };
  if (u < 0.65)
    return {
      ...base,
      text: ask,
      gold_answer: figure,
      gold_quotes: [
        {
          document: c.source,
          text: 'The company signed a binding agreement to acquire a shipyard in Norway.',
        },
      ],
    };
  if (u < 0.7)
    return {
      ...base,
      text: ask,
      gold_answer: figure,
      gold_quotes: [{ document: c.source, text: line.split(' ').reverse().join(' ') }],
    };
  if (u < 0.75) return { ...base, text: ask, gold_answer: '₹ 12,34,567.89 crore' };
  if (u < 0.8) return { ...base, text: `${ask} (${figure})`, gold_answer: figure };
  if (u < 0.85)
    return {
      ...base,
      category: 'grounded-multihop',
      text: ask,
      gold_answer: figure,
      gold_quotes: [...quote, ...quote],
    };
  if (u < 0.9)
    return {
      category: 'out-of-domain',
      text: `What does ${c.source} say about revenue from operations?`,
      gold_answer: 'Nothing.',
      gold_quotes: [],
      expected_behavior: 'refuse',
      absent_terms: ['revenue from operations'],
    };
  if (u < 0.95) {
    const i = siblings.indexOf(c);
    const next = siblings[i + 1] ?? c;
    return {
      ...base,
      text: ask,
      gold_answer: figure,
      gold_quotes: [
        {
          document: c.source,
          text: `${lines[lines.length - 2]} ${lines[lines.length - 1]} ${next.text.split('\n')[1]}`,
        },
      ],
    };
  }
  return { ...base, text: 'What does the report say about revenue from operations?', gold_answer: figure };
}

function seededCandidates(chunks: readonly Chunk[], n: number): Candidate[] {
  const rng = seedrandom('questions-bench-candidates');
  const byDoc = new Map<string, Chunk[]>();
  for (const c of chunks) byDoc.set(c.source, [...(byDoc.get(c.source) ?? []), c]);
  const generator = {
    id: 'bench/seeded',
    family: 'bench',
    kind: 'model' as const,
    prompt_hash: 'bench',
    seed: 'questions-bench-candidates',
  };
  return Array.from({ length: n }, (_, i) => {
    const body = CandidateBody.parse(seededBody(rng, chunks, byDoc));
    const document = body.gold_quotes[0]?.document ?? (chunks[i % chunks.length] as Chunk).source;
    return { id: candidateId(body, [`${i}`]), body, generator, document, source_chunk_ids: [`${i}`] };
  });
}

/** The first way one writes it: every quote looked for in every chunk, whitespace normalised. */
function naiveVerify(candidates: readonly Candidate[], chunks: readonly Chunk[]): number {
  const texts = chunks.map((c) => normaliseWhitespace(c.text));
  let found = 0;
  for (const c of candidates)
    for (const q of c.body.gold_quotes) {
      const wanted = normaliseWhitespace(q.text);
      if (texts.some((t) => t.includes(wanted))) found++;
    }
  return found;
}

async function verificationRows(ctx: BenchContext): Promise<BenchRow[]> {
  const documents = ctx.quick ? 5 : DOCUMENTS;
  const n = ctx.quick ? 1_000 : CANDIDATES;
  const chunks = seededChunks(documents, CHUNKS_PER_DOCUMENT);
  const candidates = seededCandidates(chunks, n);
  ctx.log(`${chunks.length} chunks, ${candidates.length} candidates`);
  const t0 = performance.now();
  const result = await verifyCandidates({
    candidates,
    quotes: new QuoteIndex(chunks),
    retrievers: [bm25TopK(chunks)],
    target: null,
    maxShare: null,
  });
  const seconds = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  naiveVerify(candidates.slice(0, NAIVE), chunks);
  const naivePerSecond = NAIVE / ((performance.now() - t1) / 1000);
  const reasons = new Map<string, number>();
  for (const r of result.rejections) reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + 1);
  const note = `${seconds.toFixed(2)} s for ${n.toLocaleString('en')} candidates against ${chunks.length.toLocaleString('en')} chunks (goal at full size: <= 10 s); kept ${result.kept.length}; rejected ${[...reasons].map(([r, k]) => `${r} ${k}`).join(', ')}`;
  const rows = [
    throughputRow(
      'question verification (checks 1-9, lexical duplicates, BM25 top-k)',
      'candidates/s',
      n / seconds,
      { name: `naive quote scan over every chunk (first ${NAIVE})`, value: naivePerSecond },
      note,
    ),
  ];
  if (process.env.RGE_BENCH_NO_EMBED === '1') return rows;
  // the embedding near-duplicate rule too: use-lite embeds the questions that passed checks 1-6
  const { createEmbedder } = await import('../src/retrieval/index.ts');
  const e = await createEmbedder('use-lite');
  if (e.kind !== 'dense') return rows;
  let embedded = 0;
  const t2 = performance.now();
  const withEmbeddings = await verifyCandidates({
    candidates,
    quotes: new QuoteIndex(chunks),
    retrievers: [bm25TopK(chunks)],
    embed: (texts) => {
      embedded += texts.length;
      return e.embedPassages(texts);
    },
    target: null,
    maxShare: null,
  });
  const full = (performance.now() - t2) / 1000;
  rows.push(
    latencyRow(
      'question verification with the use-lite embedding duplicate rule',
      's',
      full,
      { name: 'with the lexical rule only', value: seconds },
      `${embedded.toLocaleString('en')} questions embedded; kept ${withEmbeddings.kept.length}`,
    ),
  );
  return rows;
}

async function estimateRow(ctx: BenchContext): Promise<BenchRow> {
  const { mkdtemp } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { costUsd, findModel } = await import('../src/providers/catalogue.ts');
  const { estimateGeneration, openModelGenerator } = await import('../src/run/generate/index.ts');
  const { BudgetLedger } = await import('../src/store/ledger.ts');
  const { generationTasks, liveSpec, loopbackSettings, scriptedGeneration } = await import(
    '../test/helpers/generation.ts'
  );
  const { startOpenAIServer } = await import('../test/loopback/index.ts');
  const server = await startOpenAIServer({ apiKey: 'sk-bench-0123', respond: scriptedGeneration });
  try {
    const dir = await mkdtemp(join(ctx.tmp, 'generate-'));
    const spec = liveSpec('openai', 'gpt-5.4');
    const tasks = generationTasks(ctx.quick ? 8 : 40, 2);
    const estimate = estimateGeneration(tasks, spec, { seed: 'bench' });
    const generator = await openModelGenerator({
      spec,
      resultsDir: dir,
      seed: 'bench',
      ledger: new BudgetLedger(dir, { capUsd: 50, warnUsd: 0, configFile: 'bench' }),
      registry: {
        root: dir,
        env: { OPENAI_API_KEY: 'sk-bench-0123' },
        settings: { openai: loopbackSettings(server.url) },
      },
    });
    await generator.generate(tasks);
    const billed = server.billed.reduce((usd, b) => {
      const entry = findModel(server.provider, b.model);
      if (!entry) throw new Error(`no catalogue entry for ${b.model}`);
      return usd + costUsd(b, entry.prices, { batch: b.batch });
    }, 0);
    const off = (estimate.usd - billed) / billed;
    return {
      name: `dry-run estimate of ${tasks.length} generation tasks vs the loopback bill`,
      unit: 'USD',
      value: estimate.usd,
      reference: { name: 'billed by the OpenAI loopback server', value: billed },
      ratio: estimate.usd / billed,
      note: `${(off * 100).toFixed(1)}% ${off >= 0 ? 'over' : 'under'} (goal: within 10%; the replies are scripted, a real model's lengths differ)`,
    };
  } finally {
    await server.close();
  }
}

const bench: Bench = async (ctx) => [...(await verificationRows(ctx)), await estimateRow(ctx)];
export default bench;
