/**
 * What every question generator shares: the task (the chunks a generator is shown, the category and
 * how many candidates it should write) and the interface the offline extractive generator and a model
 * of the registry both implement. Which tasks a run has (the mix, the spread over documents) is
 * plan.ts's; what is kept is verification's (verify/).
 */
import type { Chunk } from '../../corpus/schema.ts';
import type { GeneratorRef, QuestionCategory } from '../schema.ts';
import type { Candidate } from './candidate.ts';

/** One unit of generation: a generator is shown `chunks` (never a whole long document) and writes candidates. */
export interface GenerationTask {
  /** stable within a plan: `{category}:{document}:{first chunk id}[+...]` */
  id: string;
  category: QuestionCategory;
  /** the document (Chunk.source) the task is about */
  document: string;
  /** one chunk; two or more of one document for multihop */
  chunks: readonly Chunk[];
  /** candidates asked for */
  count: number;
  /** the language the questions must be written in (the document's, ISO 639-1), when known */
  language: string | null;
}

/** A task a generator could not do, with the reason (a reply in prose, malformed JSON, a refusal). */
export interface GenerationProblem {
  task: string;
  message: string;
}

/** What a generator gives for one task: its candidates, or the problem; `costUsd` what it paid now. */
export interface TaskOutcome {
  task: GenerationTask;
  candidates: Candidate[];
  problem: GenerationProblem | null;
  /** paid in this process for this task (0 when it came from a stored cell or costs nothing) */
  costUsd: number;
  /** the task's result was stored by an earlier run (a rerun pays nothing for it) */
  reused: boolean;
}

export interface GenerateOptions {
  signal?: AbortSignal;
  /** called as each task finishes, in completion order */
  onTask?: (outcome: TaskOutcome) => void;
}

export interface QuestionGenerator {
  /** the generator's identity, its seed included */
  readonly ref: GeneratorRef;
  generate(tasks: readonly GenerationTask[], opts?: GenerateOptions): Promise<TaskOutcome[]>;
}
