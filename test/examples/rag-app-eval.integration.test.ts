/**
 * The example application (examples/rag-app) evaluated end to end by rge, offline, as an engineer's
 * own RAG app would be: `rge eval run --config examples/rag-app/rge.yaml` through each way in (the
 * module in rge's process, the HTTP server on a loopback port, the command as a pool of workers), with
 * the report and the vitest-evals artifact; then the CI gate on the app's prompt: the planted one-line
 * regression (the "Answer only from the context" rule deleted) fails `rge gate`, a change of the
 * prompt's seed alone passes it. The app's changed copies live in the repository's .cache (its
 * packages resolve from there), so each change is a new version of the system, as an edit would be.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plantRegression, reseed } from '../../examples/rag-app/compare.ts';
import { spawnRge } from '../helpers/child.ts';
import { runRge } from '../helpers/cli.ts';
import { worldOverrides, worldPaths } from '../helpers/fixture-world.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const CONFIG = 'examples/rag-app/rge.yaml';
const SUBJECTS = ['rag-app', 'rag-app-http', 'rag-app-command'];

let work: string;
let copies: string;
let env: Record<string, string>;
let server: ChildProcessWithoutNullStreams;
let url: string;

/** Starts the app's HTTP server on a free loopback port; resolves with its /answer URL. */
function startServer(): Promise<string> {
  server = spawn(process.execPath, ['--import', 'tsx', 'examples/rag-app/server.ts', '--port', '0'], {
    cwd: root,
    env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (d) => {
      out += d;
      const m = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out);
      if (m) resolve(`${m[1]}/answer`);
    });
    server.on('close', (code) => reject(new Error(`the server exited (${code}) before it listened`)));
  });
}

/** `rge eval run` on the example's config, its cells in `results-NAME`; exits 0. */
async function evalOutput(name: string, extra: readonly string[]): Promise<string> {
  const outcome = await spawnRge(
    [
      'eval',
      'run',
      '--config',
      CONFIG,
      '--results-dir',
      join(work, `results-${name}`),
      '--reports-dir',
      join(work, 'reports'),
      '--min-pass-rate',
      '0',
      ...extra,
    ],
    env,
  );
  expect(outcome.code, outcome.out + outcome.err).toBe(0);
  return outcome.out;
}

/** `rge eval run` on the example's config; returns the report folder. */
async function evalRun(name: string, extra: readonly string[]): Promise<string> {
  return /report (\S+)summary\.md/.exec(await evalOutput(name, extra))?.[1] as string;
}

/** A copy of the app with its prompt changed, inside the repository (so its packages resolve). */
async function changedApp(name: string, change: (prompt: string) => string): Promise<string[]> {
  const dir = join(copies, name);
  await cp(join(root, 'examples/rag-app'), dir, { recursive: true });
  const prompt = join(dir, 'prompt.md');
  await writeFile(prompt, change(await readFile(prompt, 'utf8')));
  return ['--set', `subjects.0.module=${join(dir, 'app.ts')}`, '--set', `subjects.0.version_files=[${dir}]`];
}

beforeAll(async () => {
  // the app's documents: the fixture world's PDFs (the config has no corpus of rge's to point anywhere)
  await worldOverrides('bm25');
  work = await mkdtemp(join(tmpdir(), 'rge-rag-app-eval-'));
  await mkdir(join(root, '.cache'), { recursive: true });
  copies = await mkdtemp(join(root, '.cache', 'rag-app-eval-'));
  env = { RAG_APP_CORPUS: worldPaths('bm25').pdfs, RAG_APP_CACHE: join(work, 'cache') };
  url = await startServer();
}, 600_000);

afterAll(async () => {
  server?.kill('SIGTERM');
  await rm(work, { recursive: true, force: true });
  await rm(copies, { recursive: true, force: true });
});

