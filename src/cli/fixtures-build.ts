import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { Chunk } from '../corpus/schema.ts';
import type { Resolution } from '../questions/resolve.ts';
import type { EvidenceResolution } from '../questions/resolve-evidence.ts';
import type { Question } from '../questions/schema.ts';
import type { EmbedderName } from '../retrieval/index.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/fs.ts';
import type { Progress } from '../util/progress.ts';
import type { CliIO } from './io.ts';

/** The help's defaults; the actions import the fixture generators when they run (docs/adr/0012-cli-start-up.md). */
export const FIXTURE_DEFAULTS = {
  config: 'configs/fixture.yaml',
  facts: 'fixtures/facts.json',
  questions: 'fixtures/questions.jsonl',
  /** DEFAULT_CACHE_DIR of src/run/config/corpus-index.ts (test/cli/startup.test.ts checks it) */
  cacheDir: '.cache/rge',
};

interface Paths {
  chunking: { maxTokens: number; overlapTokens: number };
  pdfDir: string;
  index: string;
  embedder: EmbedderName;
  questions: string;
  /** what to run when the index is not built (`buildIndexHint`) */
  buildHint: string;
}

/** The corpus and question paths of a run config, overridable by flags. */
async function pathsFrom(
  io: CliIO,
  flags: { config: string; index?: string; embedder?: string },
): Promise<Paths> {
  const { loadRunConfig, withCorpus } = await import('../run/config/config.ts');
  const { isEmbedderName } = await import('../retrieval/index.ts');
  const { buildIndexHint } = await import('../run/config/corpus-index.ts');
  const at = (p: string) => resolve(io.cwd, p);
  const config = withCorpus(
    await loadRunConfig(at(flags.config), { root: io.cwd }),
    'the fixture world',
    flags.config,
  );
  const embedder = flags.embedder ?? config.corpus.embedder;
  if (!isEmbedderName(embedder)) throw new UsageError(`unknown embedder "${embedder}"`);
  return {
    chunking: { maxTokens: config.corpus.chunk_tokens, overlapTokens: config.corpus.overlap_tokens },
    pdfDir: at(config.corpus.pdfs),
    index: at(flags.index ?? config.corpus.index),
    embedder,
    questions: at(config.questions.file),
    buildHint: buildIndexHint(config, flags.config),
  };
}

async function indexedChunks(paths: Paths): Promise<Chunk[]> {
  const file = resolve(paths.index, 'chunks.json');
  if (!existsSync(file)) throw new RgeError(`no index at ${paths.index}; build it first: ${paths.buildHint}`);
  return JSON.parse(await readFile(file, 'utf8')) as Chunk[];
}

const toJsonl = (questions: readonly unknown[]) => `${questions.map((q) => JSON.stringify(q)).join('\n')}\n`;

export function registerFixtureBuildCommands(program: Command, io: CliIO): void {
  const fixtures = program.commands.find((c) => c.name() === 'fixtures') ?? program.command('fixtures');
  registerBuildCommand(fixtures, io);
  registerQuestionsCommand(fixtures, io);
  const questions = program.commands.find((c) => c.name() === 'questions') ?? program.command('questions');
  registerResolveCommand(questions, io);
}

interface BuildFlags {
  config: string;
  facts: string;
  index?: string;
  embedder?: string;
  cacheDir: string;
  quiet?: boolean;
}

function registerBuildCommand(fixtures: Command, io: CliIO): void {
  fixtures
    .command('build')
    .description('write the 20 fixture report PDFs from the facts file and index them (deterministic)')
    .option('--config <file>', 'run config naming the fixture corpus and index', FIXTURE_DEFAULTS.config)
    .option('--facts <file>', 'facts file', FIXTURE_DEFAULTS.facts)
    .option('--index <dir>', 'index folder (default: the config corpus.index)')
    .option('--embedder <name>', 'use-lite | bge-m3 | bm25 | hybrid (default: the config corpus.embedder)')
    .option('--cache-dir <dir>', 'cache of extracted pages and embeddings', FIXTURE_DEFAULTS.cacheDir)
    .option('-q, --quiet', 'no progress output')
    .action((flags: BuildFlags) => buildAction(io, flags));
}

