/**
 * How well each offline retriever finds the evidence, on the real filings and on the fixture world:
 * - page recall@5 within the question's own filing (FinanceBench's "single store"; across all filings
 *   of the set beside it) on the development and the test split of the real questions
 *   (src/ingest/recall-sets.ts: FinanceBench's staged questions and the answerable Enterprise RAG
 *   Challenge round-1 questions, split by filing, seeded and recorded in data/recall-split.json);
 * - on the fixture world, per category, the share of questions with a gold chunk in the top 5 for the
 *   question's text over the whole index (the report's "Retrieval" section);
 * - the seconds each ingest took (pages from the cache; embeddings too, unless --cold).
 *
 * Usage: npx tsx scripts/retrieval-recall.ts [--embedders bm25,use-lite,hybrid] [--sets financebench,erc,fixture]
 *          [--cache-dir DIR] [--cold] [--scope] [--misses] [--json]
 * --scope ranks in the company and fiscal year the question names (store.ts `questionScope: true`; off
 * by default, as in an eval run), to see what that scope adds.
 * The real sets are read from ../shared/corpus (skipped with a note when it is absent). --cold starts
 * from an empty embedding cache (the pages still come from the cache), so the first dense embedder's
 * seconds are a cold ingest's; a later embedder that shares its vectors (hybrid after use-lite) finds
 * them cached.
 */
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildFixtureCorpus, loadFacts } from '../src/fixtures/build.ts';
import { documentsFromFolder } from '../src/ingest/documents.ts';
import { ingest } from '../src/ingest/ingest.ts';
import {
  type GoldChunkRecall,
  goldChunkRecallAtK,
  pageRecallBySplit,
  type SplitRecall,
} from '../src/ingest/page-recall.ts';
import {
  type LoadedRecallSet,
  loadErcRecallSet,
  loadFinanceBenchRecallSet,
  type RecallSet,
} from '../src/ingest/recall-sets.ts';
import { loadQuestions } from '../src/questions/load.ts';
import { type EmbedderName, type Index, isEmbedderName, openIndex } from '../src/retrieval/index.ts';

const K = 5;
const repo = fileURLToPath(new URL('..', import.meta.url));
const shared = resolve(repo, '../shared/corpus');

