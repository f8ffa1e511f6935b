/**
 * Which test goes where (docs/adr/0013, "Which test goes where"). The unit project (`npm test`) runs
 * in this process; a test that starts many child processes, a browser, or the docs' shell blocks is
 * the integration project's (`*.integration.test.ts`, `npm run test:integration`). Checked here from
 * the import graph of the test files, through the modules of test/ and bench/ they import:
 * - no unit file reaches the integration harnesses (Vitest started as a child process, the kill and
 *   concurrency harnesses, the bench's process runner, a browser);
 * - a unit file that reaches `node:child_process` at all (test/helpers/child.ts's `spawnRge` included)
 *   is listed below with why: its child is the behaviour under test (a process boundary) and takes a
 *   couple of seconds at most.
 * A new unit test that starts a child process fails here until it is listed or moved.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Modules only integration tests may reach: each starts `rge`, Vitest, many processes or a browser. */
const INTEGRATION_ONLY = [
  'test/ci/vitest-child.ts',
  'test/run/crash/crash.ts',
  'test/run/concurrent/runs.ts',
  'test/run/system-runs.ts',
  'bench/process-tree.ts',
  'playwright-core',
];

/** Unit files that start a child process (directly or through a helper), and why that is the behaviour. */
const PROCESS_BOUNDARY: Record<string, string> = {
  'test/ci/workflow.test.ts': "`vitest --help` lists the workflow's flags (Vitest's own CLI, one process)",
  'test/cli/budget.test.ts': 'a dead owner: the pid of a process that has exited (node -e 0)',
  'test/cli/errors.test.ts':
    'one row is the real `bin/rge.mjs` exiting on a missing config (the bundle, about a second); a full disk is a tiny tmpfs mounted',
  'test/cli/interrupt.test.ts': 'a second Ctrl-C exits the process at once: signals to one small child',
  'test/cli/startup.test.ts': 'what `rge --version` and `--help` load in a fresh process (the bundle)',
  'test/corpus/pdfjs-patches-compare.test.ts':
    "pdf.js's own worker code against rge's patched copies: pdf.js's globals are per process",
  'test/corpus/pdfjs-patches.test.ts': "pdf.js's worker module is chosen once per process",
  'test/corpus/pdfjs.test.ts': 'what loading pdf.js prints and loads in a fresh process',
  'test/docs/guide-outputs.test.ts':
    '`git status` and `biome check .` on a copy of the tree (npm test’s lint)',
  'test/retrieval/bge-m3.test.ts': 'use-lite and bm25 never load onnxruntime, seen from a fresh process',
  'test/store/inbox.test.ts': 'a dead owner: the pid of a process that has exited (node -e 0)',
  'test/store/jsonl.test.ts': 'appends from two processes at once interleave whole lines',
  'test/store/leases.test.ts': 'a lease held by another process, and by a dead one',
  'test/store/ledger.test.ts': 'a dead owner: the pid of a process that has exited (node -e 0)',
  'test/system/command.test.ts': 'a command system is a process: rge starts it, pools it and ends it',
  'test/system/module.test.ts': "a module system's timed-out call, seen from its process's exit",
  'test/util/worker-pool.test.ts': "worker threads' resource limits, one process each",
  'test/vitest/allocator.test.ts': "rolldown's allocator options reach a child's environment",
  'test/vitest/worker-heap.test.ts': "the workers' heap flags are ones Node accepts",
};

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s(?:[^'";]*?\sfrom\s)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

const walk = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
const path = (file: string) => relative(ROOT, file).split('\\').join('/');

/** What a file imports: packages and `node:` modules by name, our files as paths from the root. */
function imports(file: string): string[] {
  const out: string[] = [];
  for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    const spec = (m[1] ?? m[2]) as string;
    out.push(spec.startsWith('.') ? path(resolve(dirname(file), spec)) : spec);
  }
  return out;
}

/** Everything a test file reaches through the modules of test/ and bench/ (src/ is not followed). */
function reached(file: string): { modules: Set<string>; spawners: Set<string> } {
  const modules = new Set<string>();
  const spawners = new Set<string>();
  const todo = [path(file)];
  while (todo.length > 0) {
    const at = todo.pop() as string;
    if (modules.has(at)) continue;
    modules.add(at);
    for (const dep of imports(join(ROOT, at))) {
      if (dep === 'node:child_process' || dep === 'child_process') spawners.add(at);
      if (INTEGRATION_ONLY.includes(dep)) modules.add(dep);
      if ((dep.startsWith('test/') || dep.startsWith('bench/')) && existsSync(join(ROOT, dep)))
        todo.push(dep);
    }
  }
  return { modules, spawners };
}

const testFiles = walk(join(ROOT, 'test')).filter((f) => f.endsWith('.test.ts'));
const unitFiles = testFiles.filter((f) => !f.endsWith('.integration.test.ts')).map(path);

describe('the split between the unit and the integration project', () => {
  it('no unit file reaches a module of the integration tests', () => {
    const wrong = unitFiles.flatMap((f) =>
      INTEGRATION_ONLY.filter((m) => reached(join(ROOT, f)).modules.has(m)).map((m) => `${f} -> ${m}`),
    );
    expect(wrong).toEqual([]);
  });

  it('a unit file starts a child process only where it is listed, with why', () => {
    const spawning = unitFiles.filter((f) => reached(join(ROOT, f)).spawners.size > 0);
    expect(spawning.filter((f) => !(f in PROCESS_BOUNDARY))).toEqual([]);
    // and the list names no file that no longer does (or is gone, or moved to the integration project)
    expect(Object.keys(PROCESS_BOUNDARY).filter((f) => !spawning.includes(f))).toEqual([]);
  });

  it('sees a child process where there is one (the reading of the imports is not blind)', () => {
    expect([...reached(join(ROOT, 'test/run/crash-sync.integration.test.ts')).modules]).toContain(
      'test/run/crash/crash.ts',
    );
    expect([...reached(join(ROOT, 'test/cli/interrupt.test.ts')).spawners]).toEqual([
      'test/cli/interrupt.test.ts',
    ]);
    expect([...reached(join(ROOT, 'test/store/ledger.test.ts')).spawners]).toEqual([
      'test/helpers/dead-pid.ts',
    ]);
    expect(testFiles.filter((f) => f.endsWith('.integration.test.ts')).length).toBeGreaterThan(20);
  });
});
