import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Chunk } from '../corpus/schema.ts';
import type { GoldenFormat, ImportFormat, Question, ValidationReport } from '../questions/index.ts';
import type { RunConfig } from '../run/config/config.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import { readTextFile, writeFileAtomic } from '../util/fs.ts';
import { formatIssues, type JsonlIssue } from '../util/jsonl.ts';
import { type CliIO, existingPath } from './io.ts';
import { registerFromTracesCommand } from './questions-from-traces.ts';
import { registerGenerateCommand } from './questions-generate.ts';
import { registerQuestionReviewCommand } from './questions-review.ts';

const DEFAULTS = {
  questions: 'fixtures/questions.jsonl',
  index: 'data/index',
  config: 'configs/fixture.yaml',
} as const;

export function registerQuestionCommands(program: Command, io: CliIO): void {
  const questions = program.command('questions').description('validate and import question sets');
  registerValidateCommand(questions, io);
  registerImportCommand(questions, io);
  registerAuthorCommand(questions, io);
  registerGenerateCommand(questions, io);
  registerFromTracesCommand(questions, io);
  registerQuestionReviewCommand(questions, io);
}

interface ValidateFlags {
  questions?: string;
  config?: string;
  index?: string;
}

function registerValidateCommand(questions: Command, io: CliIO): void {
  questions
    .command('validate')
    .description(
      'check a questions file in one pass: schema, unique ids, one version, gold chunk ids in the index, ' +
        'gold quotes in their chunks; prints counts per category and every error as file:line: field: message',
    )
    .option(
      '--questions <file>',
      `questions JSONL (default: the config's questions.file, else ${DEFAULTS.questions})`,
    )
    .option(
      '--config <file>',
      `run config: supplies questions.file, questions.version and corpus.index (default ${DEFAULTS.config} when neither --questions nor --index is given)`,
    )
    .option(
      '--index <dir>',
      `built index folder (default: the config's corpus.index, else ${DEFAULTS.index})`,
    )
    .action((opts: ValidateFlags) => validateAction(io, opts));
}

/** What `rge questions validate` checks: the questions file, the run config if any, and the index. */
interface ValidationTarget {
  config: RunConfig | undefined;
  configFile: string | undefined;
  file: string;
  indexDir: string;
  /** no index named or found: gold chunk ids cannot be checked */
  noIndex: boolean;
}

async function validationTarget(io: CliIO, opts: ValidateFlags): Promise<ValidationTarget> {
  const { loadRunConfig } = await import('../run/config/config.ts');
  const at = (p: string) => resolve(io.cwd, p);
  // A run config's paths, once read, are relative to the folder rge runs in (see src/run/config/paths.ts).
  // No flags: the default config, when there is one here; else say what to pass.
  const configFile = opts.config ?? (opts.questions || opts.index ? undefined : DEFAULTS.config);
  if (!opts.config && configFile && !existsSync(at(configFile)))
    throw new UsageError(
      `no ${DEFAULTS.config} here: pass --config FILE, or --questions FILE and --index DIR`,
    );
  const config = configFile ? await loadRunConfig(at(configFile), { root: io.cwd }) : undefined;
  const file = opts.questions
    ? existingPath(io.cwd, '--questions', opts.questions, 'file')
    : at(config?.questions.file ?? DEFAULTS.questions);
  const indexDir = at(opts.index ?? config?.corpus?.index ?? DEFAULTS.index);
  // --questions alone and no index here, or a config of systems only (no corpus): check what needs none
  // (gold chunk ids are then errors)
  const noIndex =
    !opts.index && (config ? config.corpus === undefined : !existsSync(join(indexDir, 'manifest.json')));
  return { config, configFile, file, indexDir, noIndex };
}

async function validateAction(io: CliIO, opts: ValidateFlags): Promise<void> {
  const { loadIndexChunks, readQuestionLines, validateQuestions } = await import('../questions/index.ts');
  const { ensureCorpusIndex } = await import('../run/config/corpus-index.ts');
  const { config, configFile, file, indexDir, noIndex } = await validationTarget(io, opts);
  if (config?.corpus && !opts.index)
    await ensureCorpusIndex(config, (p) => resolve(io.cwd, p), {
      configFile,
      log: (l) => io.err(`${l}\n`),
    });
  const lines = await readQuestionLines(file);
  // gold chunk ids cannot be checked without the index: that needs one named
  if (noIndex && lines.some((l) => (l.question?.gold_chunk_ids.length ?? 0) > 0))
    throw new UsageError(
      config
        ? `the questions name gold chunks of rge's index, and ${configFile} has no corpus section (its subjects are systems): pass --index DIR to check them`
        : `${indexDir} (the default --index) is not a built index: pass --index DIR or --config FILE`,
    );
  const chunks = noIndex ? null : await loadIndexChunks(indexDir);
  const { readIndexManifest } = await import('../retrieval/store.ts');
  const manifest = noIndex ? null : await readIndexManifest(indexDir);
  const report = validateQuestions(lines, {
    chunks,
    indexChecksum: manifest?.checksum,
    ...(config ? { expectedVersion: config.questions.version } : {}),
  });
  await printValidation(io, report, { file, indexDir, noIndex });
}

