/**
 * The command way in with real child processes: a process per question (stdin JSON in, stdout JSON
 * out) and a pool of long-lived processes speaking JSON Lines; every way a program can fail a question
 * (non-zero exit, signal, timeout, stdout that is not JSON, an answer off the contract, a process that
 * dies), the pool's close (stdin, SIGTERM, SIGKILL), pool processes ending with a parent killed by
 * SIGKILL, and the pre-flight.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type CommandSystemOptions,
  ContractError,
  checkProgram,
  commandSystem,
  SystemFailure,
  type SystemQuestion,
  type SystemUnderTest,
} from '../../src/system/index.ts';
import { scratchDirs } from '../helpers/scratch.ts';
import { until } from '../helpers/wait.ts';
import { isRunning, startSystemChild } from './child-process.ts';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const ONE = join(FIXTURES, 'answer-one.mjs');
const LINES = join(FIXTURES, 'answer-lines.mjs');
const NODE = process.execPath;
const question = (id: string, text = 'What was revenue?'): SystemQuestion => ({
  id,
  text,
  run_index: 1,
  seed: 42,
});
const freshDir = scratchDirs('rge-system-command-');

const opened: SystemUnderTest[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close?.()));
});

function system(argv: string[], overrides: Partial<CommandSystemOptions> = {}): SystemUnderTest {
  const sut = commandSystem({
    argv,
    cwd: FIXTURES,
    timeoutMs: 30_000,
    pool: null,
    concurrency: 2,
    ...overrides,
  });
  opened.push(sut);
  return sut;
}

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the question to fail');
    },
    (e: unknown) => e as SystemFailure,
  );

const pidOf = (answer: { metadata?: Record<string, unknown> | undefined }) => answer.metadata?.pid as number;

/**
 * Waits (up to 10 s) until none of `pids` is running; returns those still running, after killing them
 * (a failing test leaves no process behind).
 */
async function stillRunning(pids: number[]): Promise<number[]> {
  const left = await until(
    async () => pids.filter(isRunning),
    (running) => running.length === 0,
    10_000,
  );
  for (const pid of left) process.kill(pid, 'SIGKILL');
  return left;
}

describe('commandSystem, a process per question', () => {
  it("writes the question to stdin and reads the answer from stdout, with the system's environment", async () => {
    const sut = system([NODE, ONE, 'ok'], { env: { RGE_FIXTURE_ENV: 'from the config' } });
    expect(sut.kind).toBe('command');
    const answer = await sut.answer(question('gd-1'));
    expect(answer).toEqual({
      answer: 'answer to gd-1 [c1]',
      contexts: [{ id: 'c1', text: 'about What was revenue?', source: 'fixture.pdf', page: 1 }],
      metadata: { pid: pidOf(answer), run_index: 1, seed: 42, env: 'from the config' },
    });
    // a process per question
    const again = await sut.answer(question('gd-2'));
    expect(pidOf(again)).not.toBe(pidOf(answer));
  });

  it('a relative program and script run from cwd; a program that never reads stdin still answers', async () => {
    const sut = system(['./answer-one.mjs', 'ignore-stdin']);
    expect(await sut.answer(question('gd-3'))).toEqual({ answer: 'without reading', contexts: [] });
  });

  it('a non-zero exit fails the question, naming the code and the end of stderr', async () => {
    const err = await failureOf(system([NODE, ONE, 'exit3']).answer(question('gd-4')));
    expect(err).toBeInstanceOf(SystemFailure);
    expect(err.questionId).toBe('gd-4');
    expect(err.message).toBe(
      `command ${NODE} ${ONE} exit3: question gd-4: the program exited with code 3; stderr ends: loading the index | Traceback: no index for gd-4`,
    );
  });

  it('a process killed by a signal fails the question, naming the signal', async () => {
    const err = await failureOf(system([NODE, ONE, 'killed']).answer(question('gd-5')));
    expect(err.message).toMatch(/: question gd-5: the program was killed by SIGKILL$/);
  });

  it('stdout that is not JSON fails the question, with an excerpt', async () => {
    const err = await failureOf(system([NODE, ONE, 'not-json']).answer(question('gd-6')));
    expect(err.message).toMatch(
      /: question gd-6: stdout is not JSON: Here is my answer to gd-6: revenue grew\.$/,
    );
  });

  it('no answer in time: the question fails and the whole process group is killed', async () => {
    const err = await failureOf(
      system([NODE, ONE, 'grandchild'], { timeoutMs: 1000 }).answer(question('gd-7')),
    );
    expect(err.message).toMatch(
      /: question gd-7: no answer within 1000 ms \(its process group was killed\); stderr ends: grandchild \d+$/,
    );
    const grandchild = Number(/grandchild (\d+)/.exec(err.message)?.[1]);
    expect(await stillRunning([grandchild])).toEqual([]);
  });

  it('an answer off the contract names the field and the question; so do duplicate context ids', async () => {
    const err = await failureOf(system([NODE, ONE, 'misfit']).answer(question('gd-8')));
    expect(err).toBeInstanceOf(ContractError);
    expect(err.message).toMatch(/^question gd-8: the answer does not fit the contract: answer: /);
    await expect(system([NODE, ONE, 'duplicates']).answer(question('gd-9'))).rejects.toThrow(
      'question gd-9: the answer does not fit the contract: contexts.1.id: duplicate context id "c1" (first at contexts[0])',
    );
  });

  it("the caller's signal: the call rejects with its reason and the process is killed", async () => {
    const sut = system([NODE, ONE, 'sleep']);
    const controller = new AbortController();
    const call = sut.answer(question('gd-10'), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('the run stopped')), 200);
    await expect(call).rejects.toThrow('the run stopped');
  });
});

