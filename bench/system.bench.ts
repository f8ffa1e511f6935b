/**
 * A user's own RAG system as the subject (src/system): what rge's harness costs on the module way in,
 * and what a pool saves on the command way in. Every reference is measured in the same run.
 *
 * 1. The module way in: the harness's cost per case against calling the same function in a plain loop
 *    (the goal: within 1.3x), for two functions:
 *    - `fixed`, a module written to the scratch folder that scores 4 fixed passages of 100 words
 *      (seeded) against the question's words and answers with them as its contexts: a system that
 *      answers in microseconds, so that rge's cost shows;
 *    - rag-app's `answer` (examples/rag-app/app.ts): BM25 over its own passages of the fixture world's
 *      20 PDFs, then its offline model; about a millisecond a question.
 *    Each side asks the fixture's 200 questions in turn, one at a time (each awaited before the next),
 *    in short interleaved repetitions (medians, after a warm-up), and all three call one instance of
 *    the function (`forwardingModule`):
 *    - plain loop: `await answer(question, { signal })`, the function imported through tsx as rge
 *      imports a module;
 *    - `loadModuleSystem(...).answer(question)`: the copy of the question, the timeout, the signal and
 *      the contract's check of the answer;
 *    - the `SystemSubject` of a run opened on a config whose subject is the module, as the stages ask a
 *      cell (`run.subjectOf(id).answer(cell)`): that, and its slot (concurrency 4), the cap check
 *      against the run's ledger and the reply. The cell's lease, which the stages claim in
 *      `beforeSend`, is left out (a no-op here): it is the run's, below.
 *    Then `fixed` with every cell submitted at once, as the stages submit them (concurrency 4), against
 *    4 workers of a plain loop sharing the questions; and the whole run of `fixed` (`runStages` on a
 *    fresh results folder: leases, cell stores, the two heuristic judges' verdicts), per case, against
 *    the plain loop: what a run costs beside the answers, not the 1.3x goal.
 * 2. The command way in, with rag-app's cli.ts (`node --import tsx`: a process's start-up, about 1 s
 *    here, is the point): a process per question against a pool of long-lived processes speaking
 *    JSON Lines (`--pool`), 2 at once and 1 at a time. The pool's start-up is left out of its rate (its
 *    processes are started by a first round of questions) and logged.
 *
 * rag-app runs on the fixture world (test/helpers/fixture-world.ts) with its passage cache in the
 * scratch folder: nothing is written into the working tree.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import seedrandom from 'seedrandom';
import type { RunSession } from '../src/run/session/open.ts';
import type { SubjectCell } from '../src/run/session/work.ts';
import { runStages } from '../src/run/stages/stages.ts';
import { commandSystem } from '../src/system/command.ts';
import type { SystemQuestion } from '../src/system/contract.ts';
import { loadModuleSystem, type SystemFunction } from '../src/system/module.ts';
import { worldOverrides, worldPaths } from '../test/helpers/fixture-world.ts';
import { openTestRun } from '../test/helpers/open-run.ts';
import { systemConfig } from '../test/helpers/system-config.ts';
import { type Bench, type BenchContext, type BenchRow, latencyRow, percentile } from './harness.ts';

const TIMEOUT_MS = 120_000;
const quiet = () => {};
const noop = async () => {};

const bench: Bench = async (ctx) => {
  await worldOverrides('bm25');
  const cache = join(ctx.tmp, 'rag-app-cache');
  // rag-app's module entry reads these on its first question (examples/rag-app/config.ts)
  const saved = { corpus: process.env.RAG_APP_CORPUS, cache: process.env.RAG_APP_CACHE };
  process.env.RAG_APP_CORPUS = worldPaths().pdfs;
  process.env.RAG_APP_CACHE = cache;
  const functions = {
    fixed: await importFunction(await writeFixedModule(ctx.tmp)),
    'rag-app': await importFunction(join(ctx.root, 'examples/rag-app/app.ts')),
  };
  const modules = {
    fixed: await forwardingModule(ctx.tmp, 'fixed', functions.fixed),
    'rag-app': await forwardingModule(ctx.tmp, 'rag-app', functions['rag-app']),
  };
  const { config, overrides, dir } = await systemConfig(
    Object.entries(modules).map(([id, module]) => ({ id, provider: 'module', module, concurrency: 4 })),
  );
  try {
    const open = (resultsDir: string, extra: { subjects?: string[]; questions?: number } = {}) =>
      openTestRun({ config, overrides, resultsDir, runs: 1, root: ctx.root, log: quiet, ...extra });
    const run = await open(join(ctx.tmp, 'results'));
    const rows = [
      ...(await answerPathRows(ctx, run, 'fixed', functions.fixed, modules.fixed)),
      ...(await answerPathRows(ctx, run, 'rag-app', functions['rag-app'], modules['rag-app'])),
      await allAtOnceRow(ctx, run, functions.fixed),
    ];
    // a warm-up run first: the judges' and stores' modules are loaded on a run's first use
    const warm = await open(join(ctx.tmp, 'results-warm'), { subjects: ['fixed'], questions: 5 });
    await runStages(warm, { log: quiet });
    const whole = await open(join(ctx.tmp, 'results-whole'), {
      subjects: ['fixed'],
      questions: ctx.quick ? 40 : 200,
    });
    rows.push(await wholeRunRow(ctx, whole, functions.fixed));
    const { questions } = await cellsOf(run, 'rag-app');
    for (const session of [run, warm, whole]) await session.close();
    return [...rows, ...(await commandRows(ctx, cache, questions))];
  } finally {
    restoreEnv('RAG_APP_CORPUS', saved.corpus);
    restoreEnv('RAG_APP_CACHE', saved.cache);
    delete (globalThis as Record<string, unknown>)[FORWARD_TO];
    await rm(dir, { recursive: true, force: true });
  }
};

export default bench;

function restoreEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** The `fixed` system: 4 seeded passages of 100 words, scored against the question's words. */
async function writeFixedModule(dir: string): Promise<string> {
  const random = seedrandom('system-bench');
  const vocabulary = (
    'revenue profit margin crore segment fiscal year consolidated standalone board dividend capital ' +
    'expenditure cash flow operations assets liabilities equity shares growth retail digital energy ' +
    'telecom refining petrochemicals customers subscribers employees emissions water audit'
  ).split(' ');
  const word = () => vocabulary[Math.floor(random() * vocabulary.length)] as string;
  const passages = Array.from({ length: 4 }, () => Array.from({ length: 100 }, word).join(' '));
  const file = join(dir, 'fixed.mts');
  await writeFile(
    file,
    `// bench/system.bench.ts: a system that answers in microseconds
const PASSAGES: string[] = ${JSON.stringify(passages)};
const WORDS = PASSAGES.map((p) => new Set(p.split(' ')));

export default async function answer(question: { id: string; text: string }) {
  const terms = question.text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  const contexts = PASSAGES.map((text, i) => ({
    id: \`acme-fy24#p\${i + 1}\`,
    text,
    source: 'acme-fy24.pdf',
    page: i + 1,
    score: terms.filter((t) => WORDS[i]?.has(t)).length / Math.max(1, terms.length),
  }));
  contexts.sort((a, b) => b.score - a.score);
  return {
    answer: \`Revenue grew in FY24 [\${contexts[0]?.id}].\`,
    contexts,
    usage: { input_tokens: 4 * 130, output_tokens: 12 },
    model: 'fixed',
  };
}
`,
  );
  return file;
}