/** `rge fixtures build`: the PDFs and their index, with a progress bar a stage (but chunking). */
async function buildAction(io: CliIO, flags: BuildFlags): Promise<void> {
  const { buildFixtureCorpus, loadFacts } = await import('../fixtures/build.ts');
  const { createProgress } = await import('../util/progress.ts');
  const paths = await pathsFrom(io, flags);
  const facts = await loadFacts(resolve(io.cwd, flags.facts));
  const bars = new Map<string, Progress>();
  const started = Date.now();
  const build = await buildFixtureCorpus({
    facts,
    pdfDir: paths.pdfDir,
    indexDir: paths.index,
    embedder: paths.embedder,
    cacheDir: resolve(io.cwd, flags.cacheDir),
    onStage: (stage, done, total) => {
      if (flags.quiet || stage === 'chunk') return;
      const bar = bars.get(stage) ?? createProgress({ total, label: stage });
      bars.set(stage, bar);
      bar.set(done);
    },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  io.out(
    `${build.files.length} fixture reports in ${build.pdfDir}; ${build.ingest.chunks} chunks indexed in ${paths.index} ` +
      `(${paths.embedder}) in ${seconds} s\nindex checksum ${build.ingest.index?.checksum}\n`,
  );
}

interface QuestionsFlags {
  config: string;
  facts: string;
  index?: string;
  out?: string;
  check?: boolean;
}

function registerQuestionsCommand(fixtures: Command, io: CliIO): void {
  fixtures
    .command('questions')
    .description(
      'generate the fixture question set from the facts and resolve its gold chunk ids in the index',
    )
    .option('--config <file>', 'run config naming the index and the questions file', FIXTURE_DEFAULTS.config)
    .option('--facts <file>', 'facts file', FIXTURE_DEFAULTS.facts)
    .option('--index <dir>', 'index folder (default: the config corpus.index)')
    .option('--out <file>', 'questions file to write (default: the config questions.file)')
    .option('--check', 'write nothing; exit 1 if the file differs from what would be generated')
    .action((flags: QuestionsFlags) => questionsAction(io, flags));
}

/** `rge fixtures questions`: generated from the facts, gold resolved in the index, written or checked. */
async function questionsAction(io: CliIO, flags: QuestionsFlags): Promise<void> {
  const { fixtureReports, loadFacts } = await import('../fixtures/build.ts');
  const { generateQuestions } = await import('../fixtures/questions.ts');
  const { FactIndex } = await import('../fixtures/fact-index.ts');
  const { resolveGoldChunks } = await import('../questions/resolve.ts');
  const { Question: QuestionSchema } = await import('../questions/schema.ts');
  const paths = await pathsFrom(io, flags);
  const out = flags.out ? resolve(io.cwd, flags.out) : paths.questions;
  const facts = await loadFacts(resolve(io.cwd, flags.facts));
  const drafts = generateQuestions(new FactIndex(facts), fixtureReports(facts));
  const resolutions = resolveGoldChunks(drafts, await indexedChunks(paths));
  const unresolved = resolutions.filter((r) => r.unresolvedQuotes.length > 0);
  if (unresolved.length > 0) {
    const lines = unresolved.map((r) => `  ${r.id}: ${r.unresolvedQuotes.join(' | ')}`);
    throw new RgeError(`gold quotes found in no chunk:\n${lines.join('\n')}`);
  }
  const questions = drafts.map((q, i) =>
    QuestionSchema.parse({ ...q, gold_chunk_ids: resolutions[i]?.goldChunkIds }),
  );
  const text = toJsonl(questions);
  if (flags.check) {
    const current = existsSync(out) ? await readFile(out, 'utf8') : '';
    if (current !== text) {
      io.err(`${out} is stale: run \`rge fixtures questions\` to regenerate it\n`);
      io.exitCode = 1;
      return;
    }
    io.out(`${out} is current (${questions.length} questions)\n`);
    return;
  }
  await writeFileAtomic(out, text);
  io.out(`${questions.length} questions written to ${out}\n`);
}

interface ResolveFlags {
  config: string;
  questions?: string;
  index?: string;
  write?: boolean;
}

function registerResolveCommand(questions: Command, io: CliIO): void {
  questions
    .command('resolve')
    .description(
      "resolve each question's gold to chunk ids of the built index: gold evidence patterns (a figure " +
        'with its line label, or a quote) where the question has them, else its gold quotes; lists every ' +
        'question it could not resolve with the nearest candidates (exit 1)',
    )
    .option('--config <file>', 'run config naming the index and the questions file', FIXTURE_DEFAULTS.config)
    .option('--questions <file>', 'questions file (default: the config questions.file)')
    .option('--index <dir>', 'index folder (default: the config corpus.index)')
    .option('--write', 'rewrite the questions file with the resolved gold (otherwise only report)')
    .action((flags: ResolveFlags) => resolveAction(io, flags));
}

/** A question with its gold resolved, whether that changed it, and the problem if it did not resolve. */
interface Resolved {
  question: Question;
  changed: boolean;
  problem: string | null;
}

/** By gold evidence patterns: the chunks, quotes and index they resolved on, or nothing (unresolved). */
function resolvedByEvidence(
  q: Question,
  r: EvidenceResolution | undefined,
  checksum: string | null,
  where: string,
  describe: (u: EvidenceResolution['unresolved'][number]) => string,
): Resolved {
  const ok = r !== undefined && r.unresolved.length === 0 && r.goldChunkIds.length > 0;
  const question: Question = ok
    ? { ...q, gold_chunk_ids: r.goldChunkIds, gold_quotes: r.quotes, resolved_on: checksum }
    : { ...q, gold_chunk_ids: [], gold_quotes: [], resolved_on: null };
  return {
    question,
    changed: JSON.stringify(question) !== JSON.stringify(q),
    problem: ok
      ? null
      : `${where}: ${q.id}: gold_evidence:\n${(r?.unresolved ?? []).map(describe).join('\n')}`,
  };
}

/** By gold quotes: the chunks that hold them. */
function resolvedByQuotes(q: Question, r: Resolution | undefined, where: string): Resolved {
  const ids = r?.goldChunkIds ?? [];
  return {
    question: { ...q, gold_chunk_ids: ids },
    changed: ids.join() !== [...q.gold_chunk_ids].sort().join(),
    problem:
      r && r.unresolvedQuotes.length > 0
        ? `${where}: gold_quotes: not found in any chunk of the index: ${r.unresolvedQuotes.join(' | ')}`
        : null,
  };
}

/** `rge questions resolve`: every question's gold, by its evidence patterns where it has them, else its quotes. */
async function resolveAction(io: CliIO, flags: ResolveFlags): Promise<void> {
  const { resolveGoldChunks } = await import('../questions/resolve.ts');
  const { describeUnresolved, resolveEvidence } = await import('../questions/resolve-evidence.ts');
  const { Question: QuestionSchema } = await import('../questions/schema.ts');
  const { readIndexManifest } = await import('../retrieval/store.ts');
  const { readJsonl } = await import('../util/jsonl.ts');
  const paths = await pathsFrom(io, flags);
  const file = flags.questions ? resolve(io.cwd, flags.questions) : paths.questions;
  const records = await readJsonl(file, QuestionSchema);
  const questions: Question[] = records.map((r) => r.value);
  const chunks = await indexedChunks(paths);
  const checksum = (await readIndexManifest(paths.index))?.checksum ?? null;
  const byQuotes = resolveGoldChunks(questions, chunks);
  const byEvidence = resolveEvidence(questions, chunks);
  const resolved = questions.map((q, i): Resolved => {
    const where = `${file}:${records[i]?.line}`;
    return q.gold_evidence !== undefined && q.category !== 'out-of-domain'
      ? resolvedByEvidence(q, byEvidence[i], checksum, where, describeUnresolved)
      : resolvedByQuotes(q, byQuotes[i], where);
  });
  const changed = resolved.filter((r) => r.changed).length;
  const problems = resolved.flatMap((r) => (r.problem === null ? [] : [r.problem]));
  for (const p of problems) io.err(`${p}\n`);
  io.out(
    `${questions.length} questions, ${changed} with changed gold, ${problems.length} unresolved (index ${checksum?.slice(0, 12) ?? 'without checksum'})\n`,
  );
  // resolved questions are written even when others are not: those stay unresolved (resolved_on null)
  if (flags.write && changed > 0) await writeFileAtomic(file, toJsonl(resolved.map((r) => r.question)));
  if (problems.length > 0 || (!flags.write && changed > 0)) io.exitCode = 1;
}
