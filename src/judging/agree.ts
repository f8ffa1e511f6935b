/**
 * Judges against people: human-labelled datasets turned into judge cases, and the agreement of a
 * judge's verdicts with the people's labels, pooled over a dataset and per subset of it (n, unscored,
 * Cohen's kappa with a bootstrap interval, accuracy, confusion matrix, the judge's cost and latency).
 *
 * Each format maps a labelled item to a `JudgeInput` (the references or evidence become the retrieved
 * chunks), names the subset it belongs to, and maps a verdict to the dataset's label:
 * - attributionbench (OSU-NLP-Group/AttributionBench): the `claim` is the answer, the `references` the
 *   chunks; the subset is the item's source dataset (`src_dataset`). People: attributable / not
 *   attributable. Judge: grounded when grounding >= 1, because the rubric's 1 is "supported by the
 *   chunks but not (precisely) cited", which an uncited claim that the references hold is; 0 means a
 *   material claim is unsupported.
 * - salad (LFQA-Verification): one case per answer sentence, the chunks are the question's documents
 *   (`docs-webgpt.json`, or `docs-human.json` for the `gpt3_whudoc` setting); the subset is the setting
 *   (the annotations file's stem without `annotations-`). People: supported when a majority (2 of 3) of
 *   the annotators said `supported` ("partially" counts as not supported, the binary reading of the
 *   SALAD paper). Judge: as attributionbench, grounding >= 1.
 * - financebench (patronus-ai/financebench answers): the question, gold answer and evidence pages of
 *   `financebench_open_source.jsonl`, expected behaviour `answer` (every FinanceBench question is
 *   answerable); the subset is the eval mode (the answers file name after the model, `_reverse` kept).
 *   People: Correct Answer / Incorrect Answer / Refusal. Judge, from the verdict alone: Refusal when
 *   calibration is 0 (on an answerable question the rubric's calibration 0 is "declines a question the
 *   chunks answer", and "a wrong figure stated plainly loses correctness, not calibration"), else
 *   Correct when correctness is 2, else Incorrect (the rubric's 1, "partly correct", is not the people's
 *   "Correct Answer").
 * An unscored verdict is left out of the table and counted apart, never mapped to a label.
 *
 * Kappa's interval: a bootstrap over the items of the cell (`kappaInterval`), seeded by
 * `agreementSeed(judge, format, subset)`, so the same labels and verdicts give the same interval.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { z } from 'zod';
import type { CallCharge, ContextChunk, JudgeInput, Provider } from '../providers/types.ts';
import { parseFinanceBenchFigure } from '../questions/financebench.ts';
import { bootstrapCI, cohenKappa } from '../stats/index.ts';
import { linearPercentile } from '../stats/percentile.ts';
import { RgeError } from '../util/errors.ts';
import { type JudgedCase, judgeCaseCharged } from './parse.ts';
import {
  JUDGE_PROMPT_VERSION,
  type JudgeModel,
  type JudgePromptVersion,
  judgePromptText,
  renderJudgeRequest,
} from './prompt.ts';
import type { JudgeOutcome, JudgeVerdict } from './verdict.ts';

export const AGREEMENT_FORMATS = ['attributionbench', 'financebench', 'salad'] as const;
export type AgreementFormat = (typeof AGREEMENT_FORMATS)[number];

/** The label set of each format, in the order of the confusion matrix's rows and columns. */
export const FORMAT_LABELS: Record<AgreementFormat, readonly string[]> = {
  attributionbench: ['not attributable', 'attributable'],
  salad: ['not supported', 'supported'],
  financebench: ['Correct Answer', 'Incorrect Answer', 'Refusal'],
};

/** What each format measures, for the report. */
export const FORMAT_DIMENSION: Record<AgreementFormat, string> = {
  attributionbench: 'grounding',
  salad: 'grounding',
  financebench: 'correctness and refusal',
};

