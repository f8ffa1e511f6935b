/**
 * Human validation of the judges (methodology 5.3-5.5):
 *   rge validation sample   draw the 50-response validation set from a run's completed cells
 *   rge validation label    label a validation sample in a local page (127.0.0.1)
 *   rge validation review   hand-review the run's contested responses in the same page
 * (`rge label` and `rge review`, their old names, still work: labelling-commands.ts)
 * The run's stores are only read (a dry-run preparation: no call, no key, nothing written to them). Give
 * the same --config, narrowing (--subjects, --questions, --runs) and --set as the run, so the cells are
 * the run's.
 */
import { userInfo } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { QUESTION_CATEGORIES } from '../questions/schema.ts';
import { type CaseRow, caseRow } from '../run/case/case.ts';
import { parseRunRequest, usesIndex } from '../run/plan/index.ts';
import { contextsOf, openRun, type RunSession, type SubjectCell } from '../run/session/index.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/fs.ts';
import {
  type CompletedResponse,
  completedResponses,
  drawValidationSample,
  labelSession,
  labelsFile,
  latestSampleFile,
  loadSample,
  PersonName,
  reviewSession,
  type StoredCell,
  setAsideTornTail,
  startValidationServer,
  tornFile,
  type ValidationSample,
  type ValidationServer,
} from '../validation/index.ts';
import { untilInterrupted } from './interrupt.ts';
import { type CliIO, existingPath, positiveInteger } from './io.ts';

interface RunFlags {
  config: string;
  subjects?: string;
  questions?: string;
  runs?: string;
  set?: string[];
  resultsDir: string;
}

export interface SampleFlags extends RunFlags {
  out?: string;
  seed?: string;
  size: string;
}

export interface LabelFlags {
  sample?: string;
  labeller?: string;
  port: string;
  labelsDir: string;
}

export interface ReviewFlags extends RunFlags {
  reviewer?: string;
  labelsDir: string;
  port: string;
}

function portOf(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new UsageError(`--port must be an integer from 0 (any free port) to 65535, got "${value}"`);
  return n;
}

function personOf(flag: string, value: string | undefined): string {
  const name = value ?? (process.env.USER || userInfo().username);
  const parsed = PersonName.safeParse(name);
  if (!parsed.success) throw new UsageError(`--${flag} ${parsed.error.issues[0]?.message ?? 'is not valid'}`);
  return parsed.data;
}

/** A path as the user gave it: relative to the working folder when inside it. */
function shown(io: CliIO, file: string): string {
  const rel = relative(io.cwd, file);
  return rel && !rel.startsWith('..') ? rel : file;
}

/** The run as stored: prepared without calling or writing anything. */
async function storedRun(flags: RunFlags, io: CliIO): Promise<RunSession> {
  const request = parseRunRequest({
    config: flags.config,
    resultsDir: resolve(io.cwd, flags.resultsDir),
    subjects: flags.subjects,
    questions: flags.questions,
    runs: flags.runs,
    overrides: flags.set,
  });
  const run = await openRun(request, {
    root: io.cwd,
    dryRun: true,
    calls: false,
    log: (line) => io.err(`${line}\n`),
  });
  // the responses to read are a run of this config, which needs its index: say what to run first
  const corpus = run.plan.config.corpus;
  if (!run.index && corpus && usesIndex(run.plan.subjects))
    throw new RgeError(
      `no run of ${flags.config} to read: its index (${shown(io, corpus.index)}) is not built; ` +
        `run \`rge corpus fetch\`, \`rge corpus ingest --config ${flags.config}\` and \`rge eval run --config ${flags.config}\` first`,
      { file: flags.config },
    );
  return run;
}

/**
 * The run's cells, each with its case row from the stores (null: its answer or a verdict is not stored);
 * a cell's chunks are the passages its subject answered from (a system's own contexts), as its judges
 * read them.
 */
async function storedCells(run: RunSession): Promise<StoredCell<SubjectCell, CaseRow>[]> {
  const stored: StoredCell<SubjectCell, CaseRow>[] = [];
  for (const cell of await run.work.cells()) {
    try {
      const answer = run.answers(cell.subject).get(cell.key);
      const seen = answer ? { ...cell, chunks: contextsOf(cell, answer) } : cell;
      stored.push({ cell: seen, row: caseRow(run, cell) });
    } catch (err) {
      if (!(err instanceof RgeError)) throw err;
      stored.push({ cell, row: null });
    }
  }
  return stored;
}

/**
 * A run's completed responses (validation items beside their case rows), read from its stores: nothing
 * is called and nothing is written. A run with none is an error saying so (exit 1): run it first.
 */
export async function runResponses(
  run: RunSession,
): Promise<{ responses: CompletedResponse<SubjectCell, CaseRow>[]; missing: number }> {
  return completedResponses(await storedCells(run), {
    runId: run.plan.info.runId,
    resultsDir: run.plan.info.resultsDir,
  });
}

