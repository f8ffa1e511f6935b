/**
 * The generation report: what was kept and what was rejected, by reason, by category and by document;
 * the tasks a generator could not do; cost and time; the seed; and the warnings a reader needs (a seed
 * set, a generator of a subject's family). JSON beside the questions and the same as Markdown.
 */
import { QUESTION_CATEGORIES, type QuestionCategory } from '../schema.ts';
import { type Candidate, REJECTION_REASONS, type Rejection, type RejectionReason } from './candidate.ts';
import type { GenerationProblem } from './generator.ts';
import type { Verified } from './verify/verify.ts';

export interface GenerationReport {
  generator: Candidate['generator'] | null;
  seed: string;
  targets: Record<QuestionCategory, number> | null;
  tasks: number;
  /** tasks whose stored result was reused (nothing paid again) */
  reusedTasks: number;
  candidates: number;
  kept: number;
  rejected: number;
  byReason: Partial<Record<RejectionReason, number>>;
  byCategory: Record<QuestionCategory, { kept: number; rejected: number }>;
  byDocument: Record<string, Record<QuestionCategory, number> & { rejected: number }>;
  problems: GenerationProblem[];
  costUsd: number;
  seconds: number;
  warnings: string[];
}

function emptyCategories<T>(make: () => T): Record<QuestionCategory, T> {
  return Object.fromEntries(QUESTION_CATEGORIES.map((c) => [c, make()])) as Record<QuestionCategory, T>;
}

export interface ReportInput {
  candidates: readonly Candidate[];
  kept: readonly Verified[];
  rejections: readonly Rejection[];
  problems: readonly GenerationProblem[];
  documents: readonly string[];
  targets: Record<QuestionCategory, number> | null;
  tasks: number;
  reusedTasks: number;
  costUsd: number;
  seconds: number;
  seed: string;
  warnings: string[];
}

export function generationReport(input: ReportInput): GenerationReport {
  const byId = new Map(input.candidates.map((c) => [c.id, c]));
  const byReason: Partial<Record<RejectionReason, number>> = {};
  const byCategory = emptyCategories(() => ({ kept: 0, rejected: 0 }));
  const byDocument: GenerationReport['byDocument'] = {};
  const docRow = (doc: string) => {
    byDocument[doc] ??= { ...emptyCategories(() => 0), rejected: 0 };
    return byDocument[doc];
  };
  for (const d of input.documents) docRow(d);
  for (const v of input.kept) {
    byCategory[v.candidate.body.category].kept++;
    docRow(v.candidate.document)[v.candidate.body.category]++;
  }
  for (const r of input.rejections) {
    byReason[r.reason] = (byReason[r.reason] ?? 0) + 1;
    const c = byId.get(r.candidate);
    if (!c) continue;
    byCategory[c.body.category].rejected++;
    docRow(c.document).rejected++;
  }
  return {
    generator: input.candidates[0]?.generator ?? null,
    seed: input.seed,
    targets: input.targets,
    tasks: input.tasks,
    reusedTasks: input.reusedTasks,
    candidates: input.candidates.length,
    kept: input.kept.length,
    rejected: input.rejections.length,
    byReason,
    byCategory,
    byDocument,
    problems: [...input.problems],
    costUsd: input.costUsd,
    seconds: input.seconds,
    warnings: input.warnings,
  };
}

/** `quote-not-found 12, answer-leaked 3` (reasons in the order of the checks), or `none`. */
export function formatReasons(byReason: GenerationReport['byReason']): string {
  const parts = (Object.keys(REJECTION_REASONS) as RejectionReason[])
    .filter((r) => (byReason[r] ?? 0) > 0)
    .map((r) => `${r} ${byReason[r]}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}

/** The report as Markdown. */
export function formatGenerationReport(r: GenerationReport): string {
  const lines = [
    '# Question generation report',
    '',
    `- generator: ${r.generator ? `${r.generator.id} (${r.generator.kind}${r.generator.kind === 'offline' ? ': a seed set, extractive and templated' : ''}), prompt ${r.generator.prompt_hash}` : 'none'}`,
    `- seed: ${r.seed}`,
    `- tasks: ${r.tasks} (${r.reusedTasks} reused from an earlier run); candidates ${r.candidates}; kept ${r.kept}; rejected ${r.rejected}`,
    `- cost: $${r.costUsd.toFixed(4)} this run; time ${r.seconds.toFixed(1)} s`,
    ...r.warnings.map((w) => `- **warning**: ${w}`),
    '',
    '## Rejected by reason',
    '',
    formatReasons(r.byReason),
    '',
    '## By category',
    '',
    '| category | target | kept | rejected |',
    '|---|---:|---:|---:|',
    ...QUESTION_CATEGORIES.map(
      (c) =>
        `| ${c} | ${r.targets ? r.targets[c] : '-'} | ${r.byCategory[c].kept} | ${r.byCategory[c].rejected} |`,
    ),
    '',
    '## By document (kept per category, and rejected)',
    '',
    '| document | direct | multihop | adversarial | out-of-domain | rejected |',
    '|---|---:|---:|---:|---:|---:|',
    ...Object.entries(r.byDocument).map(
      ([doc, row]) =>
        `| ${doc} | ${row['grounded-direct']} | ${row['grounded-multihop']} | ${row.adversarial} | ${row['out-of-domain']} | ${row.rejected} |`,
    ),
  ];
  if (r.problems.length > 0)
    lines.push('', '## Tasks without candidates', '', ...r.problems.map((p) => `- ${p.task}: ${p.message}`));
  return `${lines.join('\n')}\n`;
}
