/**
 * Every page rge extracts from the PDFs of some folders, one JSON line a page ({ file, page, method,
 * text }) or a failure ({ file, error }), in file and page order, so that the output of two versions
 * of the extractor can be compared byte for byte. Extraction goes through `extractMany` (the corpus
 * worker threads, as `rge corpus ingest` runs it).
 *
 *   npx tsx scripts/extraction-dump.ts OUT.jsonl [--tables auto|never|always] DIR...
 *   npx tsx scripts/extraction-dump.ts --compare A.jsonl B.jsonl
 *
 * Comparing two versions: run the first form in a worktree of each (same arguments), then --compare;
 * it prints how many PDFs and pages were compared and each page that differs, and exits 1 if any did.
 * Comparing rge's patched pdf.js with pdfjs-dist's own files (docs/adr/0024): run the first form once
 * with RGE_PDFJS_PATCHES=0 and once without, then --compare.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TableMode } from '../src/corpus/pdf-document.ts';
import { extractMany } from '../src/corpus/workers.ts';

interface Line {
  file: string;
  page?: number;
  method?: string;
  text?: string;
  error?: string;
}

function pdfsUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...pdfsUnder(path));
    else if (/\.pdf$/i.test(name)) out.push(path);
  }
  return out;
}

async function dump(out: string, args: string[]): Promise<number> {
  let tables: TableMode = 'auto';
  const dirs: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--tables') tables = args[++i] as TableMode;
    else dirs.push(resolve(args[i] as string));
  }
  const pdfs = dirs.flatMap(pdfsUnder);
  const t0 = performance.now();
  const results = await extractMany(pdfs, { tables });
  const lines: string[] = [];
  let pages = 0;
  for (const [i, r] of results.entries()) {
    const file = pdfs[i] as string;
    if (r.error) {
      lines.push(JSON.stringify({ file, error: `${r.error.kind}: ${r.error.detail}` } satisfies Line));
      continue;
    }
    for (const p of r.result?.pages ?? []) {
      lines.push(JSON.stringify({ file, page: p.page, method: p.method, text: p.text } satisfies Line));
      pages++;
    }
  }
  writeFileSync(out, `${lines.join('\n')}\n`);
  const s = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(`${pdfs.length} PDFs, ${pages} pages (tables '${tables}') in ${s} s -> ${out}`);
  return 0;
}

function compare(a: string, b: string): number {
  const read = (f: string) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Line);
  const left = read(a);
  const right = read(b);
  const key = (l: Line) => `${l.file}#${l.page ?? 'error'}`;
  const rightByKey = new Map(right.map((l) => [key(l), l]));
  let differ = 0;
  for (const l of left) {
    const r = rightByKey.get(key(l));
    rightByKey.delete(key(l));
    if (!r || JSON.stringify(r) !== JSON.stringify(l)) {
      differ++;
      console.log(`differs: ${key(l)} (${l.method ?? l.error} / ${r ? (r.method ?? r.error) : 'missing'})`);
    }
  }
  for (const k of rightByKey.keys()) {
    differ++;
    console.log(`only in ${b}: ${k}`);
  }
  const files = new Set(left.map((l) => l.file)).size;
  const pages = left.filter((l) => l.page !== undefined).length;
  const failed = left.filter((l) => l.error !== undefined).length;
  const same = readFileSync(a).equals(readFileSync(b));
  console.log(
    `${files} PDFs (${failed} unreadable), ${pages} pages compared: ${differ} differ; files ${same ? 'byte-identical' : 'not byte-identical'}`,
  );
  return differ === 0 && same ? 0 : 1;
}

const [first, ...rest] = process.argv.slice(2);
if (first === '--compare' && rest.length === 2) process.exit(compare(rest[0] as string, rest[1] as string));
if (!first || first.startsWith('--') || rest.length === 0) {
  console.error('usage: extraction-dump.ts OUT.jsonl [--tables auto|never|always] DIR...  |  --compare A B');
  process.exit(2);
}
process.exit(await dump(first, rest));
