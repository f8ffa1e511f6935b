/**
 * Importing the public question sets over the staged PDFs (../shared/corpus): ingest a few documents
 * into a bm25 index exactly as `rge corpus ingest --pdfs` does, import, and validate the output.
 */
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/corpus/schema.ts';
import { documentsFromFolder } from '../../src/ingest/documents.ts';
import { ingest } from '../../src/ingest/ingest.ts';
import {
  evidencePages,
  financeBenchDocumentSlug,
  loadFinanceBench,
  loadIndexChunks,
  type Question,
} from '../../src/questions/index.ts';
import { repoCacheDir, SHARED_ABSENT, sharedCorpus } from '../helpers/shared.ts';
import { rgeQuestions } from './cli-helpers.ts';

async function ingestInto(work: string, pdfDir: string, names: readonly string[]): Promise<string> {
  const pdfs = join(work, 'pdfs');
  await mkdir(pdfs, { recursive: true });
  for (const n of names) await symlink(join(pdfDir, n), join(pdfs, n));
  const indexDir = join(work, 'index');
  const report = await ingest(await documentsFromFolder(pdfs), {
    indexDir,
    embedder: 'bm25',
    cacheDir: repoCacheDir,
  });
  expect(report.failed).toBe(0);
  return indexDir;
}

