/**
 * `rge judge agree`: judges against human-labelled files (AttributionBench, SALAD, FinanceBench answers).
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import {
  AGREEMENT_FORMATS,
  type AgreementFormat,
  type AgreementItem,
  type AgreementReport,
  agreement,
  attributionBenchItems,
  deterministicSample,
  financeBenchItems,
  formatAgreement,
  judgeItems,
  saladDocsFileName,
  saladItems,
} from '../judging/agree.ts';
import { HEURISTIC_JUDGES, type HeuristicJudgeName, heuristicJudge } from '../providers/heuristic/index.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import type { CliIO } from './io.ts';
import { readText } from './judge.ts';

export function registerJudgeAgreeCommand(judge: Command, io: CliIO): void {
  judge
    .command('agree')
    .description('run offline judges over a human-labelled file: n, Cohen kappa, accuracy, confusion matrix')
    .requiredOption('--format <format>', `one of ${AGREEMENT_FORMATS.join(', ')}`)
    .requiredOption('--file <file>', 'the labelled file (financebench: a file or a folder of them)')
    .option('--judge <name>', `${HEURISTIC_JUDGES.join(' or ')}; default both`)
    .option(
      '--docs <file>',
      'salad: the documents file (default docs-webgpt.json or docs-human.json beside --file)',
    )
    .option(
      '--questions <file>',
      'financebench: financebench_open_source.jsonl (default ../../corpus/financebench/ from the labels folder)',
    )
    .option('--limit <n>', 'judge a deterministic subsample of n items')
    .option('--json', 'print the reports as JSON')
    .action(
      async (opts: {
        format: string;
        file: string;
        judge?: string;
        docs?: string;
        questions?: string;
        limit?: string;
        json?: boolean;
      }) => {
        if (!(AGREEMENT_FORMATS as readonly string[]).includes(opts.format))
          throw new UsageError(`--format must be one of ${AGREEMENT_FORMATS.join(', ')}, got ${opts.format}`);
        const format = opts.format as AgreementFormat;
        if (opts.judge !== undefined && !(HEURISTIC_JUDGES as readonly string[]).includes(opts.judge))
          throw new UsageError(`--judge must be one of ${HEURISTIC_JUDGES.join(', ')}, got ${opts.judge}`);
        const limit = opts.limit === undefined ? undefined : Number(opts.limit);
        if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
          throw new UsageError(`--limit must be a positive integer, got ${opts.limit}`);
        let items = await loadAgreementItems(format, resolve(io.cwd, opts.file), {
          ...(opts.docs === undefined ? {} : { docs: resolve(io.cwd, opts.docs) }),
          ...(opts.questions === undefined ? {} : { questions: resolve(io.cwd, opts.questions) }),
        });
        if (limit !== undefined) items = deterministicSample(items, limit);
        const names = opts.judge === undefined ? HEURISTIC_JUDGES : [opts.judge as HeuristicJudgeName];
        const reports: AgreementReport[] = [];
        for (const name of names) {
          const provider = heuristicJudge(name);
          reports.push(agreement(format, provider.id, items, await judgeItems(items, provider)));
        }
        if (opts.json) io.out(`${JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2)}\n`);
        else io.out(reports.map(formatAgreement).join('\n'));
      },
    );
}

/** Reads a labelled file of a format into agreement items (paths absolute). */
export async function loadAgreementItems(
  format: AgreementFormat,
  file: string,
  extra: { docs?: string; questions?: string } = {},
): Promise<AgreementItem[]> {
  if (format === 'attributionbench') return attributionBenchItems(await readText(file), file);
  if (format === 'salad') {
    const docs = extra.docs ?? join(dirname(file), saladDocsFileName(basename(file)));
    return saladItems(await readText(file), await readText(docs), file);
  }
  const info = await stat(file).catch(() => {
    throw new RgeError('file not found', { file });
  });
  const files = info.isDirectory()
    ? (await readdir(file))
        .filter((f) => f.endsWith('.jsonl'))
        .sort()
        .map((f) => join(file, f))
    : [file];
  const labelsDir = info.isDirectory() ? file : dirname(file);
  const questions =
    extra.questions ?? resolve(labelsDir, '../../corpus/financebench/financebench_open_source.jsonl');
  const answers = await Promise.all(files.map(async (f) => ({ file: f, text: await readText(f) })));
  return financeBenchItems(answers, await readText(questions), questions);
}
