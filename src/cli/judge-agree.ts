/**
 * `rge judge agree`: judges of a run config against human-labelled files (AttributionBench, SALAD,
 * FinanceBench answers), pooled per dataset and per subset, with kappa intervals, cost and latency.
 *
 * Judges are built by the project's one registry (`createProvider`), so any judge of a config works:
 * the heuristic ones of `configs/fixture.yaml` (`numeric`, `lexical`) and live ones, whose calls are
 * rate-limited, priced and budgeted by the config's `providers` and `budget`, and settled in the ledger
 * of `--results-dir` item by item.
 */
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Judge } from '../judging/config.ts';
import { judgeModelOf } from '../judging/config.ts';
import { type JudgePrompt, resolveJudgePrompt } from '../judging/prompt.ts';
import type { JudgeOutcome } from '../judging/verdict.ts';
import { createProvider, isLiveProvider } from '../models/registry.ts';
import { environment } from '../providers/credentials.ts';
import type { ProviderLimiter } from '../providers/metered.ts';
import type { Provider } from '../providers/types.ts';
import { loadRunConfig, type RunConfig } from '../run/config/config.ts';
import { BudgetLedger } from '../store/ledger.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import { readTextFile } from '../util/fs.ts';
import {
  AGREEMENT_FORMATS,
  AGREEMENT_SEED_RULE,
  type AgreementFormat,
  type AgreementItem,
  type AgreementReport,
  agreementBySubset,
  attributionBenchItems,
  compareJudges,
  deterministicSample,
  FORMAT_DIMENSION,
  FORMAT_LABELS,
  FORMAT_SUBSET,
  financeBenchItems,
  formatAgreementTable,
  formatComparison,
  formatKappa,
  judgeItems,
  KAPPA_CONFIDENCE,
  KAPPA_INTERVAL_METHOD,
  KAPPA_RESAMPLES,
  saladDocsFileName,
  saladItems,
  saladSetting,
  subsetsOf,
} from '../validation/index.ts';
import { whileStoppable } from './interrupt.ts';
import { type CliIO, existingPath } from './io.ts';

const DEFAULT_CONFIG = 'configs/fixture.yaml';
/** The repository's own fixture config: the default when the working folder has no configs/fixture.yaml. */
const PACKAGED_FIXTURE_CONFIG = fileURLToPath(new URL('../../configs/fixture.yaml', import.meta.url));

export interface AgreeFlags {
  format: string;
  file: string;
  config?: string;
  judge?: string[];
  resultsDir: string;
  docs?: string;
  questions?: string;
  limit?: string;
  minKappa?: string;
  compare?: string;
  json?: boolean;
}

/** `--compare A,B`: two different judge ids; not with --judge (the pair is the selection). */
export function parseCompare(
  value: string | undefined,
  judge: readonly string[] | undefined,
): [string, string] | null {
  if (value === undefined) return null;
  const ids = value.split(',').map((v) => v.trim());
  if (ids.length !== 2 || ids.some((id) => id === '') || ids[0] === ids[1])
    throw new UsageError(
      `--compare takes two different judge ids, A,B (e.g. --compare numeric,lexical), got ${value}`,
    );
  if (judge !== undefined && judge.length > 0)
    throw new UsageError('--compare picks the two judges itself: give --compare A,B without --judge');
  return [ids[0] as string, ids[1] as string];
}

/** `--min-kappa`: a number in [-1, 1], else a usage error. */
export function parseMinKappa(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const x = value.trim() === '' ? Number.NaN : Number(value);
  if (!(Number.isFinite(x) && x >= -1 && x <= 1))
    throw new UsageError(`--min-kappa must be a number from -1 to 1, got ${value}`);
  return x;
}

