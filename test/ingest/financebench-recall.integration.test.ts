/**
 * Retrieval on documents nobody here wrote: the staged FinanceBench filings and the staged Enterprise
 * RAG Challenge round-1 filings are ingested exactly as `rge corpus ingest --pdfs DIR` does, and for
 * each question (src/ingest/recall-sets.ts: FinanceBench's labelled evidence pages, ERC's pages located
 * from the answer's figures) we ask whether any top-5 chunk covers a gold page, within the question's
 * own filing ("single store") and across all filings of the set (as an eval run ranks: no question
 * scope).
 *
 * The questions are split by filing into dev and test (seeded, recorded in data/recall-split.json);
 * retrieval changes were written against dev. The floors sit at or a little below what each embedder
 * reached on the test split when they were set (see the printed table and docs/adr/0020); bm25's is the
 * issue's bar, 0.80. bm25 is deterministic; the dense models may move a question with a library update.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentsFromFolder } from '../../src/ingest/documents.ts';
import { type IngestReport, ingest } from '../../src/ingest/ingest.ts';
import { pageRecallBySplit, type SplitRecall } from '../../src/ingest/page-recall.ts';
import {
  type LoadedRecallSet,
  loadErcRecallSet,
  loadFinanceBenchRecallSet,
  type RecallSet,
} from '../../src/ingest/recall-sets.ts';
import { createEmbedder, openIndex } from '../../src/retrieval/index.ts';
import { repoCacheDir, SHARED_ABSENT, sharedCorpus } from '../helpers/shared.ts';

const K = 5;
/** page recall@5 within the own filing on the test split (FinanceBench and ERC together) to keep */
const TEST_FLOOR = { bm25: 0.8, 'use-lite': 0.5, hybrid: 0.6 } as const;

const EMBEDDERS = ['bm25', 'use-lite', 'hybrid', 'bge-m3'] as const;

interface Row {
  embedder: (typeof EMBEDDERS)[number];
  set: RecallSet;
  report?: IngestReport;
  document?: SplitRecall;
  corpus?: SplitRecall;
  unavailable?: string;
}

describe.skipIf(!sharedCorpus)(
  `page recall@${K} on real filings per embedder, dev and test (${SHARED_ABSENT} when absent)`,
  () => {
    const sets = new Map<RecallSet, LoadedRecallSet>();
    const rows: Row[] = [];

    beforeAll(async () => {
      for (const loaded of [
        await loadFinanceBenchRecallSet(join(sharedCorpus ?? '', 'financebench')),
        await loadErcRecallSet(join(sharedCorpus ?? '', 'erc_round1')),
      ])
        sets.set(loaded.set, loaded);

      const work = await mkdtemp(join(tmpdir(), 'rge-recall-'));
      for (const embedder of EMBEDDERS) {
        try {
          await createEmbedder(embedder);
        } catch (err) {
          for (const set of sets.keys())
            rows.push({ embedder, set, unavailable: (err as Error).message.split('\n')[0] as string });
          continue;
        }
        for (const [set, { pdfs, questions }] of sets) {
          const indexDir = join(work, `${set}-${embedder}`);
          const report = await ingest(await documentsFromFolder(pdfs), {
            indexDir,
            embedder,
            cacheDir: repoCacheDir,
          });
          const index = await openIndex(indexDir);
          rows.push({
            embedder,
            set,
            report,
            document: await pageRecallBySplit(index, questions, { k: K, scope: 'document' }),
            corpus: await pageRecallBySplit(index, questions, { k: K, scope: 'corpus' }),
          });
        }
      }
    }, 7_200_000);

    /** Hits and questions of one split over both sets, within the own filing. */
    const pooled = (embedder: string, split: 'dev' | 'test') => {
      const mine = rows.filter((r) => r.embedder === embedder && r.document);
      const hits = mine.reduce((s, r) => s + (r.document?.[split].hits ?? 0), 0);
      const n = mine.reduce((s, r) => s + (r.document?.[split].n ?? 0), 0);
      return { hits, n, recall: n === 0 ? Number.NaN : hits / n };
    };

    afterAll(() => {
      const cell = (r?: { hits: number; n: number }) =>
        r ? `${r.hits}/${r.n} (${r.n === 0 ? '-' : ((100 * r.hits) / r.n).toFixed(1)}%)` : '-';
      const lines = [
        '| embedder | set | own filing, dev | own filing, test | all filings, dev | all filings, test | chunks |',
        '|---|---|---|---|---|---|---|',
        ...rows.map((r) =>
          r.unavailable
            ? `| ${r.embedder} | ${r.set} | unavailable: ${r.unavailable} | | | | |`
            : `| ${r.embedder} | ${r.set} | ${cell(r.document?.dev)} | ${cell(r.document?.test)} | ${cell(r.corpus?.dev)} | ${cell(r.corpus?.test)} | ${r.report?.chunks} |`,
        ),
        ...EMBEDDERS.filter((e) => rows.some((r) => r.embedder === e && r.document)).map(
          (e) => `| ${e} | both | ${cell(pooled(e, 'dev'))} | ${cell(pooled(e, 'test'))} | | | |`,
        ),
      ];
      console.log(`\npage recall@${K} on real filings\n${lines.join('\n')}\n`);
    });

    it('covers the 45 FinanceBench questions and the 4 answerable ERC questions, split as recorded', () => {
      expect(sets.get('financebench')?.questions).toHaveLength(45);
      expect(sets.get('erc')?.questions.map((q) => q.id)).toEqual([
        'erc-026',
        'erc-030',
        'erc-033',
        'erc-037',
      ]);
      for (const { questions } of sets.values())
        for (const q of questions) expect(q.goldPages.length).toBeGreaterThan(0);
    });

    it('ingests all 16 + 6 filings without failure', () => {
      for (const r of rows.filter((x) => x.report)) {
        expect(r.report?.failed).toBe(0);
        expect(r.report?.documents.length).toBe(r.set === 'financebench' ? 16 : 6);
      }
    });

    it('finds a gold page in the top 5 on the test split at least as often as the floors', () => {
      for (const [embedder, floor] of Object.entries(TEST_FLOOR))
        if (rows.some((r) => r.embedder === embedder && r.document))
          expect(pooled(embedder, 'test').recall, embedder).toBeGreaterThanOrEqual(floor);
      // Retrieval over all filings can only be as good as within the right one, give or take ties.
      for (const r of rows.filter((x) => x.document))
        expect(r.corpus?.all.recall ?? 0).toBeLessThanOrEqual((r.document?.all.recall ?? 0) + 0.1);
    });

    it('says plainly why bge-m3 is unavailable when its model is missing', () => {
      const bge = rows.find((r) => r.embedder === 'bge-m3');
      if (bge?.unavailable) expect(bge.unavailable).toMatch(/bge-m3/i);
    });
  },
);
