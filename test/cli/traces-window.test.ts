/**
 * `rge traces judge` and `rge traces drift` over windows of logged cases written directly as TraceCase
 * JSON Lines (the importers are tested on their own): no call to the application, correctness only for
 * a question of the golden set, a seeded stratified sample, and the drift gate failing a planted drop in
 * grounding and passing a reshuffle of the same cases.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import type { TraceCase } from '../../src/traces/case.ts';
import { JudgedTraceCase } from '../../src/traces/judged.ts';
import { runRge } from '../helpers/cli.ts';
import { root } from '../helpers/live.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const scratch = scratchDirs('rge-traces-window-');

const CONTEXT =
  'Revenue from operations for FY24 was Rs 5,009.83 crore, up from Rs 2,630.93 crore in FY23. The company employed 4,208 people.';

/** A logged case: grounded (its answer states what its context says, cited) or not (figures no context holds). */
function traceCase(i: number, grounded: boolean, route: string, question?: string): TraceCase {
  return {
    trace_id: `${(i + 1).toString(16).padStart(32, '0')}`,
    question: question ?? `What was the revenue from operations for FY24 of unit ${i}?`,
    answer: {
      answer: grounded
        ? 'Revenue from operations for FY24 was Rs 5,009.83 crore [c1].'
        : 'Revenue from operations for FY24 was Rs 7,713.42 crore and net profit was Rs 912.6 crore [c1].',
      contexts: [{ id: 'c1', text: CONTEXT }],
      model: 'my-app',
    },
    started_at: '2025-12-01T10:00:00Z',
    fields: { route, day: '2025-12-01' },
    origin: { file: 'traffic.jsonl', format: 'contract', line: i + 1 },
  };
}

async function writeWindow(dir: string, cases: readonly TraceCase[]): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'cases.jsonl');
  await writeFile(file, cases.map((c) => `${JSON.stringify(c)}\n`).join(''));
  return file;
}

