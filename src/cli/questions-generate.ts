/**
 * `rge questions generate`: candidate questions from a folder of documents or a built index, each
 * verified against the documents before it is kept (src/questions/generate/). Writes the questions
 * (which `rge questions validate` passes), the rejections with their reasons, and the generation report;
 * when nothing is kept it writes no questions file and exits non-zero with the counts by reason.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { RgeError, UsageError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/fs.ts';
import { type CliIO, existingPath, positiveInteger } from './io.ts';

export interface GenerateFlags {
  documents?: string;
  index?: string;
  out: string;
  generator: string;
  config?: string;
  count: string;
  mix?: string;
  seed: string;
  maxShare?: string;
  perTask?: string;
  similarity: string;
  indexDir?: string;
  cacheDir: string;
  resultsDir: string;
  capUsd?: string;
  dryRun?: boolean;
  judge?: string;
}

export function registerGenerateCommand(questions: Command, io: CliIO): void {
  questions
    .command('generate')
    .description(
      'generate candidate questions from your own documents (a folder of PDF, Markdown, HTML and text, ' +
        'or a built index) and keep only those verified against the documents: quotes found and resolved ' +
        'to chunks, answers supported, no leak, multihop over two chunks, premises contradicted, ' +
        'out-of-domain terms absent from the top k, no near-duplicates, coverage across documents, language',
    )
    .option('--documents <dir>', 'folder of documents (PDF, .md, .html, .txt); an index of them is built')
    .option('--index <dir>', 'a built rge index instead of a documents folder')
    .requiredOption(
      '--out <file>',
      'questions JSONL to write (the report and rejections are written beside it)',
    )
    .option('--generator <id>', "offline (no key: a seed set), or a model id of --config's models", 'offline')
    .option(
      '--config <file>',
      'run config: its models (for --generator), budget cap and subjects (self-preference)',
    )
    .option('--count <n>', 'questions to keep', '40')
    .option(
      '--mix <weights>',
      "categories: direct=N,multihop=N,adversarial=N,ood=N (default the methodology's 45/45/65/45)",
    )
    .option('--seed <seed>', 'seed of the plan and the offline templates (recorded)', 'rge-generate-v1')
    .option(
      '--max-share <f>',
      'a document keeps at most this share of a category (default: twice an equal share)',
    )
    .option('--per-task <n>', 'candidates asked of a generator per task (default 2 for a model, 3 offline)')
    .option(
      '--similarity <kind>',
      'near-duplicates by use-lite embeddings and words, or lexical (words only)',
      'use-lite',
    )
    .option('--index-dir <dir>', 'with --documents: where to build the index (default: beside --out)')
    .option('--cache-dir <dir>', 'cache of extracted pages and embeddings', '.cache/rge')
    .option('--results-dir <dir>', "a model generator's stored calls and ledger", '.rge/generate')
    .option('--cap-usd <usd>', "a model generator's spending cap (default: the config's budget.cap_usd)")
    .option('--dry-run', 'a model generator: print the tasks and the estimate; call nothing')
    .option(
      '--judge <id>',
      'a live judge or subject of --config, of another family than the generator: it confirms each kept question is answerable from its quotes, unambiguous and answered correctly (the optional last check)',
    )
    .action((flags: GenerateFlags) => generateAction(io, flags));
}

/** The number `--max-share` gives, in (0, 1]. */
function parseShare(value: string | undefined): number | null {
  if (value === undefined) return null;
  const x = Number(value);
  if (!(x > 0 && x <= 1)) throw new UsageError(`--max-share must be a number in (0, 1], got ${value}`);
  return x;
}

/** A model generator needs `--config`, and only a model generator has a dry run: said before any document is read. */
function assertGeneratorFlags(flags: GenerateFlags): void {
  if (flags.dryRun && (flags.generator === 'offline' || flags.config === undefined))
    throw new UsageError('--dry-run estimates a model generator: pass --generator MODEL_ID --config FILE');
  if (flags.generator !== 'offline' && flags.config === undefined)
    throw new UsageError(
      `--generator ${flags.generator} is a model id: pass --config FILE, whose subjects or judges name it`,
    );
}

