/**
 * How well rge locates FinanceBench's gold evidence texts on their labelled pages: extracts the staged
 * filings with rge's own extractor (`extractMany`, tables 'auto' as `rge corpus ingest` does), runs
 * `locateEvidence` for every evidence snippet of DERIVED_questions_for_staged_pdfs.jsonl, and prints
 * the agreement per split (dev/test by sha1 of financebench_id) and each miss.
 *
 * Usage: npx tsx scripts/financebench-evidence.ts [dir]   (default ../shared/corpus/financebench)
 * Exit 2 when the folder or its questions file is absent, 1 when a filing cannot be extracted.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractMany } from '../src/corpus/pdf.ts';
import {
  evidenceAgreement,
  financeBenchEvidence,
  formatAgreement,
  formatMiss,
  type PageText,
} from '../src/questions/evidence-page.ts';
import { loadFinanceBench } from '../src/questions/financebench.ts';

const QUESTIONS = 'DERIVED_questions_for_staged_pdfs.jsonl';

async function main(): Promise<number> {
  const repo = fileURLToPath(new URL('..', import.meta.url));
  const dir = resolve(process.argv[2] ?? join(repo, '../shared/corpus/financebench'));
  if (!existsSync(join(dir, QUESTIONS))) {
    console.error(
      `financebench-evidence: no ${QUESTIONS} in ${dir}; pass the FinanceBench folder (the one holding ` +
        `${QUESTIONS} and pdfs/) as the first argument`,
    );
    return 2;
  }
  const items = financeBenchEvidence(await loadFinanceBench(join(dir, QUESTIONS)));
  const docs = [...new Set(items.map((i) => i.docName))].sort();
  console.error(`extracting ${docs.length} filings ...`);
  const extracted = await extractMany(docs.map((d) => join(dir, 'pdfs', `${d}.pdf`)));
  const pages = new Map<string, readonly PageText[]>();
  for (const [i, r] of extracted.entries()) {
    if (!r.result) {
      console.error(`financebench-evidence: ${r.error?.message ?? `${r.path}: extraction failed`}`);
      return 1;
    }
    pages.set(docs[i] as string, r.result.pages);
  }
  const agreement = evidenceAgreement(items, (d) => pages.get(d) ?? []);
  console.log(formatAgreement(agreement));
  console.log(agreement.misses.length === 0 ? 'misses: none' : 'misses:');
  for (const miss of agreement.misses) console.log(`  ${formatMiss(miss)}`);
  return 0;
}

process.exitCode = await main();
