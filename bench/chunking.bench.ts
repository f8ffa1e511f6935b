/**
 * Chunking throughput (cl100k tokens/s) of `chunkDocument` on real report text, against the tokenizer
 * alone encoding the same text: the ratio is what furniture removal, heading detection and windowing
 * cost on top of tokenisation. Text comes from pdftotext (page-split on form feeds) so this bench does
 * not depend on the extractor's speed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { chunkDocument } from '../src/corpus/chunk.ts';
import type { PageText } from '../src/corpus/schema.ts';
import { type Bench, hasPdftotext, throughputRow } from './harness.ts';

const DOCS = [
  'indian/VRL_Logistics_Annual_Report_FY2023-24.pdf',
  'financebench/pdfs/3M_2022_10K.pdf',
  'financebench/pdfs/PEPSICO_2022_10K.pdf',
];

const bench: Bench = async (ctx) => {
  const name = 'chunking tokens/s';
  if (!ctx.sharedCorpus)
    return [{ ...throughputRow(name, 'tok/s', 0, null), skipped: '../shared/corpus absent' }];
  if (!hasPdftotext())
    return [{ ...throughputRow(name, 'tok/s', 0, null), skipped: 'pdftotext not installed' }];
  const docs = (ctx.quick ? DOCS.slice(0, 1) : DOCS)
    .map((d) => join(ctx.sharedCorpus as string, d))
    .filter((p) => existsSync(p))
    .map((p) => {
      const text = execFileSync('pdftotext', ['-enc', 'UTF-8', p, '-'], {
        encoding: 'utf8',
        maxBuffer: 1 << 28,
      });
      return text.split('\f').map((t, i): PageText => ({ page: i + 1, text: t, method: 'text' }));
    });
  const reps = ctx.quick ? 1 : 3;
  let tokens = 0;
  let chunkMs = Number.POSITIVE_INFINITY;
  let encodeMs = Number.POSITIVE_INFINITY;
  for (let r = 0; r < reps; r++) {
    let t0 = performance.now();
    let n = 0;
    for (const pages of docs)
      n += chunkDocument(pages, { company: 'bench', fy: null, source: 'bench.pdf' }).length;
    chunkMs = Math.min(chunkMs, performance.now() - t0);
    t0 = performance.now();
    tokens = 0;
    for (const pages of docs) tokens += encode(pages.map((p) => p.text).join('\n')).length;
    encodeMs = Math.min(encodeMs, performance.now() - t0);
    ctx.log(
      `rep ${r + 1}: ${n} chunks, ${tokens} tokens, chunk ${chunkMs.toFixed(0)} ms, encode ${encodeMs.toFixed(0)} ms`,
    );
  }
  return [
    throughputRow(
      name,
      'tok/s',
      tokens / (chunkMs / 1000),
      { name: 'cl100k encode alone', value: tokens / (encodeMs / 1000) },
      `${docs.length} real reports, ${tokens} tokens, best of ${reps}`,
    ),
  ];
};

export default bench;