/** Where the report and the rejections go: beside the questions, named after them. */
export function besideOut(out: string): { report: string; reportJson: string; rejected: string } {
  const stem = join(dirname(out), basename(out, extname(out)));
  return {
    report: `${stem}.report.md`,
    reportJson: `${stem}.report.json`,
    rejected: `${stem}.rejected.jsonl`,
  };
}

async function generateAction(io: CliIO, flags: GenerateFlags): Promise<void> {
  if ((flags.documents === undefined) === (flags.index === undefined))
    throw new UsageError(
      'generate from a documents folder (--documents DIR) or a built index (--index DIR): one of them',
    );
  if (!['use-lite', 'lexical'].includes(flags.similarity))
    throw new UsageError(`--similarity must be use-lite or lexical, got ${flags.similarity}`);
  const { categoryTargets, DEFAULT_MIX, parseMix } = await import('../questions/generate/plan.ts');
  const count = positiveInteger('count', flags.count) as number;
  const targets = categoryTargets(count, parseMix(flags.mix ?? DEFAULT_MIX));
  const maxShare = parseShare(flags.maxShare);
  assertGeneratorFlags(flags);
  const out = resolve(io.cwd, flags.out);
  const source = await openSource(io, flags, out);
  if (flags.dryRun)
    return dryRun(io, flags, source, {
      targets,
      seed: flags.seed,
      perTask: positiveInteger('per-task', flags.perTask) ?? 2,
      overGenerate: 2,
    });
  const { generator, perTask, overGenerate, warnings } = await openGenerator(io, flags);
  const { generateQuestions } = await import('../questions/generate/run.ts');
  const judge = flags.judge !== undefined ? await openJudge(io, flags, generator.ref.family) : null;
  const result = await generateQuestions({
    chunks: source.chunks,
    indexChecksum: source.checksum,
    generator,
    targets,
    seed: flags.seed,
    perTask: positiveInteger('per-task', flags.perTask) ?? perTask,
    overGenerate,
    maxShare,
    retrievers: source.retrievers,
    ...(source.pages ? { pages: source.pages } : {}),
    ...(source.pageless ? { pageless: source.pageless } : {}),
    ...(source.languages ? { languages: source.languages } : {}),
    ...(source.detectLanguage ? { detectLanguage: source.detectLanguage } : {}),
    ...(flags.similarity === 'use-lite' ? { embed: await sentenceEmbedder() } : {}),
    ...(judge ? { judge: (v) => judge.confirm(v) } : {}),
    warnings: [...warnings, ...source.warnings],
    onTask: (o, done, total) => {
      if (o.problem) io.err(`rge: ${o.problem.task}: ${o.problem.message}\n`);
      if (done === total || done % 50 === 0) io.err(`rge: generated ${done}/${total} tasks\n`);
    },
  }).finally(() => judge?.ledger.writeSummary());
  await writeOutputs(io, out, result);
}

/** A use-lite sentence embedder for the near-duplicate rule (loaded once, offline). */
export async function sentenceEmbedder(): Promise<(texts: readonly string[]) => Promise<Float32Array[]>> {
  const { createEmbedder } = await import('../retrieval/index.ts');
  const e = await createEmbedder('use-lite');
  if (e.kind !== 'dense') throw new Error('use-lite is a dense embedder');
  return (texts) => e.embedPassages(texts);
}

export type Result = Awaited<ReturnType<typeof import('../questions/generate/run.ts').generateQuestions>>;

