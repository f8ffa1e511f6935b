/**
 * `rge judge audit`: replicate stability, order bias and the paradox flag (src/validation/audit.ts) for the
 * judges of a run config, on a public labelled set (`--format --file`, as `rge judge agree` reads them)
 * or on the human validation set (`--sample` and the labels `rge validation label` saved).
 */
import { resolve } from 'node:path';
import { judgeModelOf } from '../judging/config.ts';
import type { JudgeOutcome } from '../judging/verdict.ts';
import { isLiveProvider } from '../models/registry.ts';
import type { CallCharge, JudgeInput } from '../providers/types.ts';
import { loadQuestions } from '../questions/load.ts';
import { loadRunConfig } from '../run/config/config.ts';
import { UsageError } from '../util/errors.ts';
import {
  type AuditView,
  dimensionViews,
  formatAudit,
  type OrderReport,
  orderBias,
  paradox,
  replicateStability,
  type StabilityReport,
} from '../validation/audit.ts';
import {
  AGREEMENT_FORMATS,
  type AgreementFormat,
  type AgreementItem,
  deterministicSample,
  FORMAT_LABELS,
  judgeItems,
  verdictLabel,
} from '../validation/index.ts';
import { loadSample, readLabels } from '../validation/labels.ts';
import { medianScore } from '../validation/summary.ts';
import { whileStoppable } from './interrupt.ts';
import { type CliIO, existingPath } from './io.ts';
import { JUDGED_KEPT, loadAgreementItems, type OpenedJudges, openJudges } from './judge-agree.ts';

export interface AuditFlags {
  config?: string;
  judge?: string[];
  format?: string;
  file?: string;
  docs?: string;
  questions?: string;
  sample?: string;
  labelsDir: string;
  replicates: string;
  limit: string;
  resultsDir: string;
  json?: boolean;
}

/** The human validation set as audit items: each response's case, and the people's median per dimension. */
async function humanSet(
  io: CliIO,
  flags: AuditFlags,
): Promise<{
  items: AgreementItem[];
  human: (i: number, d: 'correctness' | 'grounding' | 'calibration') => number | null;
}> {
  const sample = await loadSample(existingPath(io.cwd, '--sample', flags.sample as string, 'file'));
  const labels = await readLabels(resolve(io.cwd, flags.labelsDir));
  const config = await loadRunConfig(resolve(io.cwd, flags.config ?? 'configs/fixture.yaml'), {
    root: io.cwd,
  });
  const questions = new Map(
    (await loadQuestions(resolve(io.cwd, config.questions.file))).map((r) => [r.value.id, r.value]),
  );
  const items: AgreementItem[] = sample.items.map((it) => {
    const input: JudgeInput = {
      kind: 'judge',
      questionId: it.question_id,
      question: it.question,
      category: it.category,
      expectedBehavior: it.expected_behavior,
      goldAnswer: it.gold_answer,
      goldQuotes: it.gold_quotes,
      numericGold: questions.get(it.question_id)?.numeric_gold ?? [],
      chunks: it.chunks,
      answer: it.answer,
    };
    return { id: it.item_id, input, human: 0, subset: it.category };
  });
  const byKey = new Map<string, typeof labels>();
  for (const l of labels.filter((x) => x.sample_id === sample.sample_id))
    byKey.set(l.item_id, [...(byKey.get(l.item_id) ?? []), l]);
  const human = (i: number, d: 'correctness' | 'grounding' | 'calibration') => {
    const ls = byKey.get(items[i]?.id ?? '');
    return ls && ls.length > 0 ? medianScore(ls.map((l) => l[d])) : null;
  };
  return { items, human };
}

/** What is audited: the items, the views the paradox flag compares them in, and the report's title. */
interface AuditSet {
  items: AgreementItem[];
  views: AuditView[];
  title: string;
}

/** A public labelled set (`--format --file`): a deterministic subsample of `limit` items, one view. */
async function publicAuditSet(io: CliIO, flags: AuditFlags, limit: number): Promise<AuditSet> {
  if (!(AGREEMENT_FORMATS as readonly string[]).includes(flags.format as string))
    throw new UsageError(`--format must be one of ${AGREEMENT_FORMATS.join(', ')}, got ${flags.format}`);
  if (flags.file === undefined) throw new UsageError('--format needs --file');
  const format = flags.format as AgreementFormat;
  const items = deterministicSample(
    await loadAgreementItems(format, existingPath(io.cwd, '--file', flags.file), {
      ...(flags.docs ? { docs: resolve(io.cwd, flags.docs) } : {}),
      ...(flags.questions ? { questions: resolve(io.cwd, flags.questions) } : {}),
    }),
    limit,
  );
  const views: AuditView[] = [
    {
      name: format,
      labels: FORMAT_LABELS[format].map((_, i) => i),
      human: (i) => items[i]?.human ?? null,
      judge: (v) => verdictLabel(format, v),
    },
  ];
  return { items, views, title: `${format}, ${items.length} items` };
}