const { values } = parseArgs({
  options: {
    embedders: { type: 'string', default: 'bm25,use-lite,hybrid' },
    sets: { type: 'string', default: 'financebench,erc,fixture' },
    'cache-dir': { type: 'string', default: join(repo, '.cache/rge') },
    cold: { type: 'boolean', default: false },
    misses: { type: 'boolean', default: false },
    scope: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});

interface RealResult {
  set: RecallSet;
  embedder: EmbedderName;
  seconds: number;
  chunks: number;
  document: SplitRecall;
  corpus: SplitRecall;
}

interface FixtureResult {
  embedder: EmbedderName;
  seconds: number;
  chunks: number;
  checksum: string;
  byCategory: Record<string, GoldChunkRecall>;
}

async function realSet(set: RecallSet): Promise<LoadedRecallSet | null> {
  const dir = join(shared, set === 'financebench' ? 'financebench' : 'erc_round1');
  if (!existsSync(dir)) return null;
  const loaded = set === 'financebench' ? await loadFinanceBenchRecallSet(dir) : await loadErcRecallSet(dir);
  for (const u of loaded.unlocated) console.error(`erc: ${u.id}: no page prints ${u.figures.join('; ')}`);
  return loaded;
}

/** The index as a retriever, with or without the question's scope (--scope). */
function scoped(index: Index): Pick<Index, 'retrieve'> {
  return {
    retrieve: (question, opts = {}) =>
      index.retrieve(question, { ...opts, questionScope: values.scope === true }),
  };
}

const pct = (r: { hits: number; n: number; recall: number }) =>
  `${r.hits}/${r.n} (${Number.isNaN(r.recall) ? '-' : (100 * r.recall).toFixed(1)}%)`;

async function main(): Promise<number> {
  const embedders = (values.embedders as string).split(',').filter((e) => e !== '');
  for (const e of embedders) {
    if (!isEmbedderName(e)) {
      console.error(`retrieval-recall: unknown embedder "${e}"`);
      return 2;
    }
  }
  const sets = (values.sets as string).split(',');
  const work = await mkdtemp(join(tmpdir(), 'rge-recall-'));
  const given = resolve(values['cache-dir'] as string);
  const cacheDir = values.cold ? join(work, 'cache') : given;
  // a cold run still takes the extracted pages from the given cache: it times the embedding
  if (values.cold && existsSync(join(given, 'pages')))
    await cp(join(given, 'pages'), join(cacheDir, 'pages'), { recursive: true });
  const real: RealResult[] = [];
  const fixture: FixtureResult[] = [];
  try {
    for (const set of ['financebench', 'erc'] as const) {
      if (!sets.includes(set)) continue;
      const loaded = await realSet(set);
      if (!loaded) {
        console.error(`${set}: ${shared} is absent; skipped`);
        continue;
      }
      const docs = await documentsFromFolder(loaded.pdfs);
      for (const embedder of embedders as EmbedderName[]) {
        const indexDir = join(work, `${set}-${embedder}`);
        const started = performance.now();
        const report = await ingest(docs, { indexDir, embedder, cacheDir });
        const seconds = (performance.now() - started) / 1000;
        const index = scoped(await openIndex(indexDir));
        real.push({
          set,
          embedder,
          seconds,
          chunks: report.chunks,
          document: await pageRecallBySplit(index, loaded.questions, { k: K, scope: 'document' }),
          corpus: await pageRecallBySplit(index, loaded.questions, { k: K, scope: 'corpus' }),
        });
        const r = real[real.length - 1] as RealResult;
        console.error(
          `${set} ${embedder}: own filing dev ${pct(r.document.dev)}, test ${pct(r.document.test)}; ${seconds.toFixed(1)} s`,
        );
      }
    }
    if (sets.includes('fixture')) {
      const facts = await loadFacts(join(repo, 'fixtures/facts.json'));
      const questions = (await loadQuestions(join(repo, 'fixtures/questions.jsonl'))).map((r) => r.value);
      for (const embedder of embedders as EmbedderName[]) {
        const started = performance.now();
        const build = await buildFixtureCorpus({
          facts,
          pdfDir: join(work, 'fixture-pdfs'),
          indexDir: join(work, `fixture-${embedder}`),
          embedder,
          cacheDir,
        });
        const seconds = (performance.now() - started) / 1000;
        const index = scoped(await openIndex(join(work, `fixture-${embedder}`)));
        fixture.push({
          embedder,
          seconds,
          chunks: build.ingest.chunks,
          checksum: build.ingest.index?.checksum ?? '',
          byCategory: Object.fromEntries(await goldChunkRecallAtK(index, questions, K)),
        });
      }
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  if (values.json) {
    console.log(JSON.stringify({ k: K, real, fixture }, null, 2));
    return 0;
  }
  if (real.length > 0) {
    console.log(
      `page recall@${K}: own filing, and all filings of the set${values.scope ? ' (ranked in the company and year the question names)' : ''}`,
    );
    console.log(
      '| set | embedder | dev | test | all | dev, all filings | test, all filings | chunks | ingest s |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const r of real)
      console.log(
        `| ${r.set} | ${r.embedder} | ${pct(r.document.dev)} | ${pct(r.document.test)} | ${pct(r.document.all)} | ` +
          `${pct(r.corpus.dev)} | ${pct(r.corpus.test)} | ${r.chunks} | ${r.seconds.toFixed(1)} |`,
      );
    if (values.misses)
      for (const r of real)
        console.log(
          `misses ${r.set} ${r.embedder}: dev ${r.document.dev.misses.join(' ')} | test ${r.document.test.misses.join(' ')}`,
        );
  }
  if (fixture.length > 0) {
    console.log(
      `\nfixture world: a gold chunk in the top ${K} (question text, whole index${values.scope ? ', ranked in the company and year the question names' : ''})`,
    );
    const cats = [...new Set(fixture.flatMap((f) => Object.keys(f.byCategory)))].sort();
    console.log(`| embedder | ${cats.join(' | ')} | chunks | ingest s | checksum |`);
    console.log(`|---|${cats.map(() => '---|').join('')}---|---|---|`);
    for (const f of fixture)
      console.log(
        `| ${f.embedder} | ${cats
          .map((c) => {
            const x = f.byCategory[c];
            return x ? `${x.hits}/${x.questions} (${(100 * x.rate).toFixed(1)}%)` : '-';
          })
          .join(' | ')} | ${f.chunks} | ${f.seconds.toFixed(1)} | ${f.checksum.slice(0, 12)} |`,
      );
    if (values.misses)
      for (const f of fixture)
        for (const [c, x] of Object.entries(f.byCategory))
          console.log(`misses fixture ${f.embedder} ${c}: ${x.misses.join(' ')}`);
  }
  return 0;
}

process.exitCode = await main();