/** Where the forwarding modules find the functions they forward to. */
const FORWARD_TO = 'rgeSystemBench';

/**
 * A module whose default export forwards to `fn`: rge loads it as it loads any module system (a
 * namespace of its own) and so calls the very function the plain loop calls. Two modules of one file
 * are two instances (their code compiled, and rag-app's passages loaded, once each), whose speed
 * differed by up to 15% here, more than the harness costs; one more call is all the forwarding adds.
 */
async function forwardingModule(dir: string, id: string, fn: SystemFunction): Promise<string> {
  const g = globalThis as Record<string, unknown>;
  g[FORWARD_TO] = { ...(g[FORWARD_TO] as Record<string, SystemFunction> | undefined), [id]: fn };
  const file = join(dir, `forward-${id}.mts`);
  await writeFile(
    file,
    `// bench/system.bench.ts: the function the plain loop calls
const fn = (globalThis as any).${FORWARD_TO}[${JSON.stringify(id)}];
export default function answer(question: unknown, opts: unknown) {
  return fn(question, opts);
}
`,
  );
  return file;
}

/** The module's default export, imported through tsx as rge imports it (a namespace of its own). */
async function importFunction(file: string): Promise<SystemFunction> {
  const { tsImport } = await import('tsx/esm/api');
  const namespace = (await tsImport(pathToFileURL(file).href, import.meta.url)) as {
    default: SystemFunction;
  };
  return namespace.default;
}