describe('commandSystem, a pool speaking JSON Lines', () => {
  const pool = (overrides: Partial<CommandSystemOptions> = {}, extra: string[] = []) =>
    system([NODE, LINES, ...extra], { pool: 2, concurrency: 4, ...overrides });

  it('N long-lived processes answer every question, one line each, in order', async () => {
    const sut = pool();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => sut.answer(question(`p-${i}`))));
    expect(answers.map((a) => a.answer)).toEqual(Array.from({ length: 8 }, (_, i) => `answer to p-${i}`));
    const pids = new Set(answers.map(pidOf));
    expect(pids.size).toBe(2);
    // eight answers from two processes: each answered several
    const counts = answers.map((a) => a.metadata?.answered as number);
    expect(Math.max(...counts)).toBeGreaterThan(1);
  });

  it('a process that dies holding a question fails it (not retried) and is replaced', async () => {
    const sut = pool({ pool: 1, concurrency: 1 });
    const before = await sut.answer(question('p-1'));
    const err = await failureOf(sut.answer(question('p-die', 'die')));
    expect(err.message).toMatch(
      /: question p-die: the pool's process exited with code 7 while answering it; stderr ends: dying on p-die$/,
    );
    const after = await sut.answer(question('p-2'));
    expect(pidOf(after)).not.toBe(pidOf(before));
    expect(after.metadata?.answered).toBe(1);
  });

  it('no answer in time: the question fails, the process is killed and replaced', async () => {
    const sut = pool({ pool: 1, concurrency: 1, timeoutMs: 1000 });
    const before = await sut.answer(question('p-1'));
    const err = await failureOf(sut.answer(question('p-hang', 'hang')));
    expect(err.message).toMatch(/: question p-hang: no answer within 1000 ms \(the process was killed\)$/);
    expect(await stillRunning([pidOf(before)])).toEqual([]);
    const after = await sut.answer(question('p-2'));
    expect(after.answer).toBe('answer to p-2');
    expect(pidOf(after)).not.toBe(pidOf(before));
  });

  it("the caller's signal: the question rejects with its reason; its process is killed and replaced", async () => {
    const sut = pool({ pool: 1, concurrency: 1 });
    const before = await sut.answer(question('p-1'));
    const controller = new AbortController();
    const call = sut.answer(question('p-hang', 'hang'), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('the run stopped')), 200);
    await expect(call).rejects.toThrow('the run stopped');
    expect(await stillRunning([pidOf(before)])).toEqual([]);
    expect(pidOf(await sut.answer(question('p-2')))).not.toBe(pidOf(before));
  });

  it('a line that is not JSON fails the question and the process (out of step) is replaced', async () => {
    const sut = pool({ pool: 1, concurrency: 1 });
    const before = await sut.answer(question('p-1'));
    const err = await failureOf(sut.answer(question('p-garbage', 'garbage')));
    expect(err.message).toMatch(
      /: question p-garbage: a line of stdout is not JSON: INFO loading model weights \(the process was killed\)$/,
    );
    const after = await sut.answer(question('p-2'));
    expect(pidOf(after)).not.toBe(pidOf(before));
  });

  it('an answer off the contract fails the question; the process, in step, stays', async () => {
    const sut = pool({ pool: 1, concurrency: 1 });
    const before = await sut.answer(question('p-1'));
    const err = await failureOf(sut.answer(question('p-misfit', 'misfit')));
    expect(err).toBeInstanceOf(ContractError);
    expect(err.message).toMatch(
      /^question p-misfit: the answer does not fit the contract: contexts\.0\.id: /,
    );
    const after = await sut.answer(question('p-2'));
    expect(pidOf(after)).toBe(pidOf(before));
  });

  it('close: stdin is closed and the processes exit; a question after close fails', async () => {
    const sut = pool();
    const answers = await Promise.all([sut.answer(question('p-1')), sut.answer(question('p-2'))]);
    const pids = answers.map(pidOf);
    expect(pids.filter(isRunning)).toEqual(pids);
    await sut.close?.();
    expect(pids.filter(isRunning)).toEqual([]);
    await expect(sut.answer(question('p-3'))).rejects.toThrow(/: question p-3: the pool is closed$/);
  });

  it('close: a process that ignores the end of stdin gets SIGTERM, then SIGKILL', async () => {
    const mark = join(freshDir(), 'signals');
    mkdirSync(join(mark, '..'), { recursive: true });
    const sut = pool({ pool: 1, graceMs: 300, env: { RGE_FIXTURE_MARK: mark } }, ['--stubborn']);
    const pid = pidOf(await sut.answer(question('p-1')));
    await sut.close?.();
    expect(isRunning(pid)).toBe(false);
    expect(readFileSync(mark, 'utf8')).toBe('SIGTERM\n');
  });

  it('pool processes exit when the parent is killed with SIGKILL (their stdin ends)', async () => {
    const child = await startSystemChild(['pool', JSON.stringify([NODE, LINES]), FIXTURES]);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await until(
      async () => out,
      (o) => o.includes('\n'),
      60_000,
    );
    const pids = JSON.parse(out) as number[];
    expect(pids).toHaveLength(2);
    expect(pids.filter(isRunning)).toEqual(pids);
    child.kill('SIGKILL');
    await exited;
    expect(await stillRunning(pids)).toEqual([]);
  });
});

