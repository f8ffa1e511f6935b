/**
 * `rge judge ...`: the judge prompt (print it, pin it in a run config, check the pinned copy) and the
 * agreement of the offline judges with people (`rge judge agree`).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { isMap, parseDocument, Scalar } from 'yaml';
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
import { JUDGE_PROMPT_VERSION, judgePromptHash, judgePromptText } from '../judging/prompt.ts';
import { HEURISTIC_JUDGES, type HeuristicJudgeName, heuristicJudge } from '../providers/heuristic/index.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/fs.ts';
import type { CliIO } from './io.ts';

const DEFAULT_PUBLISHED = 'configs/published.yaml';

/** Whether a config's pinned judge prompt is the canonical one; the reason when it is not. */
export function pinnedPromptStatus(configText: string): { current: boolean; reason: string } {
  const json = parseDocument(configText).toJS() as {
    judge_prompt?: { version?: unknown; sha256?: unknown; text?: unknown } | null;
  } | null;
  const prompt = json?.judge_prompt;
  if (!prompt) return { current: false, reason: 'no judge_prompt' };
  if (prompt.version !== JUDGE_PROMPT_VERSION)
    return {
      current: false,
      reason: `version is ${String(prompt.version)}, canonical ${JUDGE_PROMPT_VERSION}`,
    };
  if (prompt.text !== judgePromptText())
    return {
      current: false,
      reason: prompt.text === null ? 'text is not pinned (null)' : 'text differs from the canonical prompt',
    };
  if (prompt.sha256 !== judgePromptHash())
    return { current: false, reason: `sha256 is ${String(prompt.sha256)}, canonical ${judgePromptHash()}` };
  return { current: true, reason: `judge prompt ${JUDGE_PROMPT_VERSION} ${judgePromptHash()}` };
}

/**
 * The config text with `judge_prompt` set to the canonical prompt (version, sha256, text as a literal
 * block), everything else (comments, order, other fields) as it was.
 */
export function withPinnedPrompt(configText: string, file: string): string {
  const doc = parseDocument(configText);
  if (doc.errors.length > 0) throw new RgeError(`not valid YAML: ${doc.errors[0]?.message ?? ''}`, { file });
  if (!isMap(doc.contents)) throw new RgeError('a run config is a YAML map', { file });
  const text = new Scalar(judgePromptText());
  text.type = Scalar.BLOCK_LITERAL;
  doc.setIn(['judge_prompt', 'version'], JUDGE_PROMPT_VERSION);
  doc.setIn(['judge_prompt', 'sha256'], judgePromptHash());
  doc.setIn(['judge_prompt', 'text'], text);
  const out = doc.toString({ lineWidth: 0 });
  // The written text must read back as the canonical prompt, byte for byte.
  if (!pinnedPromptStatus(out).current)
    throw new RgeError('the pinned prompt does not read back unchanged', { file });
  return out;
}

export function registerJudgeCommands(program: Command, io: CliIO): void {
  const judge = program.command('judge').description('the judge prompt and the judges against people');

  judge
    .command('prompt')
    .description(
      'print judge prompt v1, pin it in a run config (--write-config), or check a pinned copy (--check)',
    )
    .option('--write-config <file>', 'copy the canonical prompt text and its sha256 into this config')
    .option(
      '--check [file]',
      `exit 1 when the config's pinned prompt is stale (default ${DEFAULT_PUBLISHED})`,
    )
    .action(async (opts: { writeConfig?: string; check?: string | boolean }) => {
      if (opts.check !== undefined) {
        const file = typeof opts.check === 'string' ? opts.check : (opts.writeConfig ?? DEFAULT_PUBLISHED);
        const path = resolve(io.cwd, file);
        const status = pinnedPromptStatus(await readText(path));
        const name = relative(io.cwd, path) || path;
        if (status.current) io.out(`${name}: current (${status.reason})\n`);
        else {
          io.err(
            `${name}: stale judge prompt: ${status.reason}; run rge judge prompt --write-config ${file}\n`,
          );
          io.exitCode = 1;
        }
        return;
      }
      if (opts.writeConfig !== undefined) {
        const path = resolve(io.cwd, opts.writeConfig);
        await writeFileAtomic(path, withPinnedPrompt(await readText(path), path));
        io.out(
          `${relative(io.cwd, path) || path}: judge prompt ${JUDGE_PROMPT_VERSION} ${judgePromptHash()}\n`,
        );
        return;
      }
      io.out(`# judge prompt ${JUDGE_PROMPT_VERSION} sha256 ${judgePromptHash()}\n${judgePromptText()}\n`);
    });

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

async function readText(path: string): Promise<string> {
  return readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new RgeError(err.code === 'ENOENT' ? 'file not found' : err.message, { file: path });
  });
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
