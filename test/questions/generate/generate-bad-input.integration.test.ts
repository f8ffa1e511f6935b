/**
 * `rge questions generate` as a user starts it (a child process) on awkward folders: a scanned PDF
 * with no text layer is named and left out while the other documents still give questions; a
 * 2,000-page PDF is generated from without whole-document prompts: the run finishes, and every task
 * of its plan shows a generator at most two chunks of the document's many.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { OfflineGenerator } from '../../../src/questions/generate/offline.ts';
import { categoryTargets, DEFAULT_MIX, parseMix } from '../../../src/questions/generate/plan.ts';
import type { GenerationReport } from '../../../src/questions/generate/report.ts';
import { generateQuestions } from '../../../src/questions/generate/run.ts';
import { loadIndexChunks } from '../../../src/questions/load.ts';
import type { QuestionInput } from '../../../src/questions/schema.ts';
import { bm25TopK } from '../../../src/run/generate/retrievers.ts';
import { spawnRge } from '../../helpers/child.ts';
import { makeDrawingOnlyPdf, makeTextPdf } from '../../helpers/make-pdf.ts';
import { scratchDirs } from '../../helpers/scratch.ts';

const DOCUMENTS = fileURLToPath(new URL('../../../fixtures/documents/', import.meta.url));
const scratch = scratchDirs('rge-generate-bad-input-');

/** `rge questions generate` in a child process, offline, lexical near-duplicates, a cache of its own. */
const generate = (documents: string, out: string, ...args: string[]) =>
  spawnRge([
    'questions',
    'generate',
    '--documents',
    documents,
    '--out',
    out,
    '--similarity',
    'lexical',
    '--cache-dir',
    join(out, '..', 'cache'),
    ...args,
  ]);

async function questionsOf(file: string): Promise<QuestionInput[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as QuestionInput);
}

const SYLLABLES = 'ka lo mi ne ru sa ti vo ze pa do fi gu ha je bo ce wa xi yu'.split(' ');

/** A made-up office name per page (no digits: a figure of its own would break the sentence's one figure). */
function officeName(i: number): string {
  let name = '';
  for (let n = i, k = 0; k < 3; k++, n = Math.floor(n / SYLLABLES.length))
    name += SYLLABLES[n % SYLLABLES.length];
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** A long report: each page an office's review, its revenue the one figure in the middle line. */
function longReport(pages: number): Promise<Buffer> {
  return makeTextPdf(
    Array.from({ length: pages }, (_, i) => {
      const office = officeName(i);
      const revenue = (1000 + i * 3.7).toLocaleString('en-US', { minimumFractionDigits: 2 });
      return [
        `Operating review of the ${office} office.`,
        `The revenue of the ${office} office stood at INR ${revenue} crore.`,
        `Staff at the ${office} office were trained in safety and compliance procedures during the year.`,
      ].join('\n');
    }),
  );
}

describe('a scanned PDF among the documents', () => {
  it('is named with "no text layer" and left out; the other documents still give questions', async () => {
    const dir = scratch();
    await mkdir(join(dir, 'docs'), { recursive: true });
    await writeFile(join(dir, 'docs', 'scanned-invoice.pdf'), await makeDrawingOnlyPdf(3));
    for (const name of ['api-limits.md', 'billing-and-plans.md', 'security.md'])
      await copyFile(join(DOCUMENTS, name), join(dir, 'docs', name));
    const out = join(dir, 'out', 'q.jsonl');
    const r = await generate(join(dir, 'docs'), out, '--count', '12');
    expect(r.err).toContain(
      `rge: ${join(dir, 'docs', 'scanned-invoice.pdf')}: no text layer: a scanned PDF? run OCR first\n`,
    );
    expect(r.err).toMatch(/^rge: 3 document\(s\), \d+ chunks indexed in /m);
    expect(r.code).toBe(0);
    const questions = await questionsOf(out);
    expect(questions.length).toBeGreaterThan(0);
    const documents = new Set(
      questions.flatMap((q) => (q.gold_quote_locations ?? []).map((l) => l.document)),
    );
    expect(documents.has('scanned-invoice.pdf')).toBe(false);
    expect(documents.size).toBeGreaterThanOrEqual(2);
    const report = JSON.parse(await readFile(join(dir, 'out', 'q.report.json'), 'utf8')) as GenerationReport;
    expect(Object.keys(report.byDocument).sort()).toEqual([
      'api-limits.md',
      'billing-and-plans.md',
      'security.md',
    ]);
    const validate = await spawnRge([
      'questions',
      'validate',
      '--questions',
      out,
      '--index',
      join(dir, 'out', 'q.index'),
    ]);
    expect(validate.code).toBe(0);
  });
});

describe('a 2,000-page PDF', () => {
  const PAGES = 2000;
  let dir: string;
  let run: Awaited<ReturnType<typeof spawnRge>>;

  beforeAll(async () => {
    dir = scratch();
    await mkdir(join(dir, 'docs'), { recursive: true });
    await writeFile(join(dir, 'docs', 'long-report.pdf'), await longReport(PAGES));
    // measured on 2 shared cores: the PDF made in 0.4 s; the child run (2,000 pages read on the
    // workers, 132 chunks, 55 tasks, 160 candidates verified) about 4 s
    run = await generate(join(dir, 'docs'), join(dir, 'out', 'q.jsonl'), '--count', '20');
  });

  it('generates: the run finishes with questions that validate, quoting pages across the document', async () => {
    expect(run.err).toContain('rge: warning: one document: coverage across documents cannot be shown');
    expect(run.code).toBe(0);
    const questions = await questionsOf(join(dir, 'out', 'q.jsonl'));
    expect(questions.length).toBe(20);
    const pages = questions.flatMap((q) => (q.gold_quote_locations ?? []).map((l) => l.page as number));
    expect(Math.max(...pages) - Math.min(...pages)).toBeGreaterThan(PAGES / 4);
    const validate = await spawnRge([
      'questions',
      'validate',
      '--questions',
      join(dir, 'out', 'q.jsonl'),
      '--index',
      join(dir, 'out', 'q.index'),
    ]);
    expect(validate.code).toBe(0);
  });

  it('no whole-document prompt: every task of the plan shows at most two of its chunks', async () => {
    const chunks = await loadIndexChunks(join(dir, 'out', 'q.index'));
    expect(chunks.length).toBeGreaterThan(100);
    // the command's plan, in process over the index it built: the same tasks (the report counts them)
    const result = await generateQuestions({
      chunks,
      indexChecksum: null,
      generator: new OfflineGenerator('rge-generate-v1'),
      targets: categoryTargets(20, parseMix(DEFAULT_MIX)),
      seed: 'rge-generate-v1',
      perTask: 3,
      overGenerate: 8,
      maxShare: null,
      retrievers: [bm25TopK(chunks)],
    });
    const report = JSON.parse(await readFile(join(dir, 'out', 'q.report.json'), 'utf8')) as GenerationReport;
    expect(result.tasks).toHaveLength(report.tasks);
    expect(result.report.candidates).toBe(report.candidates);
    for (const task of result.tasks) {
      expect(task.chunks.length).toBeGreaterThanOrEqual(1);
      expect(task.chunks.length).toBeLessThanOrEqual(task.category === 'grounded-multihop' ? 2 : 1);
      const shown = task.chunks.reduce((n, c) => n + c.pages[1] - c.pages[0] + 1, 0);
      expect(shown).toBeLessThan(PAGES / 20);
    }
    expect(existsSync(join(dir, 'out', 'q.rejected.jsonl'))).toBe(true);
  });
});
