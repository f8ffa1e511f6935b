/**
 * Judges against people: human-labelled datasets turned into judge cases, and the agreement of a
 * judge's verdicts with the people's labels (n, Cohen's kappa, accuracy, confusion matrix).
 *
 * Each format maps a labelled item to a `JudgeInput` (the references or evidence become the retrieved
 * chunks) and a verdict to the dataset's label:
 * - attributionbench (OSU-NLP-Group/AttributionBench): the `claim` is the answer, the `references` the
 *   chunks. People: attributable / not attributable. Judge: grounded when grounding >= 1, because the
 *   rubric's 1 is "supported by the chunks but not (precisely) cited", which an uncited claim that the
 *   references hold is; 0 means a material claim is unsupported.
 * - salad (LFQA-Verification): one case per answer sentence, the chunks are the question's documents
 *   (`docs-webgpt.json`, or `docs-human.json` for the `gpt3_whudoc` setting). People: supported when a
 *   majority (2 of 3) of the annotators said `supported` ("partially" counts as not supported, the
 *   binary reading of the SALAD paper). Judge: as attributionbench, grounding >= 1.
 * - financebench (patronus-ai/financebench answers): the question, gold answer and evidence pages of
 *   `financebench_open_source.jsonl`, expected behaviour `answer` (every FinanceBench question has
 *   one). People: Correct Answer / Incorrect Answer / Refusal. Judge: Refusal when the answer declines
 *   (the shared refusal detector, src/analysis/refusal.ts), else Correct when correctness is 2, else Incorrect (the rubric's 1, "partly correct", is not the
 *   people's "Correct Answer").
 * An unscored verdict is left out of the table and counted apart, never mapped to a label.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { isRefusal } from '../analysis/refusal.ts';
import type { ContextChunk, JudgeInput, Provider } from '../providers/types.ts';
import { parseFinanceBenchFigure } from '../questions/financebench.ts';
import { cohenKappa } from '../stats/index.ts';
import { RgeError } from '../util/errors.ts';
import { judgeCase } from './parse.ts';
import { type JudgeModel, renderJudgeRequest } from './prompt.ts';
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

/** One labelled case: the judge's input and the people's label (an index into FORMAT_LABELS). */
export interface AgreementItem {
  id: string;
  input: JudgeInput;
  human: number;
}

/**
 * The judge's label (an index into FORMAT_LABELS) for a verdict. FinanceBench: Refusal when the answer
 * declines (the shared refusal detector, which the judges' calibration also rests on), otherwise
 * Correct when correctness is 2, else Incorrect.
 */
export function verdictLabel(format: AgreementFormat, verdict: JudgeVerdict, answer = ''): number {
  if (format === 'financebench') {
    if (isRefusal(answer)) return 2;
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
});

/** AttributionBench JSONL: one claim against its references per line. */
export function attributionBenchItems(text: string, file: string): AgreementItem[] {
  return jsonLines(text, file).map(({ line, value }) => {
    const row = parseWith(AttributionRow, value, file, line);
    const id = row.id ?? `line-${line}`;
    const chunks = row.references.map((r, i) => chunk(`ref-${i + 1}`, r));
    return {
      id,
      input: baseInput(id, row.question ?? '', 'attributionbench', row.claim, chunks),
      human: row.attribution_label === 'attributable' ? 1 : 0,
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

/** SALAD: one item per annotated answer sentence, against its question's documents. */
export function saladItems(annotationsText: string, docsText: string, file: string): AgreementItem[] {
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
 * FinanceBench answers (one labelled file, or several concatenated) judged against the questions,
 * gold answers and evidence of `financebench_open_source.jsonl`.
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
          numericGold: figure
            ? [{ label: 'gold answer', value: figure.value, unit: figure.unit, tolerance: 0.01 }]
            : [],
        },
        human: FORMAT_LABELS.financebench.indexOf(row.label),
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

export interface AgreementReport {
  format: AgreementFormat;
  judge: string;
  dimension: string;
  labels: readonly string[];
  /** items with a scored verdict (the table's total) */
  n: number;
  /** items whose verdict was unscored, left out of the table */
  unscored: number;
  /** Cohen's kappa between people (a) and judge (b); NaN where undefined (one label only) */
  kappa: number;
  accuracy: number;
  /** rows: the people's label; columns: the judge's, both in `labels` order */
  confusion: number[][];
}

/** Agreement of judge outcomes with the people's labels, item by item (same order). */
export function agreement(
  format: AgreementFormat,
  judge: string,
  items: readonly AgreementItem[],
  outcomes: readonly JudgeOutcome[],
): AgreementReport {
  if (items.length !== outcomes.length)
    throw new RangeError(`agreement: ${items.length} items but ${outcomes.length} outcomes`);
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
    const j = verdictLabel(format, verdict, item.input.answer);
    human.push(item.human);
    judged.push(j);
    const row = confusion[item.human];
    if (row) row[j] = (row[j] ?? 0) + 1;
  });
  const n = human.length;
  const agreed = human.filter((h, i) => h === judged[i]).length;
  return {
    format,
    judge,
    dimension: FORMAT_DIMENSION[format],
    labels,
    n,
    unscored,
    kappa: n === 0 ? Number.NaN : cohenKappa(human, judged, { labels: labels.map((_, i) => i) }),
    accuracy: n === 0 ? Number.NaN : agreed / n,
    confusion,
  };
}

/** The report as the CLI prints it: a header line and the confusion matrix (people x judge). */
export function formatAgreement(report: AgreementReport): string {
  const f = (x: number, d: number) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
  const width = Math.max(...report.labels.map((l) => l.length), 'people \\ judge'.length);
  const colWidth = Math.max(...report.labels.map((l) => l.length), 6);
  const head = ['people \\ judge'.padEnd(width), ...report.labels.map((l) => l.padStart(colWidth))].join(
    '  ',
  );
  const rows = report.confusion.map((row, i) =>
    [(report.labels[i] ?? '').padEnd(width), ...row.map((c) => String(c).padStart(colWidth))].join('  '),
  );
  return (
    `${report.format} (${report.dimension}), judge ${report.judge}: n ${report.n}, ` +
    `kappa ${f(report.kappa, 3)}, accuracy ${f(report.accuracy, 3)}` +
    `${report.unscored > 0 ? `, unscored ${report.unscored}` : ''}\n${head}\n${rows.join('\n')}\n`
  );
}

/** Judges every item with `judge` (through the same prompt rendering and parser as a live judge). */
export async function judgeItems(
  items: readonly AgreementItem[],
  judge: Provider,
  model: JudgeModel = { id: judge.id, model: judge.id, family: judge.family, temperature: 0 },
): Promise<JudgeOutcome[]> {
  const outcomes: JudgeOutcome[] = [];
  for (const item of items) outcomes.push(await judgeCase(judge, renderJudgeRequest(item.input, model)));
  return outcomes;
}