/** What a dataset's subsets are, for the report. */
export const FORMAT_SUBSET: Record<AgreementFormat, string> = {
  attributionbench: 'source dataset',
  salad: 'setting',
  financebench: 'eval mode',
};

/**
 * One labelled case: the judge's input, the people's label (an index into FORMAT_LABELS) and the
 * subset of the dataset it belongs to (see FORMAT_SUBSET).
 */
export interface AgreementItem {
  id: string;
  input: JudgeInput;
  human: number;
  subset: string;
}

/**
 * The judge's label (an index into FORMAT_LABELS) for a verdict, from the verdict alone.
 * FinanceBench (every question answerable): Refusal when calibration is 0 (the rubric's over-refusal),
 * else Correct when correctness is 2, else Incorrect. AttributionBench and SALAD: supported when
 * grounding >= 1.
 */
export function verdictLabel(format: AgreementFormat, verdict: JudgeVerdict): number {
  if (format === 'financebench') {
    if (verdict.calibration.score === 0) return 2;
    return verdict.correctness.score === 2 ? 0 : 1;
  }
  return verdict.grounding.score >= 1 ? 1 : 0;
}

function chunk(id: string, text: string, extra: Partial<ContextChunk> = {}): ContextChunk {
  return { id, company: '', fy: null, heading: null, pages: [1, 1], text, ...extra };
}

function baseInput(
  id: string,
  question: string,
  category: string,
  answer: string,
  chunks: ContextChunk[],
): JudgeInput {
  return {
    kind: 'judge',
    questionId: id,
    question,
    category,
    expectedBehavior: 'answer',
    goldAnswer: '',
    goldQuotes: [],
    numericGold: [],
    chunks,
    answer,
  };
}

function jsonLines(text: string, file: string): { line: number; value: unknown }[] {
  const out: { line: number; value: unknown }[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    if (raw.trim() === '') continue;
    try {
      out.push({ line: i + 1, value: JSON.parse(raw) });
    } catch (err) {
      throw new RgeError(`invalid JSON (${(err as Error).message})`, { file, line: i + 1 });
    }
  }
  return out;
}

function parseWith<S extends z.ZodType>(schema: S, value: unknown, file: string, line?: number): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new RgeError(`${issue?.path.map(String).join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`, {
    file,
    ...(line === undefined ? {} : { line }),
  });
}

const AttributionRow = z.looseObject({
  id: z.string().optional(),
  question: z.string().nullable().optional(),
  claim: z.string(),
  references: z.array(z.string()),
  attribution_label: z.enum(['attributable', 'not attributable']),
  src_dataset: z.string().optional(),
});

/** The subset of an item whose source the file does not name. */
export const UNNAMED_SUBSET = 'unspecified';

/** AttributionBench JSONL: one claim against its references per line; the subset is `src_dataset`. */
export function attributionBenchItems(text: string, file: string): AgreementItem[] {
  return jsonLines(text, file).map(({ line, value }) => {
    const row = parseWith(AttributionRow, value, file, line);
    const id = row.id ?? `line-${line}`;
    const chunks = row.references.map((r, i) => chunk(`ref-${i + 1}`, r));
    return {
      id,
      input: baseInput(id, row.question ?? '', 'attributionbench', row.claim, chunks),
      human: row.attribution_label === 'attributable' ? 1 : 0,
      subset: row.src_dataset || UNNAMED_SUBSET,
    };
  });
}

const SaladAnnotations = z.array(
  z.looseObject({
    question_id: z.union([z.number(), z.string()]),
    question: z.string(),
    annotations: z.array(z.looseObject({ labels: z.array(z.string()).min(1), answer: z.string() })),
  }),
);
const SaladDocs = z.array(
  z.looseObject({
    question_id: z.union([z.number(), z.string()]),
    docs: z.array(z.looseObject({ doc_id: z.string(), title: z.string().optional(), text: z.string() })),
  }),
);