/** `rge validation sample`: draws, writes and describes the validation sample; returns it. */
export async function sampleCommand(
  flags: SampleFlags,
  io: CliIO,
): Promise<{ sample: ValidationSample; file: string }> {
  const size = positiveInteger('size', flags.size) as number;
  const run = await storedRun(flags, io);
  const { responses, missing } = await runResponses(run);
  const sample = drawValidationSample(
    responses.map((r) => r.item),
    {
      size,
      seed: flags.seed ?? `${run.plan.config.seed}:validation`,
      subjects: run.plan.subjects.map((s) => s.id),
      config: flags.config,
      configName: run.plan.config.name,
      runId: run.plan.info.runId,
      createdAt: new Date().toISOString(),
    },
  );
  const file = resolve(io.cwd, flags.out ?? join('data', 'labels', 'samples', `${sample.sample_id}.json`));
  await writeFileAtomic(file, `${JSON.stringify(sample, null, 2)}\n`);
  const lines = [
    `sample ${sample.sample_id}: ${sample.items.length} responses of run ${run.plan.info.runId} (seed "${sample.seed}")`,
    ...QUESTION_CATEGORIES.map((c) => {
      const bySubject = Object.entries(sample.allocation[c]);
      const n = bySubject.reduce((sum, [, k]) => sum + k, 0);
      return `  ${c.padEnd(18)} ${String(n).padStart(3)}  ${bySubject.map(([s, k]) => `${s} ${k}`).join(', ')}`;
    }),
    ...(missing > 0 ? [`  (${missing} cell(s) of the run are not complete and were not drawn from)`] : []),
    `written ${shown(io, file)}; label it with: rge validation label --sample ${shown(io, file)}`,
  ];
  io.out(`${lines.join('\n')}\n`);
  return { sample, file };
}

/** A labels file a crash left with a cut-off last line: the line set aside in `<file>.torn`, with a note. */
async function repairLabels(io: CliIO, file: string): Promise<void> {
  const cut = await setAsideTornTail(file);
  if (cut)
    io.err(
      `rge validation label: note: ${shown(io, file)}:${cut.line}: a cut-off last line (${cut.bytes} bytes, a label ` +
        `being saved when rge stopped) is not a label; it was moved to ${shown(io, tornFile(file))}\n`,
    );
}

/** `rge validation label` without the wait: starts the server over the sample and prints its URL. */
export async function startLabelling(flags: LabelFlags, io: CliIO): Promise<ValidationServer> {
  const labelsDir = resolve(io.cwd, flags.labelsDir);
  const labeller = personOf('labeller', flags.labeller);
  const port = portOf(flags.port);
  const file = flags.sample
    ? existingPath(io.cwd, '--sample', flags.sample, 'file')
    : await latestSampleFile(labelsDir);
  if (!file)
    throw new UsageError(
      `no validation sample in ${join(labelsDir, 'samples')}; draw one with rge validation sample, or give --sample`,
    );
  const sample = await loadSample(file);
  await repairLabels(io, labelsFile(labelsDir, sample.sample_id));
  const session = labelSession(sample, labeller, labelsDir);
  const state = await session.state(); // reads the labels file: a bad line stops rge before it listens
  const server = await startValidationServer(session, {
    port,
    onError: (m) => io.err(`rge validation label: ${m}\n`),
  });
  io.out(
    `labelling sample ${sample.sample_id} (${sample.items.length} responses) as ${labeller}: ` +
      `${Object.keys(state.done).length} labelled so far; labels go to ${shown(io, session.file)}\n` +
      `open ${server.url}  (Ctrl-C stops)\n`,
  );
  return server;
}

/** `rge validation review` without the wait: starts the server over the run's contested responses (null: none). */
export async function startReviewing(flags: ReviewFlags, io: CliIO): Promise<ValidationServer | null> {
  const labelsDir = resolve(io.cwd, flags.labelsDir);
  const reviewer = personOf('reviewer', flags.reviewer);
  const port = portOf(flags.port);
  const run = await storedRun(flags, io);
  const { responses, missing } = await runResponses(run);
  const contested = responses
    .filter((r) => r.row.scores.contested)
    .map((r) => ({ item: r.item, contestedDimensions: r.row.scores.contestedDimensions }));
  const of = `${responses.length} completed responses of run ${run.plan.info.runId}${missing > 0 ? ` (${missing} cell(s) not complete)` : ''}`;
  if (contested.length === 0) {
    io.out(`no contested responses among the ${of}: nothing to review\n`);
    return null;
  }
  const session = reviewSession(run.plan.info.runId, contested, reviewer, labelsDir);
  const server = await startValidationServer(session, {
    port,
    onError: (m) => io.err(`rge validation review: ${m}\n`),
  });
  const state = await session.state();
  io.out(
    `${contested.length} contested responses among the ${of}; reviewing as ${reviewer}: ` +
      `${Object.keys(state.done).length} reviewed so far; reviews go to ${shown(io, session.file)}\n` +
      `open ${server.url}  (Ctrl-C stops)\n`,
  );
  return server;
}

export async function serveUntilInterrupted(server: ValidationServer | null, io: CliIO): Promise<void> {
  if (!server) return;
  await untilInterrupted();
  await server.close();
  io.out('stopped; everything given is saved\n');
}