describe('rag-app through module, http and command (examples/rag-app/rge.yaml)', () => {
  let report: string;
  let summary: {
    cells: number;
    describe: { subjects: { id: string; version?: string }[] };
    gfs: Record<string, Record<string, Record<'primary' | 'equal', { estimate: number }>>>;
    evidence?: unknown;
  };

  beforeAll(async () => {
    report = await evalRun('three', ['--subjects', SUBJECTS.join(','), '--set', `subjects.1.url=${url}`]);
    summary = JSON.parse(await readFile(join(report, 'summary.json'), 'utf8'));
  }, 600_000);

  it('the three ways give the same app the same scores, each judged against its own contexts', async () => {
    const md = await readFile(join(report, 'summary.md'), 'utf8');
    const overall = (id: string) => summary.gfs[id]?.all?.primary.estimate;
    for (const id of SUBJECTS) {
      expect(md).toMatch(new RegExp(`\\| sent to ${id} \\(subject, a system\\) \\| the question`));
      expect(overall(id)).toBeGreaterThan(0.5);
      expect(overall(id)).toBe(overall('rag-app'));
    }
    // one version for the three: the app folder's hash
    expect(new Set(summary.describe.subjects.map((s) => s.version)).size).toBe(1);
    expect(md).toContain('## Evidence: what each subject answered from');
    // its citations are its own passage ids, and they resolve to the contexts it returned
    expect(md).toMatch(/\| rag-app-command \| 100\.0% \(\d+\) \|/);
  });

  it('writes the vitest-evals artifact with a case per (subject, question)', async () => {
    const artifact = JSON.parse(await readFile(join(report, 'vitest-evals.json'), 'utf8'));
    const names: string[] = artifact.testResults.flatMap((f: { assertionResults: { fullName: string }[] }) =>
      f.assertionResults.map((a) => a.fullName),
    );
    expect(names).toHaveLength(600);
    for (const id of SUBJECTS) expect(names.filter((n) => n.startsWith(`${id} `))).toHaveLength(200);
  });

  it('an unchanged app is not asked again', async () => {
    const again = await evalOutput('three', ['--subjects', 'rag-app']);
    expect(again).toMatch(/200 cases, 200 reused/);
    expect(again).toMatch(/answers computed 0\b/);
  });
});

describe("rge gate on rag-app's prompt", () => {
  const summaries: Record<string, string> = {};

  beforeAll(async () => {
    summaries.baseline = join(await evalRun('baseline', ['--subjects', 'rag-app']), 'summary.json');
    const planted = await changedApp('planted', plantRegression);
    const reseeded = await changedApp('reseeded', (p) => reseed(p, 8));
    summaries.planted = join(await evalRun('planted', ['--subjects', 'rag-app', ...planted]), 'summary.json');
    summaries.reseeded = join(
      await evalRun('reseeded', ['--subjects', 'rag-app', ...reseeded]),
      'summary.json',
    );
    const promoted = await runRge(
      work,
      'baseline',
      'update',
      '--from',
      summaries.baseline,
      '--to',
      'baseline.json',
    );
    expect(promoted.code, promoted.err).toBe(0);
  }, 600_000);

  it('fails the planted regression (exit 1), naming the changed version', async () => {
    const gate = await runRge(
      work,
      'gate',
      '--baseline',
      'baseline.json',
      '--current',
      summaries.planted as string,
    );
    expect(gate.code, gate.out + gate.err).toBe(1);
    expect(gate.out).toMatch(/\*\*rge gate: REGRESSION\*\* in rag-app \(overall/);
    expect(gate.out).toMatch(/system rag-app version [0-9a-f]{12} -> [0-9a-f]{12}/);
  });

  it('passes a change of the seed alone (exit 0)', async () => {
    const gate = await runRge(
      work,
      'gate',
      '--baseline',
      'baseline.json',
      '--current',
      summaries.reseeded as string,
      '--json',
      'reseeded.json',
    );
    expect(gate.code, gate.out + gate.err).toBe(0);
    expect(gate.out).toContain('**rge gate: pass.**');
    const verdicts = JSON.parse(await readFile(join(work, 'reseeded.json'), 'utf8'));
    for (const row of verdicts.rows) expect(row.fails).toBe(false);
  });
});