/** The questions (only when some are kept and all validate), the rejections and the report. */
export async function writeOutputs(io: CliIO, out: string, result: Result): Promise<void> {
  const { formatGenerationReport, formatReasons } = await import('../questions/generate/report.ts');
  const files = besideOut(out);
  const shown = (p: string) => relative(io.cwd, p) || p;
  await writeFileAtomic(files.rejected, result.rejections.map((r) => `${JSON.stringify(r)}\n`).join(''));
  await writeFileAtomic(files.reportJson, `${JSON.stringify(result.report, null, 2)}\n`);
  await writeFileAtomic(files.report, formatGenerationReport(result.report));
  const r = result.report;
  io.out(
    `candidates ${r.candidates}, kept ${r.kept}, rejected ${r.rejected} (${formatReasons(r.byReason)}); report ${shown(files.report)}\n`,
  );
  if (result.invalid.length > 0) {
    const first = result.invalid[0];
    throw new RgeError(
      `${result.invalid.length} generated question(s) fail the validator (first: line ${first?.line}: ${first?.field}: ${first?.message}); nothing written to ${shown(out)}`,
    );
  }
  if (result.questions.length === 0)
    throw new RgeError(
      `no question kept of ${r.candidates} candidate(s) from ${r.tasks} task(s): rejected ${formatReasons(r.byReason)}` +
        `${r.problems.length > 0 ? `; ${r.problems.length} task(s) without candidates` : ''}; no questions file written (see ${shown(files.report)})`,
    );
  await writeFileAtomic(out, result.questions.map((q) => `${JSON.stringify(q)}\n`).join(''));
  io.out(`wrote ${result.questions.length} question(s) to ${shown(out)}\n`);
  for (const w of r.warnings) io.err(`rge: warning: ${w}\n`);
}

/** What a plan needs besides the chunks. */
interface PlanInput {
  targets: Record<import('../questions/schema.ts').QuestionCategory, number>;
  seed: string;
  perTask: number;
  overGenerate: number;
}

/** The chunks to generate from, their documents' pages and languages when read here, and the retrievers. */
export interface Source {
  chunks: import('../corpus/schema.ts').Chunk[];
  checksum: string | null;
  retrievers: import('../questions/generate/verify/checks.ts').TopK[];
  pages?: Map<string, { page: number; text: string }[]>;
  pageless?: (source: string) => boolean;
  languages?: Map<string, string | null>;
  detectLanguage?: (text: string) => { language: string | null; reliable: boolean };
  warnings: string[];
}

export async function openSource(io: CliIO, flags: GenerateFlags, out: string): Promise<Source> {
  if (flags.documents !== undefined) return documentsSource(io, flags, out);
  const dir = existingPath(io.cwd, '--index', flags.index as string, 'folder');
  if (!existsSync(join(dir, 'manifest.json')))
    throw new UsageError('not a built index (no manifest.json)', { file: flags.index });
  const { openIndex } = await import('../retrieval/store.ts');
  const { loadIndexChunks } = await import('../questions/load.ts');
  const { bm25TopK, indexTopK } = await import('../run/generate/retrievers.ts');
  const index = await openIndex(dir);
  const chunks = await loadIndexChunks(dir);
  const retrievers = [bm25TopK(chunks)];
  if (index.manifest.embedder?.name !== 'bm25') retrievers.push(indexTopK(index));
  return { chunks, checksum: index.checksum, retrievers, warnings: [] };
}

/**
 * A documents folder: read (PDF, Markdown, HTML, text; each file left out named on stderr), indexed
 * with BM25 in `--index-dir` (default beside the questions), with each document's pages and language.
 */