async function readQuestions(path: string): Promise<Question[]> {
  return (await readFile(path, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Question);
}

describe.skipIf(!sharedCorpus)(
  `rge questions import --format financebench (${SHARED_ABSENT} when absent)`,
  () => {
    const fb = join(sharedCorpus ?? '', 'financebench');
    const DOCS = ['3M_2022_10K', 'PEPSICO_2022_10K', 'JOHNSON_JOHNSON_2022_10K', 'AMCOR_2023Q4_EARNINGS'];
    let work: string;
    let chunks: Chunk[];
    let imported: Question[];
    let out: string;

    beforeAll(async () => {
      work = await mkdtemp(join(tmpdir(), 'rge-fb-import-'));
      await ingestInto(
        work,
        join(fb, 'pdfs'),
        DOCS.map((d) => `${d}.pdf`),
      );
      chunks = await loadIndexChunks(join(work, 'index'));
      const r = await rgeQuestions(
        work,
        'questions',
        'import',
        '--format',
        'financebench',
        join(fb, 'financebench_open_source.jsonl'),
        '--index',
        'index',
        '--out',
        'fb.jsonl',
      );
      out = r.out;
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      imported = await readQuestions(join(work, 'fb.jsonl'));
    }, 600_000);
    afterAll(async () => {
      await rm(work, { recursive: true, force: true });
    });

    it('imports exactly the questions whose documents are in the index and prints a summary', async () => {
      const source = await loadFinanceBench(join(fb, 'financebench_open_source.jsonl'));
      const expected = source.filter((q) => DOCS.includes(q.doc_name)).map((q) => q.financebench_id);
      expect(imported.map((q) => q.source?.ref).sort()).toEqual(expected.sort());
      expect(out).toMatch(
        new RegExp(
          `^financebench: 150 questions, ${150 - expected.length} skipped \\(document not in the index\\), ${expected.length} imported to fb\\.jsonl\\n`,
        ),
      );
      expect(out).toMatch(/gold quotes: \d+ whole evidence verbatim, \d+ longest evidence sentence/);
    });

    it('writes a file that passes rge questions validate', async () => {
      const r = await rgeQuestions(
        work,
        'questions',
        'validate',
        '--questions',
        'fb.jsonl',
        '--index',
        'index',
      );
      expect(r.out).toMatch(/ok: no errors\n$/);
      expect(r.code).toBe(0);
    });

    it('resolves every evidence page to gold chunks of its document that cover it', async () => {
      const source = new Map(
        (await loadFinanceBench(join(fb, 'financebench_open_source.jsonl'))).map((q) => [
          q.financebench_id,
          q,
        ]),
      );
      const byId = new Map(chunks.map((c) => [c.id, c]));
      for (const q of imported) {
        const fbq = source.get(q.source?.ref ?? '');
        if (!fbq) throw new Error(`no source for ${q.id}`);
        const gold = q.gold_chunk_ids.map((id) => byId.get(id) as Chunk);
        for (const page of evidencePages(fbq))
          expect(
            gold.some(
              (c) =>
                c.company === financeBenchDocumentSlug(fbq.doc_name) &&
                c.pages[0] <= page &&
                page <= c.pages[1],
            ),
            `${q.id} page ${page}`,
          ).toBe(true);
      }
    });

    it('turns a known question into rge fields: fb-00499 (3M, evidence on pages 48, 50, 52) is multi-hop', () => {
      const q = imported.find((x) => x.id === 'fb-00499');
      expect(q?.category).toBe('grounded-multihop');
      expect(q?.companies).toEqual(['3m-2022-10k']);
      expect(q?.fiscal_years).toEqual(['FY22']);
      const pages = (q?.gold_chunk_ids ?? []).map((id) => chunks.find((c) => c.id === id)?.pages);
      for (const p of [48, 50, 52]) expect(pages.some((r) => r && r[0] <= p && p <= r[1])).toBe(true);
    });

    it('gives metrics answers a numeric gold value: fb-03620 (PepsiCo EBITDA less capex, $9068.00)', () => {
      const q = imported.find((x) => x.id === 'fb-03620');
      expect(q?.numeric_gold).toEqual([
        { label: 'FinanceBench gold answer', value: 9068, unit: 'USD million', tolerance: 0.01 },
      ]);
    });
  },
);

describe.skipIf(!sharedCorpus)(`rge questions import --format erc (${SHARED_ABSENT} when absent)`, () => {
  const erc = join(sharedCorpus ?? '', 'erc_round1');
  let work: string;
  let imported: Question[];
  let out: string;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'rge-erc-import-'));
    const { readdir } = await import('node:fs/promises');
    const pdfs = (await readdir(join(erc, 'pdfs'))).filter((n) => n.endsWith('.pdf'));
    await ingestInto(work, join(erc, 'pdfs'), pdfs);
    const r = await rgeQuestions(
      work,
      'questions',
      'import',
      '--format',
      'erc',
      join(erc, 'questions.json'),
      '--index',
      'index',
      '--out',
      'erc.jsonl',
    );
    out = r.out;
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    imported = await readQuestions(join(work, 'erc.jsonl'));
  }, 600_000);
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('imports the 10 questions whose named companies are all staged; N/A answers become out-of-domain', () => {
    expect(out).toMatch(
      /^erc: 40 questions, 30 skipped \(document not in the index\), 10 imported to erc\.jsonl\n/,
    );
    expect(imported).toHaveLength(10);
    const ood = imported.filter((q) => q.category === 'out-of-domain');
    expect(ood).toHaveLength(6);
    for (const q of ood) {
      expect(q.gold_chunk_ids).toEqual([]);
      expect(q.expected_behavior).toBe('refuse');
    }
    // the Holley EPS question asks for 2023; the report stops at 2022
    expect(imported.find((q) => q.id === 'erc-005')?.gold_answer).toBe(
      'N/A: Report has EPS only for 2022, latest',
    );
  });

  it('locates the printed figure of a numeric answer: TransUnion intangible assets ($3,770.6 million)', () => {
    const q = imported.find((x) => x.id === 'erc-026');
    expect(q?.companies).toEqual(['85fb23ba2910de45e27f8f40170c0f3576043916']);
    expect(q?.gold_quotes.some((s) => s.includes('$3,770.6'))).toBe(true);
  });

  it('marks answers the organisers also accept as N/A as answer-with-caveat', () => {
    expect(imported.find((x) => x.id === 'erc-033')?.expected_behavior).toBe('answer-with-caveat');
  });

  it('writes a file that passes rge questions validate', async () => {
    const r = await rgeQuestions(
      work,
      'questions',
      'validate',
      '--questions',
      'erc.jsonl',
      '--index',
      'index',
    );
    expect(r.out).toBe(
      'grounded-direct 2, grounded-multihop 2, adversarial 0, out-of-domain 6; valid 10, invalid 0, total 10\nok: no errors\n',
    );
    expect(r.code).toBe(0);
  });
});