describe('checkProgram: the pre-flight', () => {
  it('finds a program on PATH or by path, and an interpreter with its script', async () => {
    expect(await checkProgram(['node', 'answer-one.mjs'], FIXTURES)).toMatch(/\/node$/);
    expect(await checkProgram(['./answer-one.mjs'], FIXTURES)).toBe(ONE);
    expect(await checkProgram([NODE, '--import', 'tsx', 'app.ts'], FIXTURES)).toBe(NODE);
  });

  it('a program not on PATH, a missing or non-executable path, a missing script, no program: errors naming it', async () => {
    await expect(checkProgram(['rge-no-such-program', 'x'], FIXTURES)).rejects.toThrow(
      "the command system's program rge-no-such-program is not found on PATH (or is not executable); no question was asked",
    );
    await expect(checkProgram(['./bin/answer'], FIXTURES)).rejects.toThrow(
      `the command system's program ./bin/answer is not found at ${join(FIXTURES, 'bin/answer')}`,
    );
    const dir = freshDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'app.sh'), '#!/bin/sh\necho {}\n');
    chmodSync(join(dir, 'app.sh'), 0o644);
    await expect(checkProgram(['./app.sh'], dir)).rejects.toThrow(
      `the command system's program ./app.sh is not found at ${join(dir, 'app.sh')} (or is not executable)`,
    );
    await expect(checkProgram(['node', 'src/app.mjs'], dir)).rejects.toThrow(
      `the command system's script src/app.mjs is not found at ${join(dir, 'src/app.mjs')}; no question was asked`,
    );
    await expect(checkProgram([], dir)).rejects.toThrow(
      'a command system needs a program: its argv is empty',
    );
    await expect(checkProgram(['node'], join(dir, 'absent'))).rejects.toThrow(
      `the command system's working folder ${join(dir, 'absent')} is not a folder`,
    );
  });

  it("the PATH of the system's environment is the one searched", async () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'tools'), { recursive: true });
    writeFileSync(join(dir, 'tools', 'rge-answer'), '#!/bin/sh\n');
    chmodSync(join(dir, 'tools', 'rge-answer'), 0o755);
    await expect(checkProgram(['rge-answer'], dir)).rejects.toThrow(/is not found on PATH/);
    expect(await checkProgram(['rge-answer'], dir, { PATH: join(dir, 'tools') })).toBe(
      join(dir, 'tools', 'rge-answer'),
    );
  });
});