async function documentsSource(io: CliIO, flags: GenerateFlags, out: string): Promise<Source> {
  const dir = existingPath(io.cwd, '--documents', flags.documents as string, 'folder');
  const { ingestSourceFolder } = await import('../ingest/source-folder.ts');
  const { detectLanguage } = await import('../corpus/formats/language.ts');
  const { loadIndexChunks } = await import('../questions/load.ts');
  const { bm25TopK } = await import('../run/generate/retrievers.ts');
  const indexDir = resolve(
    io.cwd,
    flags.indexDir ?? join(dirname(out), `${basename(out, extname(out))}.index`),
  );
  const { report, documents, problems } = await ingestSourceFolder(dir, {
    indexDir,
    embedder: 'bm25',
    cacheDir: resolve(io.cwd, flags.cacheDir),
  });
  for (const p of problems) io.err(`rge: ${join(flags.documents as string, p.file)}: ${p.message}\n`);
  for (const d of report.documents.filter((x) => x.status === 'failed'))
    io.err(`rge: ${join(flags.documents as string, d.source)}: ${d.error ?? 'not ingested'}\n`);
  if (!report.index) throw new RgeError(`no document of ${flags.documents} could be indexed`);
  const chunks = await loadIndexChunks(indexDir);
  const kinds = new Map(documents.map((d) => [d.source, d.kind]));
  io.err(
    `rge: ${documents.length} document(s), ${chunks.length} chunks indexed in ${relative(io.cwd, indexDir) || indexDir}\n`,
  );
  const warnings: string[] = [];
  const languages = new Map(documents.map((d) => [d.source, d.language]));
  const distinct = [...new Set([...languages.values()].filter((l) => l !== null))];
  if (distinct.length > 1)
    warnings.push(
      `the documents are in ${distinct.length} languages (${distinct.join(', ')}): each question is checked against its own document's`,
    );
  if (documents.length === 1) warnings.push('one document: coverage across documents cannot be shown');
  return {
    chunks,
    checksum: report.index.checksum,
    retrievers: [bm25TopK(chunks)],
    pages: new Map(documents.map((d) => [d.source, d.pages])),
    pageless: (source) => kinds.get(source) !== 'pdf',
    languages,
    detectLanguage,
    warnings,
  };
}

interface OpenedGenerator {
  generator: import('../questions/generate/generator.ts').QuestionGenerator;
  perTask: number;
  overGenerate: number;
  warnings: string[];
}

/** The run config `--config` names (required for a model generator). */
async function loadConfig(io: CliIO, flags: GenerateFlags) {
  if (flags.config === undefined) return null;
  const { loadRunConfig } = await import('../run/config/config.ts');
  const file = existingPath(io.cwd, '--config', flags.config, 'file');
  return { config: await loadRunConfig(file, { root: io.cwd }), file };
}

/** Self-preference: the subjects of the config of the generator's family. */
function selfPreference(family: string, subjects: readonly { id: string; family: string }[]): string[] {
  const same = subjects.filter((s) => s.family === family);
  return same.length === 0
    ? []
    : [
        `the generator is of the ${family} family, like the subject(s) ${same.map((s) => s.id).join(', ')}: a model may prefer questions of its own family (self-preference); compare them with a generator of another family`,
      ];
}

async function openGenerator(io: CliIO, flags: GenerateFlags): Promise<OpenedGenerator> {
  const loaded = await loadConfig(io, flags);
  const subjects = loaded?.config.subjects ?? [];
  if (flags.generator === 'offline') {
    const { OfflineGenerator } = await import('../questions/generate/offline.ts');
    return {
      generator: new OfflineGenerator(flags.seed),
      perTask: 3,
      overGenerate: 8,
      warnings: [
        'the offline generator writes a seed set (extractive, templated): review it before it gates anything',
      ],
    };
  }
  if (!loaded) throw new Error('assertGeneratorFlags: a model generator has --config');
  const { modelGeneratorFromConfig } = await import('../run/generate/index.ts');
  const capUsd = flags.capUsd === undefined ? undefined : Number(flags.capUsd);
  if (capUsd !== undefined && !(capUsd >= 0))
    throw new UsageError(`--cap-usd must be a non-negative number, got ${flags.capUsd}`);
  const generator = await modelGeneratorFromConfig(loaded.config, flags.generator, {
    root: io.cwd,
    resultsDir: resolve(io.cwd, flags.resultsDir),
    configFile: relative(io.cwd, loaded.file) || loaded.file,
    ...(capUsd !== undefined ? { capUsd } : {}),
    ...(io.env ? { env: io.env } : {}),
    log: (line: string) => io.err(`rge: ${line}\n`),
  });
  return { generator, perTask: 2, overGenerate: 2, warnings: selfPreference(generator.ref.family, subjects) };
}

