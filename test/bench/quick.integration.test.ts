/**
 * `npm run bench -- --quick` runs every bench to its end, outside Vitest (issue 22: a bench that
 * imported Vitest's `inject` stopped the run, and every bench after it never ran). It runs as on a
 * user's clone (RGE_SHARED=0: the benches on ../shared skip, saying why) and offline (no hub
 * download for bge-m3), and leaves the working tree as it found it.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runMeasured } from '../../bench/process-tree.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BENCHES = readdirSync(new URL('../../bench/', import.meta.url))
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();

function gitStatus(): Promise<string> {
  return run('git', [
    'status',
    '--porcelain',
    '--ignored',
    '--',
    'fixtures',
    'data',
    'reports',
    '.cache',
  ]).then((r) => r.stdout);
}

/** A command in the repository's root: its exit code and output (bench/process-tree.ts, not sampled). */
function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  return runMeasured(command, args, ROOT, env, { sample: false });
}

describe('npm run bench -- --quick', () => {
  it('runs every bench to its end, outside Vitest, and writes nothing into the tree', {
    timeout: 1_200_000,
  }, async () => {
    expect(BENCHES.length).toBeGreaterThanOrEqual(9);
    const before = await gitStatus();
    const env: NodeJS.ProcessEnv = { ...process.env, RGE_SHARED: '0', RGE_OFFLINE: '1', HF_HUB_OFFLINE: '1' };
    // no Vitest state for the benches to read: they must not need any
    delete env.VITEST;
    delete env.VITEST_WORKER_ID;
    delete env.VITEST_POOL_ID;
    delete env.RGE_TEST_DIR;
    const r = await run('npm', ['run', 'bench', '--', '--quick'], env);
    const tail = `${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`;
    expect(r.code, tail).toBe(0);
    for (const file of BENCHES) {
      expect(r.stderr, file).toContain(`bench ${file}\n`);
      expect(r.stderr, file).toMatch(new RegExp(`\\[${file.replace('.', '\\.')}\\] done in `));
    }
    expect(r.stdout, tail).toMatch(
      new RegExp(`\\n\\d+ measurements from ${BENCHES.length} of ${BENCHES.length} benches;`),
    );
    expect(r.stdout).not.toMatch(/^bench .* failed:/m);
    // measurements, not only skips: the benches that need neither ../shared nor pdftotext measured
    expect(r.stdout).toMatch(/^bootstrapCI bca.*: [\d.]+ ms \|/m);
    expect(r.stdout).toMatch(/^sync run of the published config.*\| ratio [\d.]+x/m);
    expect(await gitStatus()).toBe(before);
  });
});