/** The documents file a SALAD annotations file is judged against (see ../shared/labels/MANIFEST.md). */
export function saladDocsFileName(annotationsFile: string): string {
  return /whudoc/i.test(annotationsFile) ? 'docs-human.json' : 'docs-webgpt.json';
}

/** Majority of the annotators said `supported` (partially = not supported). */
export function saladSupported(labels: readonly string[]): boolean {
  return labels.filter((l) => l === 'supported').length * 2 > labels.length;
}

/** The SALAD setting of an annotations file: its stem without `annotations-` (`annotations-gpt3.json`: gpt3). */
export function saladSetting(annotationsFile: string): string {
  return basename(annotationsFile)
    .replace(/\.json$/i, '')
    .replace(/^annotations-/, '');
}

/**
 * SALAD: one item per annotated answer sentence, against its question's documents; the subset is the
 * setting (by default the file's, `saladSetting(file)`).
 */
export function saladItems(
  annotationsText: string,
  docsText: string,
  file: string,
  setting: string = saladSetting(file),
): AgreementItem[] {
  const annotations = parseWith(SaladAnnotations, JSON.parse(annotationsText), file);
  const docs = parseWith(SaladDocs, JSON.parse(docsText), `${file} (documents)`);
  const byQuestion = new Map(docs.map((d) => [String(d.question_id), d.docs]));
  const items: AgreementItem[] = [];
  for (const answer of annotations) {
    const qid = String(answer.question_id);
    const qdocs = byQuestion.get(qid);
    if (!qdocs) throw new RgeError(`question ${qid} has no documents`, { file });
    const chunks = qdocs.map((d) => chunk(d.doc_id, d.text, { heading: d.title ?? null }));
    answer.annotations.forEach((a, i) => {
      const id = `q${qid}-s${i + 1}`;
      items.push({
        id,
        input: baseInput(id, answer.question, 'salad', a.answer.trim(), chunks),
        human: saladSupported(a.labels) ? 1 : 0,
        subset: setting,
      });
    });
  }
  return items;
}

const FinanceBenchAnswerRow = z.looseObject({
  financebench_id: z.string(),
  model_name: z.string().optional(),
  eval_mode: z.string().optional(),
  question: z.string().optional(),
  gold_answer: z.union([z.string(), z.number()]).nullable(),
  model_answer: z.union([z.string(), z.number()]).nullable(),
  label: z.enum(['Correct Answer', 'Incorrect Answer', 'Refusal']),
});
const FinanceBenchQuestionRow = z.looseObject({
  financebench_id: z.string(),
  company: z.string(),
  doc_name: z.string(),
  question: z.string(),
  answer: z.string().nullable(),
  evidence: z.array(
    z.looseObject({ evidence_text: z.string(), doc_name: z.string(), evidence_page_num: z.number() }),
  ),
});

/**
 * The eval mode of a FinanceBench answers file: the file name after the model
 * (`gpt-4-1106-preview_oracle_reverse.jsonl`: oracle_reverse); else the row's `eval_mode`; else the stem.
 */
export function financeBenchMode(file: string, modelName?: string, evalMode?: string): string {
  const stem = basename(file).replace(/\.jsonl$/i, '');
  if (modelName && stem.startsWith(`${modelName}_`) && stem.length > modelName.length + 1)
    return stem.slice(modelName.length + 1);
  return evalMode || stem;
}

/**
 * FinanceBench answers (one labelled file, or several concatenated) judged against the questions,
 * gold answers and evidence of `financebench_open_source.jsonl`; the subset is the eval mode.
 */