/** `--dry-run`: the tasks a model generator would be asked (those not stored) and what they would cost; nothing is called. */
async function dryRun(io: CliIO, flags: GenerateFlags, source: Source, plan: PlanInput): Promise<void> {
  const loaded = await loadConfig(io, flags);
  if (!loaded) throw new Error('assertGeneratorFlags: a dry run has --config');
  const spec = [...loaded.config.subjects, ...loaded.config.judges].find((e) => e.id === flags.generator);
  if (!spec)
    throw new UsageError(`--generator ${flags.generator} is not a subject or judge of ${flags.config}`);
  const { planTasks } = await import('../questions/generate/plan.ts');
  const { estimateGeneration, storedGeneration } = await import('../run/generate/index.ts');
  const tasks = planTasks({
    chunks: source.chunks,
    ...plan,
    ...(source.languages ? { languages: source.languages } : {}),
  });
  // a cell an earlier run stored is reused, not asked: only the others are estimated
  const e = estimateGeneration(tasks, spec, {
    seed: loaded.config.seed,
    isStored: storedGeneration(resolve(io.cwd, flags.resultsDir), spec),
  });
  io.out(
    `dry run: ${tasks.length} task(s), ${e.calls} call(s) to ${spec.provider}/${spec.model}: about ${e.inputTokens} input and ${e.outputTokens} output tokens, ` +
      `$${e.usd.toFixed(4)} expected, $${e.worstUsd.toFixed(4)} at worst (the cap holds the worst case); nothing called\n`,
  );
}

type ConfirmationJudge = import('../run/generate/confirm.ts').ConfirmationJudge;
type BudgetLedgerType = import('../store/ledger.ts').BudgetLedger;

/** `--judge ID`: the confirmation judge, a live model of the config of another family than the generator. */
async function openJudge(
  io: CliIO,
  flags: GenerateFlags,
  generatorFamily: string,
): Promise<{ confirm: ConfirmationJudge['confirm']; ledger: BudgetLedgerType }> {
  const loaded = await loadConfig(io, flags);
  if (!loaded) throw new UsageError('--judge ID names a model of the config: pass --config FILE');
  const spec = [...loaded.config.judges, ...loaded.config.subjects].find((e) => e.id === flags.judge);
  if (!spec) throw new UsageError(`--judge ${flags.judge} is not a judge or subject of ${flags.config}`);
  const { openConfirmationJudge } = await import('../run/generate/confirm.ts');
  const { BudgetLedger } = await import('../store/ledger.ts');
  const { environment } = await import('../providers/credentials.ts');
  const capUsd = flags.capUsd === undefined ? loaded.config.budget.cap_usd : Number(flags.capUsd);
  const resultsDir = resolve(io.cwd, flags.resultsDir);
  const ledger = new BudgetLedger(resultsDir, {
    capUsd,
    warnUsd: Math.min(loaded.config.budget.warn_usd, capUsd),
    configFile: relative(io.cwd, loaded.file) || loaded.file,
    onWarn: (m) => io.err(`rge: ${m}\n`),
  });
  const judge = await openConfirmationJudge(
    {
      spec,
      resultsDir,
      ledger,
      registry: {
        root: io.cwd,
        env: io.env ?? environment(io.cwd),
        settings: loaded.config.providers,
        onRetry: (m) => io.err(`rge: ${m}\n`),
      },
    },
    generatorFamily,
  );
  // its calls are settled one by one; the ledger's summary is written once, when the run ends
  return { confirm: (v) => judge.confirm(v), ledger };
}