async function judged(dir: string): Promise<JudgedTraceCase[]> {
  const text = await readFile(join(dir, 'judged.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((l) => JudgedTraceCase.parse(JSON.parse(l)));
}

/** n cases, a share of them grounded, at seeded places. */
function windowOf(n: number, groundedShare: number, seed: string, offset = 0): TraceCase[] {
  const rng = seedrandom(seed);
  return Array.from({ length: n }, (_, i) =>
    traceCase(offset + i, rng() < groundedShare, i % 3 === 0 ? 'search' : 'chat'),
  );
}

describe('rge traces judge', () => {
  it("judges every case on grounding and calibration, and correctness only for a golden set's question", async () => {
    const dir = scratch();
    const golden = "Who were HDFC Bank Limited's statutory auditors for FY23?"; // gd-001 of fixtures/questions.jsonl
    const cases = [
      traceCase(0, true, 'chat'),
      traceCase(1, false, 'chat'),
      traceCase(2, true, 'search', `  who were HDFC Bank Limited's   statutory auditors for FY23?`),
      // a space before the question mark: not equal after normalisation, a near-duplicate by content words
      traceCase(3, true, 'search', `${golden.slice(0, -1)} ?`),
    ];
    const file = await writeWindow(dir, cases);
    const r = await runRge(root, 'traces', 'judge', '--cases', file, '--results-dir', join(dir, 'results'));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('golden matches: 1 exact, 1 near-duplicate');
    const rows = await judged(dir);
    expect(rows.map((x) => x.question_id)).toEqual([
      'trace-00001',
      'trace-00002',
      'trace-00003',
      'trace-00004',
    ]);
    expect(rows[0]?.trace_id).toBe(cases[0]?.trace_id);
    expect(rows[0]?.golden).toBeNull();
    expect(rows[0]?.scores.correctness).toBeNull();
    expect(rows[0]?.scores.gfs_primary).toBeNull();
    expect(rows[0]?.scores.grounding).not.toBeNull();
    expect(rows[2]?.golden).toEqual({ question_id: 'gd-001', how: 'exact', similarity: 1 });
    expect(rows[2]?.scores.correctness).not.toBeNull();
    expect(rows[3]?.golden).toEqual({ question_id: 'gd-001', how: 'lexical', similarity: 1 });
    // the deterministic checks read the trace's own contexts: the planted figures are not traced
    expect(rows[0]?.checks.numbers_traced).toBe(true);
    expect(rows[1]?.checks.numbers_traced).toBe(false);
    const summary = JSON.parse(await readFile(join(dir, 'judged.json'), 'utf8'));
    expect(summary.golden_rule).toContain('Jaccard similarity of content words >= 0.8');
  });

  it('--sample N --stratify route draws a seeded proportional sample, recorded in the summary', async () => {
    const dir = scratch();
    const file = await writeWindow(dir, windowOf(30, 0.5, 'sample'));
    const args = [
      'traces',
      'judge',
      '--cases',
      file,
      '--sample',
      '10',
      '--stratify',
      'route',
      '--seed',
      's1',
    ];
    const first = await runRge(root, ...args, '--results-dir', join(dir, 'results'));
    expect(first.code).toBe(0);
    const ids = (await judged(dir)).map((x) => x.question_id);
    const summary = JSON.parse(await readFile(join(dir, 'judged.json'), 'utf8'));
    // 10 search and 20 chat cases: 10 is 3.33 + 6.67, by largest remainder 3 and 7
    expect(summary.sample).toEqual({
      n: 10,
      stratify: 'route',
      seed: 's1',
      strata: [
        { value: 'search', cases: 10, sampled: 3 },
        { value: 'chat', cases: 20, sampled: 7 },
      ],
    });
    await runRge(root, ...args, '--results-dir', join(dir, 'results'));
    expect((await judged(dir)).map((x) => x.question_id)).toEqual(ids);
    const usage = await runRge(root, 'traces', 'judge', '--cases', file, '--stratify', 'route');
    expect(usage.code).toBe(2);
  });

  it('a bad line of cases.jsonl is an error naming the file and the line', async () => {
    const dir = scratch();
    const file = await writeWindow(dir, [traceCase(0, true, 'chat')]);
    await writeFile(file, `${await readFile(file, 'utf8')}{"trace_id": "x"}\n`);
    const r = await runRge(root, 'traces', 'judge', '--cases', file);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${file}:2:`);
  });
});

describe('rge traces drift', () => {
  it('fails on a planted drop in grounding between two windows and passes a reshuffle of the same cases', async () => {
    const a = scratch();
    const b = scratch();
    const weekA = windowOf(60, 0.9, 'week-48');
    const weekB = windowOf(60, 0.4, 'week-49', 60);
    for (const [dir, cases] of [
      [a, weekA],
      [b, weekB],
    ] as const) {
      const r = await runRge(
        root,
        'traces',
        'judge',
        '--cases',
        await writeWindow(dir, cases),
        '--results-dir',
        join(dir, 'r'),
      );
      expect(r.code, r.err).toBe(0);
    }
    const drop = await runRge(root, 'traces', 'drift', '--windows', `${a},${b}`);
    expect(drop.out).toContain('verdict: FAIL');
    expect(drop.out).toMatch(/by dynamic programming on the score grid/);
    expect(drop.code).toBe(1);

    // the same 120 judged cases, split at random into two windows
    const all = [...(await judged(a)), ...(await judged(b))];
    const rng = seedrandom('reshuffle');
    const order = all
      .map((x) => ({ x, k: rng() }))
      .sort((p, q) => p.k - q.k)
      .map((p) => p.x);
    const c = scratch();
    const d = scratch();
    for (const [dir, rows] of [
      [c, order.slice(0, 60)],
      [d, order.slice(60)],
    ] as const) {
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'judged.jsonl'), rows.map((x) => `${JSON.stringify(x)}\n`).join(''));
    }
    const shuffled = await runRge(root, 'traces', 'drift', '--windows', `${c},${d}`);
    expect(shuffled.out).toContain('verdict: PASS');
    expect(shuffled.code).toBe(0);
    const json = await runRge(root, 'traces', 'drift', '--windows', `${a}/judged.jsonl,${b}`, '--json');
    const parsed = JSON.parse(json.out);
    expect(parsed.verdict).toBe('fail');
    expect(parsed.result.pLess).toBeLessThan(0.05);
  });

  it('refuses one window and an unknown dimension', async () => {
    expect((await runRge(root, 'traces', 'drift', '--windows', 'x')).code).toBe(2);
    expect((await runRge(root, 'traces', 'drift', '--windows', 'x,y', '--dimension', 'style')).code).toBe(2);
  });
});