export function financeBenchItems(
  answers: readonly { text: string; file: string }[],
  questionsText: string,
  questionsFile: string,
): AgreementItem[] {
  const questions = new Map(
    jsonLines(questionsText, questionsFile).map(({ line, value }) => {
      const q = parseWith(FinanceBenchQuestionRow, value, questionsFile, line);
      return [q.financebench_id, q] as const;
    }),
  );
  const items: AgreementItem[] = [];
  for (const { text, file } of answers)
    for (const { line, value } of jsonLines(text, file)) {
      const row = parseWith(FinanceBenchAnswerRow, value, file, line);
      const q = questions.get(row.financebench_id);
      if (!q) throw new RgeError(`${row.financebench_id} is not in ${questionsFile}`, { file, line });
      const gold = row.gold_answer === null ? (q.answer ?? '') : String(row.gold_answer);
      const question = row.question ?? q.question;
      const figure = parseFinanceBenchFigure(gold, question);
      const chunks = q.evidence.map((e, i) =>
        chunk(`${e.doc_name}-p${e.evidence_page_num + 1}-${i + 1}`, e.evidence_text, {
          company: q.company,
          pages: [e.evidence_page_num + 1, e.evidence_page_num + 1],
        }),
      );
      const id = `${row.financebench_id}:${row.model_name ?? ''}:${row.eval_mode ?? ''}:${line}`;
      items.push({
        id,
        input: {
          ...baseInput(
            row.financebench_id,
            question,
            'financebench',
            row.model_answer === null ? '' : String(row.model_answer),
            chunks,
          ),
          goldAnswer: gold,
          // the evidence pages are the gold evidence (and the chunks): the judges see it is there
          goldQuotes: q.evidence.map((e) => e.evidence_text),
          numericGold: figure
            ? [{ label: 'gold answer', value: figure.value, unit: figure.unit, tolerance: 0.01 }]
            : [],
        },
        human: FORMAT_LABELS.financebench.indexOf(row.label),
        subset: financeBenchMode(file, row.model_name, row.eval_mode),
      });
    }
  return items;
}

/**
 * A deterministic subsample of `n` items: those whose sha256(id) sorts first, in their original order.
 * The same file and n always give the same items, independent of the file's order.
 */
export function deterministicSample<T extends { id: string }>(items: readonly T[], n: number): T[] {
  if (n >= items.length) return [...items];
  const hash = (id: string) => createHash('sha256').update(id).digest('hex');
  const keep = new Set(
    items
      .map((item, i) => ({ i, key: hash(`${item.id}#${i}`) }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i))
      .slice(0, n)
      .map((x) => x.i),
  );
  return items.filter((_, i) => keep.has(i));
}

/** The subset name of a pooled row (all subsets of a dataset), in seeds and tables. */
export const POOLED = 'pooled';

/** Bootstrap resamples of a kappa interval: 2,000 resamples of the items. */
export const KAPPA_RESAMPLES = 2000;
export const KAPPA_CONFIDENCE = 0.95;
/** BCa, as the report's intervals (docs/adr/0004-statistics.md). */
export const KAPPA_INTERVAL_METHOD = 'bca';

/** How a cell's kappa interval is seeded, for the output's footer. */
export const AGREEMENT_SEED_RULE = `agree:<judge>:<format>:<subset, or ${POOLED}>`;

/** The seed of the kappa interval of a (judge, dataset, subset) cell; `subset` null is the pooled row. */
export function agreementSeed(judge: string, format: AgreementFormat, subset: string | null): string {
  return `agree:${judge}:${format}:${subset ?? POOLED}`;
}

export interface KappaInterval {
  low: number;
  high: number;
  confidence: number;
  method: typeof KAPPA_INTERVAL_METHOD;
  resamples: number;
  seed: string;
  /**
   * resamples on which kappa is undefined (both raters constant on the same label, so they say nothing
   * about agreement beyond chance): each counts as the estimate, which neither widens nor shifts the
   * interval (dropping them is not an option of `bootstrapCI`)
   */
  undefinedResamples: number;
  /** the interval could not be computed as asked (see `bootstrapCI`): a point, or percentile for BCa */
  degenerate: boolean;
}