/** `rge judge agree` (options in judge-commands.ts). */
export async function judgeAgreeAction(opts: AgreeFlags, io: CliIO): Promise<void> {
  if (!(AGREEMENT_FORMATS as readonly string[]).includes(opts.format))
    throw new UsageError(`--format must be one of ${AGREEMENT_FORMATS.join(', ')}, got ${opts.format}`);
  const format = opts.format as AgreementFormat;
  const limit = opts.limit === undefined ? undefined : Number(opts.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
    throw new UsageError(`--limit must be a positive integer, got ${opts.limit}`);
  const minKappa = parseMinKappa(opts.minKappa);
  const pair = parseCompare(opts.compare, opts.judge);

  const file = existingPath(io.cwd, '--file', opts.file);
  const opened = await openJudges(io, {
    ...(opts.config === undefined ? {} : { config: opts.config }),
    judge: pair ?? opts.judge ?? [],
    resultsDir: opts.resultsDir,
    ...(pair ? { flag: '--compare' } : {}),
  });
  let items = await loadAgreementItems(format, file, {
    ...(opts.docs === undefined ? {} : { docs: resolve(io.cwd, opts.docs) }),
    ...(opts.questions === undefined ? {} : { questions: resolve(io.cwd, opts.questions) }),
  });
  if (limit !== undefined) items = deterministicSample(items, limit);

  const { reports, outcomes } = await whileStoppable(
    { log: (line) => io.err(`${line}\n`), kept: JUDGED_KEPT },
    (signal) => judgeAgreement(opened, format, items, signal),
  );
  const pooled = reports.filter((r) => r.subset === null);
  const below =
    minKappa === undefined ? [] : pooled.filter((r) => !(Number.isFinite(r.kappa) && r.kappa >= minKappa));
  const comparison = pair
    ? compareJudges(format, pair, items, [outcomes.get(pair[0]) ?? [], outcomes.get(pair[1]) ?? []])
    : null;
  if (opts.json) {
    const json = agreementJson(format, opened, items, reports, minKappa, below);
    io.out(`${JSON.stringify(comparison ? { ...json, comparison } : json, null, 2)}\n`);
  } else
    io.out(
      `${formatAgreementTable(format, reports)}${comparison ? `\n${formatComparison(comparison)}` : ''}`,
    );
  if (minKappa === undefined) return;
  if (below.length > 0) {
    io.err(
      `rge: pooled kappa below --min-kappa ${minKappa}: ` +
        `${below.map((r) => `${r.judge} on ${format} ${formatKappa(r)}`).join('; ')}\n`,
    );
    io.exitCode = 1;
  } else if (!opts.json) io.out(`every pooled kappa is at least --min-kappa ${minKappa}\n`);
}

/** What a judge command stopped by a signal keeps, said with the first signal and in the stop's message. */
export const JUDGED_KEPT =
  'what the judges were billed is settled in the budget ledger; rerun the command to judge again';

/**
 * Every judge judges the items; its agreement with the people, pooled and per subset. Live judges'
 * calls are settled in the ledger item by item, and its summary is written even when a call fails or
 * a stop signal (`signal`) ends the command.
 */
async function judgeAgreement(
  opened: OpenedJudges,
  format: AgreementFormat,
  items: readonly AgreementItem[],
  signal?: AbortSignal,
): Promise<{ reports: AgreementReport[]; outcomes: Map<string, JudgeOutcome[]> }> {
  const { judges, ledger, prompt } = opened;
  const reports: AgreementReport[] = [];
  const byJudge = new Map<string, JudgeOutcome[]>();
  const live = judges.some((j) => isLiveProvider(j.entry.provider));
  try {
    for (const { entry, provider } of judges) {
      const metered = isLiveProvider(entry.provider);
      const outcomes = await judgeItems(items, provider, {
        model: judgeModelOf(entry),
        prompt,
        concurrent: metered,
        ...(metered ? { onJudged: (charges) => ledger.settleCharges(charges) } : {}),
        ...(signal ? { signal } : {}),
      });
      reports.push(...agreementBySubset(format, entry.id, items, outcomes));
      byJudge.set(entry.id, outcomes);
    }
  } finally {
    if (live) await ledger.writeSummary();
  }
  return { reports, outcomes: byJudge };
}

/** `rge judge agree --json`: the set, the judges, how the intervals were computed, every report. */
function agreementJson(
  format: AgreementFormat,
  { configName, judges }: OpenedJudges,
  items: readonly AgreementItem[],
  reports: readonly AgreementReport[],
  minKappa: number | undefined,
  below: readonly AgreementReport[],
) {
  return {
    format,
    dimension: FORMAT_DIMENSION[format],
    subsetKind: FORMAT_SUBSET[format],
    labels: FORMAT_LABELS[format],
    config: configName,
    items: items.length,
    subsets: subsetsOf(items),
    judges: judges.map((j) => ({
      id: j.entry.id,
      provider: j.provider.id,
      family: j.entry.family,
    })),
    kappaInterval: {
      method: KAPPA_INTERVAL_METHOD,
      resamples: KAPPA_RESAMPLES,
      confidence: KAPPA_CONFIDENCE,
      seedRule: AGREEMENT_SEED_RULE,
    },
    reports,
    minKappa: minKappa ?? null,
    belowMinKappa: below.map((r) => ({ judge: r.judge, format, kappa: r.kappa })),
  };
}

/** The judges a `rge judge agree|audit` command asks, built through the registry, with the budget ledger. */
export interface OpenedJudges {
  config: RunConfig;
  configName: string;
  judges: { entry: Judge; provider: Provider }[];
  ledger: BudgetLedger;
  /** the config's judge prompt, resolved where every run resolves it */
  prompt: JudgePrompt;
}

/**
 * Reads the run config (default configs/fixture.yaml in the working folder, else the repository's copy),
 * picks the judges by id (default all), and builds each through the single registry (its key checked
 * before any is asked) with the budget ledger of the results folder.
 */
export async function openJudges(
  io: CliIO,
  opts: { config?: string; judge: readonly string[]; resultsDir: string; flag?: string },
): Promise<OpenedJudges> {
  const configFile =
    opts.config !== undefined
      ? resolve(io.cwd, opts.config)
      : existsSync(resolve(io.cwd, DEFAULT_CONFIG))
        ? resolve(io.cwd, DEFAULT_CONFIG)
        : PACKAGED_FIXTURE_CONFIG;
  const configName = relative(io.cwd, configFile) || configFile;
  const config = await loadRunConfig(configFile, { root: io.cwd });
  const ids = [...new Set(opts.judge.flatMap((v) => v.split(',')).map((v) => v.trim()))].filter(
    (v) => v !== '',
  );
  const unknown = ids.filter((id) => !config.judges.some((j) => j.id === id));
  if (unknown.length > 0)
    throw new UsageError(
      `${opts.flag ?? '--judge'} must be one of ${config.judges.map((j) => j.id).join(', ')} (the judges of ${configName}), ` +
        `got ${unknown.join(', ')}`,
    );
  const entries =
    ids.length === 0 ? config.judges : ids.flatMap((id) => config.judges.filter((j) => j.id === id));

  const ledger = new BudgetLedger(resolve(io.cwd, opts.resultsDir), {
    capUsd: config.budget.cap_usd,
    warnUsd: config.budget.warn_usd,
    configFile: configName,
    onWarn: (message) => io.err(`rge: ${message}\n`),
  });
  const ctx = {
    root: io.cwd,
    env: environment(io.cwd),
    settings: config.providers,
    spender: ledger,
    requireKeys: true,
    onRetry: (message: string) => io.err(`rge: ${message}\n`),
    limiters: new Map<string, ProviderLimiter>(),
  };
  // Every judge is built (and its key checked) before any is asked.
  const judges = [];
  for (const entry of entries) judges.push({ entry, provider: await createProvider(entry, 'judge', ctx) });
  return { config, configName, judges, ledger, prompt: resolveJudgePrompt(config.judge_prompt) };
}

/**
 * Reads a labelled file of a format into agreement items (paths absolute). SALAD and FinanceBench also
 * take a folder: every `annotations-*.json` (each judged against its own documents file, item ids
 * prefixed with the setting) or every `*.jsonl` answers file.
 */
export async function loadAgreementItems(
  format: AgreementFormat,
  file: string,
  extra: { docs?: string; questions?: string } = {},
): Promise<AgreementItem[]> {
  const info = await stat(file).catch(() => {
    throw new RgeError('file not found', { file });
  });
  const folder = (ends: (f: string) => boolean) =>
    readdir(file).then((names) =>
      names
        .filter(ends)
        .sort()
        .map((f) => join(file, f)),
    );
  if (format === 'attributionbench') return attributionBenchItems(await readTextFile(file), file);
  if (format === 'salad') {
    if (!info.isDirectory()) {
      const docs = extra.docs ?? join(dirname(file), saladDocsFileName(basename(file)));
      return saladItems(await readTextFile(file), await readTextFile(docs), file);
    }
    if (extra.docs !== undefined)
      throw new UsageError(
        '--docs names the documents of one annotations file; with a folder each file uses its own',
      );
    const files = await folder((f) => f.startsWith('annotations-') && f.endsWith('.json'));
    if (files.length === 0) throw new RgeError('no annotations-*.json in the folder', { file });
    const items: AgreementItem[] = [];
    for (const f of files) {
      const setting = saladSetting(f);
      const docs = await readTextFile(join(file, saladDocsFileName(basename(f))));
      for (const item of saladItems(await readTextFile(f), docs, f, setting))
        items.push({ ...item, id: `${setting}:${item.id}` });
    }
    return items;
  }
  const files = info.isDirectory() ? await folder((f) => f.endsWith('.jsonl')) : [file];
  const labelsDir = info.isDirectory() ? file : dirname(file);
  const questions =
    extra.questions ?? resolve(labelsDir, '../../corpus/financebench/financebench_open_source.jsonl');
  const answers = await Promise.all(files.map(async (f) => ({ file: f, text: await readTextFile(f) })));
  return financeBenchItems(answers, await readTextFile(questions), questions);
}