/** The human validation set (`--sample`): its first `limit` items, one view per rubric dimension. */
async function humanAuditSet(io: CliIO, flags: AuditFlags, limit: number): Promise<AuditSet> {
  const set = await humanSet(io, flags);
  const items = set.items.slice(0, limit);
  return {
    items,
    views: dimensionViews(set.human),
    title: `human validation set ${flags.sample}, ${items.length} items`,
  };
}

/** What the audit measured of every judge: stability, order bias, and its first replicate's outcomes. */
interface JudgeRuns {
  stability: StabilityReport[];
  order: OrderReport[];
  bases: { id: string; outcomes: readonly JudgeOutcome[] }[];
}

/**
 * Each judge judges the items `replicates` times (stability), then with the chunks reversed and with
 * the answer first (order bias against its first replicate). Live judges' calls are settled in the
 * ledger as they come, and its summary is written even when a call fails or a stop signal ends it.
 */
async function judgeReplicates(
  opened: OpenedJudges,
  items: readonly AgreementItem[],
  clusters: readonly string[],
  replicates: number,
  signal?: AbortSignal,
): Promise<JudgeRuns> {
  const { judges, ledger, prompt } = opened;
  const reversed = items.map((it) => ({
    ...it,
    input: { ...it.input, chunks: [...it.input.chunks].reverse() },
  }));
  const runs: JudgeRuns = { stability: [], order: [], bases: [] };
  try {
    for (const { entry, provider } of judges) {
      const live = isLiveProvider(entry.provider);
      const opts = {
        model: judgeModelOf(entry),
        prompt,
        concurrent: live,
        ...(live ? { onJudged: (charges: readonly CallCharge[]) => ledger.settleCharges(charges) } : {}),
        ...(signal ? { signal } : {}),
      };
      const replicateRuns: JudgeOutcome[][] = [];
      for (let r = 0; r < replicates; r++) replicateRuns.push(await judgeItems(items, provider, opts));
      const base = replicateRuns[0] as JudgeOutcome[];
      runs.bases.push({ id: entry.id, outcomes: base });
      runs.stability.push(replicateStability(entry.id, replicateRuns, clusters));
      runs.order.push(
        orderBias(entry.id, 'chunks reversed', base, await judgeItems(reversed, provider, opts)),
      );
      runs.order.push(
        orderBias(
          entry.id,
          'answer first',
          base,
          await judgeItems(items, provider, { ...opts, answerFirst: true }),
        ),
      );
    }
  } finally {
    if (judges.some((j) => isLiveProvider(j.entry.provider))) await ledger.writeSummary();
  }
  return runs;
}

/** `rge judge audit` (options in judge-commands.ts). */
export async function judgeAuditAction(flags: AuditFlags, io: CliIO): Promise<void> {
  const replicates = Number(flags.replicates);
  if (!Number.isInteger(replicates) || replicates < 2)
    throw new UsageError(`--replicates must be an integer >= 2, got ${flags.replicates}`);
  const limit = Number(flags.limit);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError(`--limit must be a positive integer, got ${flags.limit}`);
  if ((flags.sample === undefined) === (flags.format === undefined))
    throw new UsageError(
      'audit either a public labelled set (--format and --file) or the human set (--sample)',
    );
  const { items, views, title } =
    flags.format !== undefined
      ? await publicAuditSet(io, flags, limit)
      : await humanAuditSet(io, flags, limit);

  const opened = await openJudges(io, {
    ...(flags.config === undefined ? {} : { config: flags.config }),
    judge: flags.judge ?? [],
    resultsDir: flags.resultsDir,
  });
  // the items' questions: a bootstrap of a kappa resamples whole questions
  const clusters = items.map((it) => (it.input.kind === 'judge' ? it.input.questionId : it.id));
  const { stability, order, bases } = await whileStoppable(
    { log: (line) => io.err(`${line}\n`), kept: JUDGED_KEPT },
    (signal) => judgeReplicates(opened, items, clusters, replicates, signal),
  );
  const paradoxRows = paradox(views, bases, clusters);
  if (flags.json) io.out(`${JSON.stringify({ title, stability, order, paradox: paradoxRows }, null, 2)}\n`);
  else io.out(formatAudit(title, stability, order, paradoxRows));
}
