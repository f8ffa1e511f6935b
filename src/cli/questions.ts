import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { ImportFormat } from '../questions/index.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/fs.ts';
import { formatIssues } from '../util/jsonl.ts';
import type { CliIO } from './io.ts';

const DEFAULTS = {
  questions: 'fixtures/questions.jsonl',
  index: 'data/index',
  config: 'configs/fixture.yaml',
} as const;

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
    .option(
      '--config <file>',
      `run config: supplies questions.file, questions.version and corpus.index (default ${DEFAULTS.config} when neither --questions nor --index is given)`,
    )
    .option(
      '--index <dir>',
      `built index folder (default: the config's corpus.index, else ${DEFAULTS.index})`,
    )
    .action(async (opts: { questions?: string; config?: string; index?: string }) => {
      const { formatCounts, loadIndexChunks, NO_QUESTIONS, readQuestionLines, validateQuestions } =
        await import('../questions/index.ts');
      const { loadRunConfig } = await import('../run/config.ts');
      const { ensureCorpusIndex } = await import('../run/corpus-index.ts');
      const at = (p: string) => resolve(io.cwd, p);
      // A run config's paths are relative to the folder rge runs in (see src/run/config.ts).
      // No flags: the default config, when there is one here; else say what to pass.
      const configFile = opts.config ?? (opts.questions || opts.index ? undefined : DEFAULTS.config);
      if (!opts.config && configFile && !existsSync(at(configFile)))
        throw new UsageError(
          `no ${DEFAULTS.config} here: pass --config FILE, or --questions FILE and --index DIR`,
        );
      const config = configFile ? await loadRunConfig(at(configFile)) : undefined;
      const file = at(opts.questions ?? config?.questions.file ?? DEFAULTS.questions);
      const indexDir = at(opts.index ?? config?.corpus.index ?? DEFAULTS.index);
      if (opts.questions && !existsSync(file)) throw new UsageError('file not found', { file });
      if (!opts.index && !config && !existsSync(join(indexDir, 'manifest.json')))
        throw new UsageError(
          `${indexDir} (the default --index) is not a built index: pass --index DIR or --config FILE`,
        );
      if (config && !opts.index) await ensureCorpusIndex(config, at, { log: (l) => io.err(`${l}\n`) });
      const lines = await readQuestionLines(file);
      const chunks = await loadIndexChunks(indexDir);
      const report = validateQuestions(lines, {
        chunks,
        ...(config ? { expectedVersion: config.questions.version } : {}),
      });
      io.out(`${formatCounts(report)}\n`);
      const shown = relative(io.cwd, file) || file;
      if (report.total === 0) throw new RgeError(NO_QUESTIONS, { file: shown });
      const [first] = report.issues;
      if (first) {
        io.out(`${formatIssues(shown, report.issues)}\n`);
        io.out(`${report.issues.length} error(s)\n`);
        // one error line on stderr: the first, pointing at the full list above
        const more =
          report.issues.length > 1 ? ` (first of ${report.issues.length} errors, listed above)` : '';
        throw new RgeError(`${first.field ? `${first.field}: ` : ''}${first.message}${more}`, {
          file: shown,
          line: first.line,
        });
      }
      io.out('ok: no errors\n');
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
      const {
        formatImportSummary,
        IMPORT_FORMATS,
        importQuestions,
        loadIndexChunks,
        parseQuestionLines,
        validateQuestions,
      } = await import('../questions/index.ts');
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