/** The subject's cells (the fixture's questions, in order) and their questions. */
async function cellsOf(
  run: RunSession,
  subject: string,
): Promise<{ cells: SubjectCell[]; questions: SystemQuestion[] }> {
  const cells = (await run.work.cells()).filter((c) => c.subject.id === subject);
  const questions = cells.map((c) => {
    if (c.ask.kind !== 'system') throw new Error(`${c.id}: not a system's cell`);
    return c.ask.question;
  });
  return { cells, questions };
}

/**
 * Times each side `reps` times, interleaved (a, b, c, a, b, c, ...) after one warm-up round; each
 * side asks `n` questions a repetition, from the `start`-th on (the same ones as the other sides). Short repetitions, many of them: this machine's load moves
 * from second to second, and each side gets its share of it. The median ms per question of each,
 * and every repetition's.
 */
async function timeSides(
  sides: Record<string, (n: number, start: number) => Promise<void>>,
  n: number,
  reps: number,
): Promise<Record<string, { median: number; all: number[] }>> {
  for (const side of Object.values(sides)) await side(n, 0);
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
  for (let r = 0; r < reps; r++)
    for (const [name, side] of Object.entries(sides)) {
      const t0 = performance.now();
      await side(n, r * n);
      times[name]?.push((performance.now() - t0) / n);
    }
  return Object.fromEntries(
    Object.entries(times).map(([name, all]) => [
      name,
      {
        median: percentile(
          [...all].sort((a, b) => a - b),
          0.5,
        ),
        all,
      },
    ]),
  );
}

const us = (ms: number) => `${(ms * 1000).toFixed(1)} us`;

/** Repetitions' times in brief: their median, quartiles and range. */
function describe(all: readonly number[]): string {
  const sorted = [...all].sort((a, b) => a - b);
  const at = (p: number) => us(percentile(sorted, p));
  return `median ${at(0.5)} (quartiles ${at(0.25)}-${at(0.75)}, range ${at(0)}-${at(1)}, ${all.length} repetitions)`;
}

