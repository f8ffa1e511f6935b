import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import {
  formatCounts,
  formatImportSummary,
  IMPORT_FORMATS,
  type ImportFormat,
  importQuestions,
  loadIndexChunks,
  parseQuestionLines,
  readQuestionLines,
  validateQuestions,
} from '../questions/index.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/fs.ts';
import { formatIssues } from '../util/jsonl.ts';
import type { CliIO } from './io.ts';

const DEFAULTS = {
  questions: 'fixtures/questions.jsonl',
  index: 'data/index',
} as const;

/** The fields of a run config that the questions commands need. */
interface QuestionsConfigFields {
  corpusIndex?: string;
  questionsFile?: string;
  questionsVersion?: number;
}

/**
 * Reads `corpus.index` and `questions.{file,version}` from a run config.
 * TODO: replace with `loadRunConfig(path)` from src/run/config.ts once it lands (it validates the whole
 * config; this reads only the three fields the questions commands need).
 */
async function readQuestionsConfig(path: string): Promise<QuestionsConfigFields> {
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new RgeError(err.code === 'ENOENT' ? 'config file not found' : err.message, { file: path });
  });
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new RgeError(`invalid YAML (${(err as Error).message})`, { file: path });
  }
  const obj = (x: unknown): Record<string, unknown> =>
    typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : {};
  const corpus = obj(obj(doc).corpus);
  const questions = obj(obj(doc).questions);
  const fields: QuestionsConfigFields = {};
  if (corpus.index !== undefined) {
    if (typeof corpus.index !== 'string')
      throw new RgeError('corpus.index must be a folder path', { file: path });
    fields.corpusIndex = corpus.index;
  }
  if (questions.file !== undefined) {
    if (typeof questions.file !== 'string')
      throw new RgeError('questions.file must be a file path', { file: path });
    fields.questionsFile = questions.file;
  }
  if (questions.version !== undefined) {
    if (
      typeof questions.version !== 'number' ||
      !Number.isInteger(questions.version) ||
      questions.version < 1
    )
      throw new RgeError('questions.version must be a positive integer', { file: path });
    fields.questionsVersion = questions.version;
  }
  return fields;
}

export function registerQuestionCommands(program: Command, io: CliIO): void {
  const questions = program.command('questions').description('validate and import question sets');

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
    .option('--config <file>', 'run config: supplies questions.file, questions.version and corpus.index')
    .option(
      '--index <dir>',
      `built index folder (default: the config's corpus.index, else ${DEFAULTS.index})`,
    )
    .action(async (opts: { questions?: string; config?: string; index?: string }) => {
      const at = (p: string) => resolve(io.cwd, p);
      const config = opts.config ? await readQuestionsConfig(at(opts.config)) : {};
      // Paths in a config are relative to the working folder, as for every rge command.
      const file = at(opts.questions ?? config.questionsFile ?? DEFAULTS.questions);
      const indexDir = at(opts.index ?? config.corpusIndex ?? DEFAULTS.index);
      const lines = await readQuestionLines(file);
      const chunks = await loadIndexChunks(indexDir);
      const report = validateQuestions(lines, {
        chunks,
        ...(config.questionsVersion !== undefined ? { expectedVersion: config.questionsVersion } : {}),
      });
      io.out(`${formatCounts(report)}\n`);
      const shown = relative(io.cwd, file) || file;
      if (report.issues.length > 0) {
        io.out(`${formatIssues(shown, report.issues)}\n`);
        io.out(`${report.issues.length} error(s)\n`);
        io.exitCode = 1;
      } else io.out('ok: no errors\n');
    });

  questions
    .command('import')
    .description(
      'convert FinanceBench or Enterprise RAG Challenge questions into rge questions, resolving gold ' +
        'evidence pages to chunks of a built index (only questions whose documents are in the index)',
    )
    .argument(
      '<file>',
      'financebench_open_source.jsonl, or ERC round1 questions.json (answers.json and dataset.csv beside it)',
    )
    .requiredOption('--format <format>', 'financebench | erc')
    .requiredOption('--index <dir>', 'built index folder holding the documents')
    .option('--out <file>', 'questions JSONL to write (default data/questions/<format>.jsonl)')
    .action(async (file: string, opts: { format: string; index: string; out?: string }) => {
      if (!(IMPORT_FORMATS as readonly string[]).includes(opts.format))
        throw new UsageError(`unknown --format "${opts.format}" (financebench or erc)`);
      const format = opts.format as ImportFormat;
      const at = (p: string) => resolve(io.cwd, p);
      const out = at(opts.out ?? `data/questions/${format}.jsonl`);
      const chunks = await loadIndexChunks(at(opts.index));
      const { questions: imported, summary } = await importQuestions(format, at(file), chunks);
      const jsonl = imported.map((q) => `${JSON.stringify(q)}\n`).join('');
      // The importer's output must validate; check before writing so that a bad file never lands.
      const report = validateQuestions(parseQuestionLines(jsonl), { chunks });
      if (report.issues.length > 0)
        throw new RgeError(
          `the imported questions do not validate (a bug in the importer):\n${formatIssues(out, report.issues)}`,
        );
      await writeFileAtomic(out, jsonl);
      io.out(formatImportSummary(summary, relative(io.cwd, out) || out));
      if (imported.length === 0) io.exitCode = 1;
    });
}