/**
 * A bootstrap interval of Cohen's kappa between `human` and `judged` (label indices 0..labelCount-1,
 * item by item): `bootstrapCI` over the items (each resample draws n items with replacement and
 * computes `cohenKappa` on them), BCa, 2,000 resamples unless told. A resample on which kappa is
 * undefined counts as the estimate (see `undefinedResamples`). Null where kappa itself is undefined
 * (no items, or one label only).
 */
export function kappaInterval(
  human: readonly number[],
  judged: readonly number[],
  labelCount: number,
  opts: { seed: string; resamples?: number; confidence?: number },
): KappaInterval | null {
  if (human.length !== judged.length)
    throw new RangeError(`kappaInterval: ${human.length} people labels but ${judged.length} judge labels`);
  if (human.length === 0) return null;
  const labels = Array.from({ length: labelCount }, (_, i) => i);
  // an item is one number, people x judge, so that resampling items keeps each pair together
  const codes = human.map((h, i) => h * labelCount + (judged[i] as number));
  // Kappa depends only on the people x judge counts, so it is computed once per distinct table: the
  // jackknife's n leave-one-out samples have at most labelCount^2 tables between them.
  const cells = labelCount * labelCount;
  const counts = new Array<number>(cells);
  const known = new Map<string, number>();
  const kappaOf = (xs: ArrayLike<number>) => {
    counts.fill(0);
    for (let i = 0; i < xs.length; i++) {
      const code = xs[i] as number;
      counts[code] = (counts[code] as number) + 1;
    }
    const key = counts.join(',');
    const seen = known.get(key);
    if (seen !== undefined) return seen;
    const a: number[] = [];
    const b: number[] = [];
    for (let c = 0; c < cells; c++)
      for (let m = 0; m < (counts[c] as number); m++) {
        a.push(Math.floor(c / labelCount));
        b.push(c % labelCount);
      }
    const kappa = cohenKappa(a, b, { labels });
    known.set(key, kappa);
    return kappa;
  };
  const estimate = kappaOf(codes);
  if (Number.isNaN(estimate)) return null;
  const resamples = opts.resamples ?? KAPPA_RESAMPLES;
  const confidence = opts.confidence ?? KAPPA_CONFIDENCE;
  let calls = 0;
  let undefinedResamples = 0;
  const ci = bootstrapCI(codes, {
    method: KAPPA_INTERVAL_METHOD,
    resamples,
    confidence,
    seed: opts.seed,
    statistic: (xs) => {
      calls++;
      const kappa = kappaOf(xs);
      if (!Number.isNaN(kappa)) return kappa;
      // call 1 is the data itself, then the resamples, then (BCa) the jackknife samples
      if (calls > 1 && calls <= resamples + 1) undefinedResamples++;
      return estimate;
    },
  });
  return {
    low: ci.low,
    high: ci.high,
    confidence,
    method: KAPPA_INTERVAL_METHOD,
    resamples,
    seed: opts.seed,
    undefinedResamples,
    degenerate: ci.degenerate === true,
  };
}

/** The agreement of one judge with the people on one dataset, pooled or on one subset of it. */
export interface AgreementReport {
  format: AgreementFormat;
  judge: string;
  dimension: string;
  /** the subset (see FORMAT_SUBSET); null for the row pooled over every subset */
  subset: string | null;
  labels: readonly string[];
  /** items with a scored verdict (the table's total) */
  n: number;
  /** items whose verdict was unscored, left out of the table */
  unscored: number;
  /** Cohen's kappa between people (a) and judge (b); NaN where undefined (one label only) */
  kappa: number;
  /** bootstrap interval of the kappa; null where the kappa is undefined */
  kappaCi: KappaInterval | null;
  accuracy: number;
  /** rows: the people's label; columns: the judge's, both in `labels` order */
  confusion: number[][];
  /** what the judge's calls cost, over every item (scored or not), USD */
  costUsd: number;
  /** the judge's latency per item (over its attempts), ms; null with no items */
  latencyMs: { p50: number; p95: number } | null;
}

