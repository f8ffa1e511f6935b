/**
 * One generation, from the index's chunks to verified questions: plan the tasks, let the generator
 * write candidates, verify every one, number the kept ones as questions, check them with the question
 * validator (what `rge questions validate` runs), and report. Reading and writing files is the
 * command's (src/cli/questions-generate.ts).
 */
import type { Chunk } from '../../corpus/schema.ts';
import type { JsonlIssue } from '../../util/jsonl.ts';
import { parseQuestionLines } from '../load.ts';
import type { QuestionCategory, QuestionInput } from '../schema.ts';
import { validateQuestions } from '../validate.ts';
import type { Candidate, Rejection } from './candidate.ts';
import type { GenerationProblem, GenerationTask, QuestionGenerator, TaskOutcome } from './generator.ts';
import { planTasks } from './plan.ts';
import { type GenerationReport, generationReport } from './report.ts';
import { toQuestions } from './to-question.ts';
import type { TopK } from './verify/checks.ts';
import { type DocumentPage, QuoteIndex } from './verify/quote-index.ts';
import { type LanguageCheck, verifyCandidates } from './verify/verify.ts';

export interface GenerationInput {
  chunks: readonly Chunk[];
  indexChecksum: string | null;
  generator: QuestionGenerator;
  targets: Record<QuestionCategory, number>;
  seed: string;
  perTask: number;
  overGenerate: number;
  maxShare: number | null;
  retrievers: readonly TopK[];
  pages?: ReadonlyMap<string, readonly DocumentPage[]>;
  pageless?: (source: string) => boolean;
  languages?: ReadonlyMap<string, string | null>;
  detectLanguage?: LanguageCheck['detect'];
  embed?: (texts: readonly string[]) => Promise<ArrayLike<number>[]>;
  /** check 10: a judge of another family confirms each kept question */
  judge?: (v: import('./verify/verify.ts').Verified) => Promise<import('./verify/checks.ts').Failure | null>;
  warnings?: string[];
  signal?: AbortSignal;
  onTask?: (outcome: TaskOutcome, done: number, total: number) => void;
}

export interface GenerationResult {
  tasks: GenerationTask[];
  candidates: Candidate[];
  questions: QuestionInput[];
  rejections: Rejection[];
  report: GenerationReport;
  /** problems the validator found in the questions (none, unless verification let something through) */
  invalid: JsonlIssue[];
}

/**
 * Candidates of every outcome, each id once, and a near-duplicate rejection for every exact copy (one
 * reply writing a question twice, or two tasks writing the same one from the same chunks).
 */
export function distinctCandidates(outcomes: readonly TaskOutcome[]): {
  candidates: Candidate[];
  copies: Rejection[];
} {
  const seen = new Map<string, Candidate>();
  const copies: Rejection[] = [];
  for (const o of outcomes)
    for (const c of o.candidates) {
      if (!seen.has(c.id)) seen.set(c.id, c);
      else
        copies.push({
          candidate: c.id,
          reason: 'near-duplicate',
          message: `an exact copy of ${c.id} (from ${o.task.id})`,
        });
    }
  return { candidates: [...seen.values()], copies };
}

export async function generateQuestions(input: GenerationInput): Promise<GenerationResult> {
  const started = performance.now();
  const tasks = planTasks({
    chunks: input.chunks,
    targets: input.targets,
    perTask: input.perTask,
    overGenerate: input.overGenerate,
    seed: input.seed,
    ...(input.languages ? { languages: input.languages } : {}),
  });
  let done = 0;
  const outcomes = await input.generator.generate(tasks, {
    ...(input.signal ? { signal: input.signal } : {}),
    onTask: (o) => input.onTask?.(o, ++done, tasks.length),
  });
  const { candidates, copies } = distinctCandidates(outcomes);
  const verified = await verifiedQuestions(input, {
    candidates,
    copies,
    problems: outcomes.flatMap((o) => (o.problem ? [o.problem] : [])),
    tasks: tasks.length,
    reusedTasks: outcomes.filter((o) => o.reused).length,
    costUsd: outcomes.reduce((s, o) => s + o.costUsd, 0),
    started,
  });
  return { tasks, ...verified };
}

/** What verification is given besides the index and its settings: the candidates and how they were made. */
export interface CandidateSet {
  candidates: Candidate[];
  /** exact copies, rejected as near-duplicates before verification */
  copies: Rejection[];
  /** units of generation (tasks, logged traces) that gave no candidate, with the reason */
  problems: GenerationProblem[];
  tasks: number;
  reusedTasks: number;
  costUsd: number;
  /** when the generation started (performance.now()), for the report's time */
  started: number;
  /** the quote index the candidates were made with, when they were (else one is built here) */
  quotes?: QuoteIndex;
}

/**
 * Every candidate verified against the index, the kept ones numbered as questions and checked with the
 * question validator, and the report: what `rge questions generate` and `rge questions from-traces` share.
 */
export async function verifiedQuestions(
  input: Omit<GenerationInput, 'generator' | 'perTask' | 'overGenerate' | 'targets'> & {
    targets: GenerationInput['targets'] | null;
  },
  set: CandidateSet,
): Promise<Omit<GenerationResult, 'tasks'>> {
  const quotes =
    set.quotes ??
    new QuoteIndex(input.chunks, {
      ...(input.pages ? { pages: input.pages } : {}),
      ...(input.pageless ? { pageless: input.pageless } : {}),
    });
  const { kept, rejections } = await verifyCandidates({
    candidates: set.candidates,
    quotes,
    retrievers: input.retrievers,
    ...(input.embed ? { embed: input.embed } : {}),
    ...(input.detectLanguage && input.languages
      ? { language: { detect: input.detectLanguage, documents: input.languages } }
      : {}),
    target: input.targets,
    maxShare: input.maxShare,
    ...(input.judge ? { judge: input.judge } : {}),
  });
  rejections.push(...set.copies);
  const firstChunk = new Map<string, Chunk>();
  for (const c of input.chunks) if (!firstChunk.has(c.source)) firstChunk.set(c.source, c);
  const questions = toQuestions(kept, (source) => firstChunk.get(source) ?? null, input.indexChecksum);
  const lines = parseQuestionLines(questions.map((q) => JSON.stringify(q)).join('\n'));
  const invalid = validateQuestions(lines, {
    chunks: input.chunks,
    ...(input.indexChecksum ? { indexChecksum: input.indexChecksum } : {}),
  }).issues;
  const report = generationReport({
    candidates: set.candidates,
    kept,
    rejections,
    problems: set.problems,
    documents: [...firstChunk.keys()],
    targets: input.targets,
    tasks: set.tasks,
    reusedTasks: set.reusedTasks,
    costUsd: set.costUsd,
    seconds: (performance.now() - set.started) / 1000,
    seed: input.seed,
    warnings: input.warnings ?? [],
  });
  return { candidates: set.candidates, questions, rejections, report, invalid };
}
