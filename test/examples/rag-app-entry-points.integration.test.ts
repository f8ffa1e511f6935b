/**
 * The example RAG application's server and command entry points (examples/rag-app/server.ts, cli.ts),
 * each a child process under tsx, give the in-process app's answers to three questions of each
 * category on the test run's fixture world: the server on a free loopback port (400 for a bad body,
 * stopping on SIGTERM), the command a question on stdin (exit 2 on a bad one), and as a pool of JSON
 * Lines. The app itself and its module entry point: test/examples/rag-app.test.ts.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureQuestion, questionSeed } from '../../examples/rag-app/compare.ts';
import { openRagApp, type RagApp, type RagAppOptions } from '../../examples/rag-app/rag.ts';
import type { SystemAnswer, SystemQuestion } from '../../src/system/contract.ts';
import { childOutput } from '../helpers/child.ts';
import { worldOverrides, worldPaths } from '../helpers/fixture-world.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const appDir = join(root, 'examples/rag-app');

let options: RagAppOptions;
let app: RagApp;
let questions: FixtureQuestion[];
let work: string;

const asked = (q: FixtureQuestion, runIndex = 0): SystemQuestion => ({
  id: q.id,
  text: q.text,
  run_index: runIndex,
  seed: questionSeed(q.id, runIndex),
});

beforeAll(async () => {
  await worldOverrides('bm25');
  work = await mkdtemp(join(tmpdir(), 'rge-rag-app-'));
  options = {
    corpus: worldPaths('bm25').pdfs,
    prompt: join(appDir, 'prompt.md'),
    cache: join(work, 'cache'),
  };
  app = await openRagApp(options);
  const lines = (await readFile(join(root, 'fixtures/questions.jsonl'), 'utf8')).split('\n').filter(Boolean);
  questions = lines.map((l) => JSON.parse(l) as FixtureQuestion);
}, 600_000);

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** `node --import tsx examples/rag-app/<script> ARGS`, started in the repository. */
function start(script: string, args: readonly string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ['--import', 'tsx', join(appDir, script), ...args], { cwd: root });
}

/** Runs a child to its end with `input` on stdin: its exit code and output. */
function run(script: string, args: readonly string[], input: string) {
  const child = start(script, args);
  child.stdin.end(input);
  return childOutput(child);
}

/** An answer without what differs from call to call (its latency). */
const comparable = (a: SystemAnswer) => ({ ...a, latency_ms: undefined });

describe('its three entry points', () => {
  /** three questions of each category */
  let sample: FixtureQuestion[];
  /** the in-process app's answers to them */
  let expected: ReturnType<typeof comparable>[];
  const flags = () => ['--corpus', options.corpus, '--cache', options.cache];

  beforeAll(async () => {
    const categories = ['grounded-direct', 'grounded-multihop', 'adversarial', 'out-of-domain'];
    sample = categories.flatMap((c) => questions.filter((q) => q.category === c).slice(0, 3));
    expected = await Promise.all(sample.map(async (q) => comparable(await app.answer(asked(q)))));
    // both kinds of answer are in the sample
    expect(expected.some((a) => a.answer.includes('['))).toBe(true);
    expect(expected.some((a) => a.metadata?.declined === true)).toBe(true);
  });

  it('the server (POST /answer on a free loopback port) gives the same answers, 400 for a bad body, and stops on SIGTERM', async () => {
    const server = start('server.ts', ['--port', '0', ...flags()]);
    const closed = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      server.on('close', (code, signal) => resolve({ code, signal })),
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout.on('data', (d) => {
          out += d;
          const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
          if (m) resolve(m[1] as string);
        });
        void closed.then(({ code }) => reject(new Error(`the server exited (${code}) before it listened`)));
      });
      const post = (body: string) => fetch(`${url}/answer`, { method: 'POST', body });
      for (const [i, q] of sample.entries()) {
        const res = await post(JSON.stringify(asked(q)));
        expect(res.status).toBe(200);
        expect(comparable((await res.json()) as SystemAnswer)).toEqual(expected[i]);
      }
      const notJson = await post('what was the revenue?');
      expect(notJson.status).toBe(400);
      expect(((await notJson.json()) as { error: string }).error).toMatch(/not JSON/);
      const noText = await post('{"id": "q1"}');
      expect(noText.status).toBe(400);
      expect(((await noText.json()) as { error: string }).error).toMatch(/text: a non-empty string/);
      expect((await fetch(`${url}/answer`)).status).toBe(405);
      server.kill('SIGTERM');
      expect(await closed).toEqual({ code: 0, signal: null });
    } finally {
      server.kill();
    }
  });

  it('the command gives the same answer to one question on stdin (exit 0), and exits 2 on a bad one', async () => {
    for (const i of [0, 3, 9]) {
      const { code, out } = await run('cli.ts', flags(), JSON.stringify(asked(sample[i] as FixtureQuestion)));
      expect(code).toBe(0);
      expect(comparable(JSON.parse(out) as SystemAnswer)).toEqual(expected[i]);
    }
    const bad = await run('cli.ts', flags(), '{"id": "q1", "text": ""}');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/rag-app: bad question: text: a non-empty string/);
  });

  it('the command with --pool answers JSON Lines in order until stdin closes (exit 0), a bad line in its place', async () => {
    const lines = sample.map((q) => JSON.stringify(asked(q)));
    lines.splice(2, 0, 'not a question');
    const { code, out } = await run('cli.ts', ['--pool', ...flags()], `${lines.join('\n')}\n`);
    expect(code).toBe(0);
    const replies = out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as SystemAnswer & { error?: string });
    expect(replies).toHaveLength(sample.length + 1);
    expect(replies[2]?.error).toMatch(/not JSON/);
    replies.splice(2, 1);
    expect(replies.map(comparable)).toEqual(expected);
  });
});