/** The counts, traceability and every error; the first error, pointing at the list, as the thrown one. */
async function printValidation(
  io: CliIO,
  report: ValidationReport,
  where: { file: string; indexDir: string; noIndex: boolean },
): Promise<void> {
  const { formatCounts, formatTraceability, NO_QUESTIONS } = await import('../questions/index.ts');
  io.out(`${formatCounts(report)}\n`);
  // a set that says where its gold comes from (the fixture and imported sets do not)
  const t = report.traceability;
  if (t.xbrl + t.untraced + t.absent > 0) io.out(`${formatTraceability(report.traceability)}\n`);
  if (where.noIndex)
    io.out(`no index at ${relative(io.cwd, where.indexDir) || where.indexDir}: gold chunk ids not checked\n`);
  const shown = relative(io.cwd, where.file) || where.file;
  if (report.total === 0) throw new RgeError(NO_QUESTIONS, { file: shown });
  if (report.issues.length > 0) failWithIssues(io, shown, report.issues);
  io.out('ok: no errors\n');
}

/**
 * Every problem on stdout (`file:line: field: message`) and their count, then the first as the one
 * error line on stderr, pointing at the list.
 */
function failWithIssues(io: CliIO, shown: string, issues: readonly JsonlIssue[]): never {
  const [first] = issues;
  if (!first) throw new Error('failWithIssues needs at least one issue');
  io.out(`${formatIssues(shown, issues)}\n`);
  io.out(`${issues.length} error(s)\n`);
  const more = issues.length > 1 ? ` (first of ${issues.length} errors, listed above)` : '';
  throw new RgeError(`${first.field ? `${first.field}: ` : ''}${first.message}${more}`, {
    file: shown,
    line: first.line,
  });
}

interface ImportFlags {
  format: string;
  file?: string;
  index?: string;
  documents?: string;
  out?: string;
}

function registerImportCommand(questions: Command, io: CliIO): void {
  questions
    .command('import')
    .description(
      'convert a question set into rge questions: FinanceBench or Enterprise RAG Challenge questions, ' +
        'resolving gold evidence pages to chunks of a built index (only questions whose documents are in ' +
        'the index); or your own golden set (CSV or JSONL), every bad row listed as file:line: field: ' +
        'message, its gold quotes checked in the documents the rows name',
    )
    .argument(
      '[file]',
      'financebench_open_source.jsonl, ERC round1 questions.json (answers.json and dataset.csv beside it), or a golden set (.csv, .jsonl)',
    )
    .requiredOption(
      '--format <format>',
      'financebench | erc | golden (CSV or JSONL by extension) | golden-csv | golden-jsonl',
    )
    .option('--file <file>', 'the file to import (or give it as the argument)')
    .option('--index <dir>', 'financebench, erc: built index folder holding the documents')
    .option(
      '--documents <dir>',
      "golden: folder of the documents the rows' source column names (PDF, .txt, .md); each gold quote is checked in its document",
    )
    .option(
      '--out <file>',
      'questions JSONL to write (default data/questions/<format>.jsonl; golden.jsonl for golden)',
    )
    .action((file: string | undefined, opts: ImportFlags) => importAction(io, file, opts));
}

/** The file to import: the argument or --file (not two different ones), which must exist. */
function importFile(io: CliIO, argument: string | undefined, flag: string | undefined): string {
  if (argument !== undefined && flag !== undefined && argument !== flag)
    throw new UsageError(`two files to import: ${argument} and --file ${flag}; give one`);
  const file = argument ?? flag;
  if (file === undefined)
    throw new UsageError('no file to import: give it as the argument or with --file FILE');
  const at = resolve(io.cwd, file);
  if (!existsSync(at)) throw new UsageError('file not found', { file });
  return at;
}

async function importAction(io: CliIO, argument: string | undefined, opts: ImportFlags): Promise<void> {
  const { GOLDEN_FORMATS, IMPORT_FORMATS } = await import('../questions/index.ts');
  const golden = (GOLDEN_FORMATS as readonly string[]).includes(opts.format);
  if (!golden && !(IMPORT_FORMATS as readonly string[]).includes(opts.format))
    throw new UsageError(
      `unknown --format "${opts.format}" (financebench, erc, golden, golden-csv or golden-jsonl)`,
    );
  const file = importFile(io, argument, opts.file);
  if (golden) return goldenImportAction(io, file, opts as ImportFlags & { format: GoldenFormat });
  if (opts.documents !== undefined)
    throw new UsageError(
      `--documents is for a golden set; --format ${opts.format} resolves its gold in --index`,
    );
  if (opts.index === undefined)
    throw new UsageError(`--format ${opts.format} needs --index DIR, the built index holding its documents`);
  const { importQuestions, formatImportSummary, loadIndexChunks } = await import('../questions/index.ts');
  const format = opts.format as ImportFormat;
  const out = resolve(io.cwd, opts.out ?? `data/questions/${format}.jsonl`);
  const chunks = await loadIndexChunks(existingPath(io.cwd, '--index', opts.index, 'folder'));
  const { questions: imported, summary } = await importQuestions(format, file, chunks);
  await writeImported(out, imported, chunks);
  io.out(formatImportSummary(summary, relative(io.cwd, out) || out));
  if (imported.length === 0) io.exitCode = 1;
}

