/**
 * Retrieval on documents nobody here wrote: the staged FinanceBench filings are ingested exactly as
 * `rge corpus ingest --pdfs DIR` does, and for each of the 45 questions whose document is staged we ask
 * whether any top-5 chunk covers a gold evidence page (0-indexed in FinanceBench, 1-indexed here).
 *
 * The floors sit a little below what each embedder reached when they were set (bm25 36/45 with
 * tokenizer v2 and query handling, use-lite 23/45, hybrid with the default fusion; see the printed
 * table), so a regression fails and run-to-run wobble of a question or two does not.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentIdentity } from '../../src/corpus/naming.ts';
import { documentsFromFolder, type IngestReport, ingest } from '../../src/ingest/ingest.ts';
import {
  type PageRecallQuestion,
  type PageRecallResult,
  pageRecallAtK,
} from '../../src/ingest/page-recall.ts';
import { evidencePages, loadFinanceBench } from '../../src/questions/financebench.ts';
import { createEmbedder, openIndex } from '../../src/retrieval/index.ts';
import { repoCacheDir, SHARED_ABSENT, sharedCorpus } from '../helpers/shared.ts';

const K = 5;
/** page recall@5 on the own document that each embedder must keep (a little below what it reached) */
const FLOOR = { bm25: 0.75, 'use-lite': 0.45, hybrid: 0.6 } as const;

describe.skipIf(!sharedCorpus)(
  `FinanceBench page recall@${K} per embedder (${SHARED_ABSENT} when absent)`,
  () => {
    const fb = join(sharedCorpus ?? '', 'financebench');
    let questions: PageRecallQuestion[] = [];
    const results: {
      embedder: string;
      report?: IngestReport;
      document?: PageRecallResult;
      corpus?: PageRecallResult;
      unavailable?: string;
    }[] = [];

    beforeAll(async () => {
      const fbq = await loadFinanceBench(join(fb, 'financebench_open_source.jsonl'));
      const docs = await documentsFromFolder(join(fb, 'pdfs'));
      const staged = new Set(docs.map((d) => d.company));
      questions = fbq
        .map((q) => ({ q, company: documentIdentity(`${q.doc_name}.pdf`).company }))
        .filter(({ company }) => staged.has(company))
        .map(({ q, company }) => ({
          id: q.financebench_id,
          question: q.question,
          company,
          goldPages: evidencePages(q),
        }));
      const work = await mkdtemp(join(tmpdir(), 'rge-fb-'));
      for (const embedder of ['bm25', 'use-lite', 'hybrid', 'bge-m3'] as const) {
        try {
          await createEmbedder(embedder);
        } catch (err) {
          results.push({ embedder, unavailable: (err as Error).message.split('\n')[0] as string });
          continue;
        }
        const indexDir = join(work, embedder);
        const report = await ingest(docs, { indexDir, embedder, cacheDir: repoCacheDir });
        const index = await openIndex(indexDir);
        results.push({
          embedder,
          report,
          document: await pageRecallAtK(index, questions, { k: K, scope: 'document' }),
          corpus: await pageRecallAtK(index, questions, { k: K, scope: 'corpus' }),
        });
      }
    }, 3_600_000);

    afterAll(() => {
      const cells = (r?: PageRecallResult) =>
        r ? `${r.hits}/${r.n} | ${(100 * r.recall).toFixed(1)}%` : '- | -';
      const lines = [
        `| embedder | hits/n, own document | recall@${K}, own document | hits/n, all ${results[0]?.report?.documents.length ?? ''} filings | recall@${K}, all filings | chunks |`,
        '|---|---|---|---|---|---|',
        ...results.map((r) =>
          r.unavailable
            ? `| ${r.embedder} | unavailable: ${r.unavailable} | | | | |`
            : `| ${r.embedder} | ${cells(r.document)} | ${cells(r.corpus)} | ${r.report?.chunks} |`,
        ),
      ];
      console.log(`\nFinanceBench page recall@${K} (${questions.length} questions)\n${lines.join('\n')}\n`);
    });

    it('covers the 45 questions whose documents are staged, every one with gold pages', () => {
      expect(questions.length).toBe(45);
      for (const q of questions) expect(q.goldPages.length).toBeGreaterThan(0);
    });

    it('ingests all 16 filings without failure', () => {
      for (const r of results.filter((x) => x.report)) {
        expect(r.report?.failed).toBe(0);
        expect(r.report?.documents.length).toBe(16);
      }
    });

    it('retrieves a gold evidence page in the top 5 for most questions', () => {
      const recall = (name: string) => results.find((r) => r.embedder === name)?.document?.recall;
      expect(recall('bm25')).toBeGreaterThanOrEqual(FLOOR.bm25);
      expect(recall('use-lite')).toBeGreaterThanOrEqual(FLOOR['use-lite']);
      expect(recall('hybrid')).toBeGreaterThanOrEqual(FLOOR.hybrid);
      // Retrieval over all filings can only be as good as within the right one, give or take ties.
      for (const r of results.filter((x) => x.document)) {
        expect(r.corpus?.recall ?? 0).toBeLessThanOrEqual((r.document?.recall ?? 0) + 0.1);
      }
    });

    it('says plainly why bge-m3 is unavailable when its model is missing', () => {
      const bge = results.find((r) => r.embedder === 'bge-m3');
      if (bge?.unavailable) expect(bge.unavailable).toMatch(/bge-m3/i);
    });
  },
);
