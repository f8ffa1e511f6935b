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
  const problems: GenerationProblem[] = outcomes.flatMap((o) => (o.problem ? [o.problem] : []));
  const quotes = new QuoteIndex(input.chunks, {
    ...(input.pages ? { pages: input.pages } : {}),
    ...(input.pageless ? { pageless: input.pageless } : {}),
  });
  const { kept, rejections } = await verifyCandidates({
    candidates,
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
  rejections.push(...copies);
  const firstChunk = new Map<string, Chunk>();
  for (const c of input.chunks) if (!firstChunk.has(c.source)) firstChunk.set(c.source, c);
  const questions = toQuestions(kept, (source) => firstChunk.get(source) ?? null, input.indexChecksum);
  const lines = parseQuestionLines(questions.map((q) => JSON.stringify(q)).join('\n'));
  const invalid = validateQuestions(lines, {
    chunks: input.chunks,
    ...(input.indexChecksum ? { indexChecksum: input.indexChecksum } : {}),
  }).issues;
  const report = generationReport({
    candidates,
    kept,
    rejections,
    problems,
    documents: [...firstChunk.keys()],
    targets: input.targets,
    tasks: tasks.length,
    reusedTasks: outcomes.filter((o) => o.reused).length,
    costUsd: outcomes.reduce((s, o) => s + o.costUsd, 0),
    seconds: (performance.now() - started) / 1000,
    seed: input.seed,
    warnings: input.warnings ?? [],
  });
  return { tasks, candidates, questions, rejections, report, invalid };
}