/**
 * Writes imported questions, all or nothing, once they validate: an importer's output that does not
 * is a bug in the importer, and must never land.
 */
async function writeImported(out: string, questions: readonly Question[], chunks: readonly Chunk[] | null) {
  const { parseQuestionLines, validateQuestions } = await import('../questions/index.ts');
  const jsonl = questions.map((q) => `${JSON.stringify(q)}\n`).join('');
  const report = validateQuestions(parseQuestionLines(jsonl), { chunks });
  if (report.issues.length > 0)
    throw new RgeError(
      `the imported questions do not validate (a bug in the importer):\n${formatIssues(out, report.issues)}`,
    );
  await writeFileAtomic(out, jsonl);
}

/** `rge questions import --format golden`: a user's golden set, every bad row listed, written whole or not at all. */
async function goldenImportAction(io: CliIO, file: string, opts: ImportFlags & { format: GoldenFormat }) {
  const { formatGoldenSummary, goldenFileKind, importGolden } = await import('../questions/index.ts');
  const shown = relative(io.cwd, file) || file;
  if (opts.index !== undefined)
    throw new UsageError(
      '--index is for financebench and erc; a golden set checks its gold quotes in --documents',
    );
  const kind = goldenFileKind(opts.format, file);
  if (kind === null)
    throw new UsageError(
      'cannot tell CSV from JSONL by the name (.csv, .jsonl): pass --format golden-csv or golden-jsonl',
      {
        file: shown,
      },
    );
  const documents =
    opts.documents === undefined ? null : existingPath(io.cwd, '--documents', opts.documents, 'folder');
  const imported = await importGolden({ text: await readTextFile(file), name: shown }, kind, documents);
  if (!imported.ok) return failWithIssues(io, shown, imported.issues);
  const out = resolve(io.cwd, opts.out ?? 'data/questions/golden.jsonl');
  await writeImported(out, imported.questions, null);
  io.out(formatGoldenSummary(imported.summary, relative(io.cwd, out) || out, opts.documents ?? null));
}

interface AuthorFlags {
  facts: string;
  untraced: string;
  out: string;
  check?: boolean;
}

function registerAuthorCommand(questions: Command, io: CliIO): void {
  questions
    .command('author')
    .description(
      'write the question set over the real reports from the audited XBRL figures of the facts file ' +
        '(45/45/65/45, seeded, unresolved: run `rge questions resolve` on the built index next)',
    )
    .option('--facts <file>', 'facts file with the XBRL figures', 'fixtures/facts.json')
    .option(
      '--untraced <file>',
      'figures of companies with no filing here',
      'data/questions/untraced-figures.json',
    )
    .option('--out <file>', 'questions file to write', 'data/questions/questions.jsonl')
    .option('--check', 'write nothing; exit 1 if the file differs from what would be written')
    .action((opts: AuthorFlags) => authorAction(io, opts));
}

async function authorAction(io: CliIO, opts: AuthorFlags): Promise<void> {
  const at = (p: string) => resolve(io.cwd, p);
  const written = await authoredQuestions(at(opts.facts), at(opts.untraced));
  const text = `${written.map((q) => JSON.stringify(q)).join('\n')}\n`;
  const out = at(opts.out);
  if (opts.check) {
    const current = existsSync(out) ? await readTextFile(out) : '';
    io.out(
      current === text ? `${opts.out} is up to date\n` : `${opts.out} differs from what would be written\n`,
    );
    if (current !== text) io.exitCode = 1;
    return;
  }
  await writeFileAtomic(out, text);
  io.out(`wrote ${written.length} questions to ${opts.out} (unresolved: run \`rge questions resolve\`)\n`);
}

/** The question set over the real reports, from the facts file's XBRL figures and the untraced ones. */
async function authoredQuestions(factsFile: string, untracedFile: string): Promise<Question[]> {
  const { authorQuestions, parseUntracedFigures } = await import('../questions/authoring.ts');
  const { Question } = await import('../questions/schema.ts');
  const { loadFacts } = await import('../fixtures/build.ts');
  const facts = await loadFacts(factsFile);
  const untraced = parseUntracedFigures(await readTextFile(untracedFile), untracedFile);
  const names = Object.fromEntries(facts.companies.map((c) => [c.slug, shortName(c.name)]));
  return authorQuestions({ names, facts: facts.numeric, untraced }).map((q) => Question.parse(q));
}

/** "Reliance Industries Limited" -> "Reliance Industries"; "One97 Communications Limited (Paytm)" -> "Paytm". */
function shortName(name: string): string {
  const aka = /\(([^)]+)\)$/.exec(name)?.[1];
  if (aka && !/renamed/.test(aka)) return aka;
  return name
    .replace(/\s*\(.*\)$/, '')
    .replace(/ and Special Economic Zone/, '')
    .replace(/ Limited$/, '')
    .trim();
}