export interface AgreementOptions {
  /** the subset the items are; default null, the pooled row */
  subset?: string | null;
  /** bootstrap resamples of the kappa interval (default KAPPA_RESAMPLES) */
  resamples?: number;
  /** default `agreementSeed(judge, format, subset)` */
  seed?: string;
}

/** Agreement of judge outcomes with the people's labels, item by item (same order). */
export function agreement(
  format: AgreementFormat,
  judge: string,
  items: readonly AgreementItem[],
  outcomes: readonly JudgeOutcome[],
  opts: AgreementOptions = {},
): AgreementReport {
  if (items.length !== outcomes.length)
    throw new RangeError(`agreement: ${items.length} items but ${outcomes.length} outcomes`);
  const subset = opts.subset ?? null;
  const labels = FORMAT_LABELS[format];
  const confusion = labels.map(() => labels.map(() => 0));
  const human: number[] = [];
  const judged: number[] = [];
  let unscored = 0;
  items.forEach((item, i) => {
    const verdict = outcomes[i]?.verdict;
    if (!verdict) {
      unscored++;
      return;
    }
    const j = verdictLabel(format, verdict);
    human.push(item.human);
    judged.push(j);
    const row = confusion[item.human];
    if (row) row[j] = (row[j] ?? 0) + 1;
  });
  const n = human.length;
  const agreed = human.filter((h, i) => h === judged[i]).length;
  const latencies = outcomes.map((o) => o.latencyMs).sort((a, b) => a - b);
  return {
    format,
    judge,
    dimension: FORMAT_DIMENSION[format],
    subset,
    labels,
    n,
    unscored,
    kappa: n === 0 ? Number.NaN : cohenKappa(human, judged, { labels: labels.map((_, i) => i) }),
    kappaCi: kappaInterval(human, judged, labels.length, {
      seed: opts.seed ?? agreementSeed(judge, format, subset),
      ...(opts.resamples === undefined ? {} : { resamples: opts.resamples }),
    }),
    accuracy: n === 0 ? Number.NaN : agreed / n,
    confusion,
    costUsd: outcomes.reduce((sum, o) => sum + o.costUsd, 0),
    latencyMs:
      latencies.length === 0
        ? null
        : { p50: linearPercentile(latencies, 0.5), p95: linearPercentile(latencies, 0.95) },
  };
}

/** The subsets of `items`, sorted. */
export function subsetsOf(items: readonly AgreementItem[]): string[] {
  return [...new Set(items.map((i) => i.subset))].sort((a, b) => a.localeCompare(b));
}

/**
 * Agreement pooled over every item (first, `subset` null), then one row per subset (sorted), each
 * with its own kappa, interval (seeded per subset) and counts.
 */
export function agreementBySubset(
  format: AgreementFormat,
  judge: string,
  items: readonly AgreementItem[],
  outcomes: readonly JudgeOutcome[],
  opts: Omit<AgreementOptions, 'subset' | 'seed'> = {},
): AgreementReport[] {
  if (items.length !== outcomes.length)
    throw new RangeError(`agreement: ${items.length} items but ${outcomes.length} outcomes`);
  const rows = [agreement(format, judge, items, outcomes, opts)];
  for (const subset of subsetsOf(items)) {
    const keep = items.map((item) => item.subset === subset);
    rows.push(
      agreement(
        format,
        judge,
        items.filter((_, i) => keep[i]),
        outcomes.filter((_, i) => keep[i]),
        { ...opts, subset },
      ),
    );
  }
  return rows;
}

const fixed = (x: number, d: number) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');

/** Kappa and its interval as the tables print them: `0.412 [0.310, 0.508]`, or `n/a`. */
export function formatKappa(report: Pick<AgreementReport, 'kappa' | 'kappaCi'>): string {
  if (!Number.isFinite(report.kappa)) return 'n/a';
  const ci = report.kappaCi;
  return ci
    ? `${fixed(report.kappa, 3)} [${fixed(ci.low, 3)}, ${fixed(ci.high, 3)}]`
    : fixed(report.kappa, 3);
}