/** One module's three answer paths, one question at a time: plain loop, loadModuleSystem, SystemSubject. */
async function answerPathRows(
  ctx: BenchContext,
  run: RunSession,
  id: string,
  fn: SystemFunction,
  file: string,
): Promise<BenchRow[]> {
  const system = await loadModuleSystem({ file, timeoutMs: TIMEOUT_MS });
  const subject = run.subjectOf(id);
  const { cells, questions } = await cellsOf(run, id);
  const signal = new AbortController().signal;
  const fast = id === 'fixed';
  const n = fast ? (ctx.quick ? 500 : 2000) : 40;
  const reps = ctx.quick ? (fast ? 20 : 15) : 50;
  const t = await timeSides(
    {
      plain: async (count, start) => {
        for (let i = start; i < start + count; i++)
          await fn(questions[i % questions.length] as SystemQuestion, { signal });
      },
      module: async (count, start) => {
        for (let i = start; i < start + count; i++)
          await system.answer(questions[i % questions.length] as SystemQuestion);
      },
      subject: async (count, start) => {
        for (let i = start; i < start + count; i++)
          await subject.answer(cells[i % cells.length] as SubjectCell, { beforeSend: noop });
      },
    },
    n,
    reps,
  );
  const plain = t.plain?.median ?? Number.NaN;
  const moduleMs = t.module?.median ?? Number.NaN;
  const subjectMs = t.subject?.median ?? Number.NaN;
  for (const [name, side] of Object.entries(t)) ctx.log(`${id} ${name}: ${describe(side.all)} a question`);
  const reference = { name: `plain loop awaiting ${id}'s answer`, value: plain };
  const what = `${n} questions x ${reps} interleaved repetitions, one at a time, medians`;
  return [
    latencyRow(
      `module system ${id}: SystemSubject answer path per case (one at a time)`,
      'ms',
      subjectMs,
      reference,
      `${what}; rge's cost ${us(subjectMs - plain)} a case; goal: ratio >= 0.77 (within 1.3x)`,
    ),
    latencyRow(
      `module system ${id}: loadModuleSystem answer per case (one at a time)`,
      'ms',
      moduleMs,
      reference,
      `${what}; ${us(moduleMs - plain)} a case`,
    ),
  ];
}

/** `fixed` with every cell submitted at once (concurrency 4), against 4 workers of a plain loop. */
async function allAtOnceRow(ctx: BenchContext, run: RunSession, fn: SystemFunction): Promise<BenchRow> {
  const subject = run.subjectOf('fixed');
  const { cells, questions } = await cellsOf(run, 'fixed');
  const signal = new AbortController().signal;
  const n = ctx.quick ? 500 : 2000;
  const reps = ctx.quick ? 20 : 50;
  const t = await timeSides(
    {
      plain: async (count) => {
        let next = 0;
        const worker = async () => {
          for (let i = next++; i < count; i = next++)
            await fn(questions[i % questions.length] as SystemQuestion, { signal });
        };
        await Promise.all([worker(), worker(), worker(), worker()]);
      },
      subject: async (count) => {
        await Promise.all(
          Array.from({ length: count }, (_, i) =>
            subject.answer(cells[i % cells.length] as SubjectCell, { beforeSend: noop }),
          ),
        );
      },
    },
    n,
    reps,
  );
  const plain = t.plain?.median ?? Number.NaN;
  const subjectMs = t.subject?.median ?? Number.NaN;
  for (const [name, side] of Object.entries(t))
    ctx.log(`fixed, every cell at once, ${name}: ${describe(side.all)} a question`);
  return latencyRow(
    'module system fixed: SystemSubject, every cell at once (concurrency 4), per case',
    'ms',
    subjectMs,
    { name: 'plain loop, 4 workers', value: plain },
    `${n} cells x ${reps} interleaved repetitions, medians; rge's cost ${us(subjectMs - plain)} a case`,
  );
}

/** The whole run of `fixed` (answers, leases, cell stores, verdicts) per case, against the plain loop. */
async function wholeRunRow(ctx: BenchContext, run: RunSession, fn: SystemFunction): Promise<BenchRow> {
  const { questions } = await cellsOf(run, 'fixed');
  const signal = new AbortController().signal;
  const t0 = performance.now();
  const { state } = await runStages(run, { log: quiet });
  const runMs = (performance.now() - t0) / questions.length;
  const t1 = performance.now();
  const rounds = 50;
  for (let r = 0; r < rounds; r++) for (const q of questions) await fn(q, { signal });
  const plain = (performance.now() - t1) / (rounds * questions.length);
  const { answers, verdicts } = state.counts;
  ctx.log(`whole run: ${questions.length} cases in ${(runMs * questions.length).toFixed(0)} ms`);
  if (answers.computed !== questions.length || verdicts.computed !== 2 * questions.length)
    throw new Error(`the whole run did not compute every cell: ${JSON.stringify(state.counts)}`);
  return latencyRow(
    'module system fixed: whole run per case (answer, lease, cell stores, 2 heuristic judges)',
    'ms',
    runMs,
    { name: "plain loop awaiting fixed's answer", value: plain },
    `${questions.length} fresh cases, one run; what a run costs beside the answers, not the 1.3x goal`,
  );
}

