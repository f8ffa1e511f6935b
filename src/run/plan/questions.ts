/**
 * The questions of a run's plan: the first N, a seeded stratified sample or the ids asked for, checked
 * against the index their gold was resolved on, and what a narrowed run covers per category (said before
 * the run and shown in its report). Pure.
 */
import { relative } from 'node:path';
import seedrandom from 'seedrandom';
import { goldNotReady } from '../../questions/resolve-evidence.ts';
import type { Question } from '../../questions/schema.ts';
import { RgeError, UsageError } from '../../util/errors.ts';
import { stratifiedSample } from '../../util/shuffle.ts';
import type { RunConfig } from '../config/config.ts';
import { type PlanInputs, resolveFrom } from './types.ts';

function sampleSeed(config: RunConfig): string {
  return `${config.seed}:questions:sample`;
}

/**
 * What to do about questions whose gold is not resolved on this index: `--write` rewrites the question
 * file (often a tracked one), so the message says so and gives the way that keeps it (a copy).
 */
function resolveFix(inputs: PlanInputs): string {
  const file = relative(inputs.root, inputs.questionsFile);
  const indexDir = inputs.config.corpus?.index ?? 'INDEX';
  const index = relative(inputs.root, resolveFrom(inputs.root, indexDir)) || '.';
  return (
    `their gold is resolved on one index: run them on the index they were resolved on, or resolve them on this one with \`rge questions resolve --config ${inputs.configFile} --write\`, which rewrites ${file}; ` +
    `to keep ${file} as it is, resolve a copy (\`cp ${file} COPY && rge questions resolve --questions COPY --index ${index} --write\`) and run with --set questions.file=COPY`
  );
}

/** The questions of the run: the first N, a seeded stratified sample, or the ids asked for. */
function narrowQuestions(inputs: PlanInputs, notes: string[]): Question[] {
  const { request, config, index } = inputs;
  let questions = [...inputs.allQuestions];
  if (request.questions !== undefined) questions = questions.slice(0, request.questions);
  if (request.sample !== undefined)
    questions = stratifiedSample(
      questions,
      request.sample,
      seedrandom(sampleSeed(config)),
      (q) => q.category,
    );
  // gold resolved from evidence patterns is only scored on the index it was resolved on
  const notReady = index ? goldNotReady(questions, index.checksum) : [];
  if (notReady.length > 0) {
    const fix = resolveFix(inputs);
    if (!inputs.dryRun)
      throw new RgeError(`gold not resolved on this index: ${notReady.join('; ')}; ${fix}`, {
        file: inputs.questionsFile,
      });
    notes.push(`warning: ${notReady.join('; ')}; ${fix}`);
  }
  if (request.cases !== undefined) {
    const wanted = new Set(request.cases);
    const missing = [...wanted].filter((id) => !questions.some((q) => q.id === id));
    if (missing.length > 0)
      throw new UsageError(
        `no question ${missing.join(', ')} in ${config.questions.file}${request.questions !== undefined ? ` (first ${request.questions})` : ''}`,
      );
    questions = questions.filter((q) => wanted.has(q.id));
  }
  return questions;
}

/**
 * The run's questions, the notes the front door says before the run (a dry run's gold warnings, what a
 * narrowed run covers), and that coverage for the report. No question is an error, not a run.
 */
export function runQuestions(inputs: PlanInputs): {
  questions: Question[];
  notes: string[];
  slice: string | null;
} {
  const { request, config } = inputs;
  const notes: string[] = [];
  const questions = narrowQuestions(inputs, notes);
  if (questions.length === 0) throw new UsageError(`the run has no question (${config.questions.file})`);
  const slice = sliceCoverage(
    inputs.allQuestions,
    questions,
    request.sample !== undefined
      ? { sampleSeed: sampleSeed(config) }
      : request.cases === undefined && request.questions !== undefined
        ? 'first'
        : 'chosen',
  );
  if (slice) notes.push(`questions: ${slice}`);
  return { questions, notes, slice };
}

/**
 * What a narrowed run covers, per category ("the first 20 of 200 questions: grounded-direct 20 of 45,
 * grounded-multihop 0 of 45, ...", "a stratified sample (seed fixture-v1:questions:sample) of 20 of 200
 * questions: grounded-direct 5 of 45, ..."), so a quick look says plainly what its tables speak for;
 * null for the whole set.
 */
export function sliceCoverage(
  all: readonly Question[],
  chosen: readonly Question[],
  /** how the questions were chosen: the first N, by id, or a stratified sample with its seed */
  how: 'first' | 'chosen' | { sampleSeed: string },
): string | null {
  if (chosen.length === all.length) return null;
  const categories = [...new Set(all.map((q) => q.category))];
  const per = categories.map(
    (c) =>
      `${c} ${chosen.filter((q) => q.category === c).length} of ${all.filter((q) => q.category === c).length}`,
  );
  const what =
    how === 'first'
      ? `the first ${chosen.length}`
      : how === 'chosen'
        ? `${chosen.length} chosen`
        : `a stratified sample (seed ${how.sampleSeed}) of ${chosen.length}`;
  return `${what} of ${all.length} questions: ${per.join(', ')}`;
}