/** `pooled`, or the subset named with what it is (`setting gpt3`). */
export function subsetLabel(report: Pick<AgreementReport, 'format' | 'subset'>): string {
  return report.subset === null ? POOLED : `${FORMAT_SUBSET[report.format]} ${report.subset}`;
}

/** The report as the CLI prints it: a header line and the confusion matrix (people x judge). */
export function formatAgreement(report: AgreementReport): string {
  const width = Math.max(...report.labels.map((l) => l.length), 'people \\ judge'.length);
  const colWidth = Math.max(...report.labels.map((l) => l.length), 6);
  const head = ['people \\ judge'.padEnd(width), ...report.labels.map((l) => l.padStart(colWidth))].join(
    '  ',
  );
  const rows = report.confusion.map((row, i) =>
    [(report.labels[i] ?? '').padEnd(width), ...row.map((c) => String(c).padStart(colWidth))].join('  '),
  );
  return (
    `${report.format} (${report.dimension}), judge ${report.judge}, ${subsetLabel(report)}: ` +
    `n ${report.n}, kappa ${formatKappa(report)}, accuracy ${fixed(report.accuracy, 3)}` +
    `${report.unscored > 0 ? `, unscored ${report.unscored}` : ''}\n${head}\n${rows.join('\n')}\n`
  );
}

export interface JudgeItemsOptions {
  /** the judge as the prompt names it (a run config's judge entry); default from the provider */
  model?: JudgeModel;
  /** the rubric (a run config's pinned copy); default the canonical judge prompt */
  promptText?: string;
  /**
   * ask about every item at once (live judges: the provider's limiter paces the calls); default one
   * item after the other. The first error stops the calls still waiting and is thrown once every call
   * has ended, so that what was billed is settled.
   */
  concurrent?: boolean;
  /** the judge prompt version whose layout renders the case (default canonical) */
  promptVersion?: JudgePromptVersion;
  /** the answer before the retrieved chunks (the judge audit's position probe) */
  answerFirst?: boolean;
  /** called with each item's billed calls as soon as it is judged (to settle them in a ledger) */
  onJudged?: (charges: readonly CallCharge[], judged: JudgedCase) => Promise<void>;
}

/**
 * Judges every item with `judge` through the same prompt rendering and parser as a run's judges (one
 * retry on an unparseable reply, then unscored); the outcomes are in the order of the items.
 */
export async function judgeItems(
  items: readonly AgreementItem[],
  judge: Provider,
  opts: JudgeItemsOptions = {},
): Promise<JudgeOutcome[]> {
  const model = opts.model ?? {
    id: judge.id,
    model: judge.id,
    family: judge.family,
    parameters: { temperature: 0 },
  };
  const version = opts.promptVersion ?? JUDGE_PROMPT_VERSION;
  const promptText = opts.promptText ?? judgePromptText(version);
  const controller = new AbortController();
  const one = async (item: AgreementItem): Promise<JudgeOutcome> => {
    const request = renderJudgeRequest(item.input, model, promptText, version, {
      answerFirst: opts.answerFirst === true,
    });
    const judged = await judgeCaseCharged(judge, request, {
      signal: controller.signal,
    });
    await opts.onJudged?.(judged.charges, judged);
    return judged.outcome;
  };
  if (!opts.concurrent) {
    const outcomes: JudgeOutcome[] = [];
    for (const item of items) outcomes.push(await one(item));
    return outcomes;
  }
  const settled = await Promise.allSettled(
    items.map(async (item) => {
      try {
        return await one(item);
      } catch (err) {
        if (!controller.signal.aborted) controller.abort(err);
        throw err;
      }
    }),
  );
  if (controller.signal.aborted) throw controller.signal.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<JudgeOutcome>).value);
}