/** rag-app's cli.ts on the command way in: a pool of 2 and of 1, each against a process per question. */
async function commandRows(
  ctx: BenchContext,
  cache: string,
  questions: SystemQuestion[],
): Promise<BenchRow[]> {
  const argv = [
    process.execPath,
    '--import',
    'tsx',
    'examples/rag-app/cli.ts',
    '--corpus',
    worldPaths().pdfs,
    '--cache',
    cache,
  ];
  const rows: BenchRow[] = [];
  for (const size of [2, 1]) {
    const perProcess = await perProcessMs(ctx, argv, questions, size);
    const pool = await poolMs(ctx, argv, questions, size);
    rows.push(
      latencyRow(
        `command system rag-app cli.ts: pool of ${size} (JSON Lines), per question`,
        'ms',
        pool.ms,
        { name: `a process per question, ${size} at once`, value: perProcess.ms },
        `${pool.what}; per process: ${perProcess.what}`,
      ),
    );
  }
  return rows;
}

/** A process per question, `concurrency` at once: wall time per question over `n` questions asked at once. */
async function perProcessMs(
  ctx: BenchContext,
  argv: string[],
  questions: SystemQuestion[],
  concurrency: number,
): Promise<{ ms: number; what: string }> {
  const system = commandSystem({ argv, cwd: ctx.root, timeoutMs: TIMEOUT_MS, pool: null, concurrency });
  const n = (ctx.quick ? 2 : 8) * concurrency;
  await system.answer(questions[0] as SystemQuestion); // warm-up: the files in the OS's cache
  const t0 = performance.now();
  await Promise.all(questions.slice(1, n + 1).map((q) => system.answer(q)));
  const ms = (performance.now() - t0) / n;
  ctx.log(`process per question, ${concurrency} at once: ${n} questions, ${ms.toFixed(0)} ms each`);
  return { ms, what: `${n} questions, one run` };
}

/**
 * A pool of `size` processes: its start-up (the first `size` questions, which start them) is logged
 * and left out; then the median of repetitions of `n` questions asked at once.
 */
async function poolMs(
  ctx: BenchContext,
  argv: string[],
  questions: SystemQuestion[],
  size: number,
): Promise<{ ms: number; what: string }> {
  const system = commandSystem({
    argv: [...argv, '--pool'],
    cwd: ctx.root,
    timeoutMs: TIMEOUT_MS,
    pool: size,
    concurrency: size,
  });
  try {
    const t0 = performance.now();
    await Promise.all(questions.slice(0, size).map((q) => system.answer(q)));
    const startMs = performance.now() - t0;
    const n = ctx.quick ? 20 : 200;
    const reps = ctx.quick ? 3 : 5;
    const all: number[] = [];
    for (let r = 0; r < reps; r++) {
      const t1 = performance.now();
      await Promise.all(
        Array.from({ length: n }, (_, i) => system.answer(questions[i % questions.length] as SystemQuestion)),
      );
      all.push((performance.now() - t1) / n);
    }
    const ms = percentile(
      [...all].sort((a, b) => a - b),
      0.5,
    );
    ctx.log(
      `pool of ${size}: start-up and first answers ${startMs.toFixed(0)} ms; then ${all.map((x) => x.toFixed(2)).join(', ')} ms a question`,
    );
    return {
      ms,
      what: `${n} questions x ${reps} repetitions, median, after the pool's start-up (${startMs.toFixed(0)} ms, left out)`,
    };
  } finally {
    await system.close?.();
  }
}
