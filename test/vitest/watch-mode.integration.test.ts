/**
 * `npx vitest evals --watch` (issue 53), in a child process as a user runs it: Vitest's watch mode with
 * rge's global setup. An edit of the subject prompt (a file no eval file imports, outside the repository
 * here) reruns the eval files on a plan made again: exactly the cells whose request holds the prompt are
 * asked, the module system's are reused. A comment of that system's module, its version declared, reruns
 * nothing. (The estimate before paid calls, the key press, the changed cases and the gate are
 * `rge eval watch`'s: test/cli/eval-watch*.test.ts.)
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { appAndExtractiveWorld, storedAnswers, WatchChild } from '../cli/watch/child.ts';

/** The parent's environment without its own Vitest's and rge's variables. */
function unsetParents(): Record<string, undefined> {
  const keys = Object.keys(process.env).filter(
    (k) => k.startsWith('VITEST') || k.startsWith('RGE_') || k === 'TEST',
  );
  return Object.fromEntries(keys.map((k) => [k, undefined]));
}

const runLine =
  /^rge: 4 cases \((\d) reused from the results store\), report written to .*\/(ci-\w+)\/summary\.md$/gm;

describe('npx vitest evals --watch', () => {
  let vitest: WatchChild | undefined;
  afterAll(async () => {
    await vitest?.stop();
  });

  it('reruns on an edit of the subject prompt, planned again, asking only the cells it changed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-vitest-watch-'));
    const config = await appAndExtractiveWorld(dir);
    const env = {
      ...unsetParents(),
      RGE_CONFIG: config,
      RGE_QUESTIONS: '2',
      RGE_RESULTS_DIR: join(dir, 'results'),
      RGE_REPORTS_DIR: join(dir, 'reports'),
    };
    vitest = new WatchChild(['evals', '--watch', '--project', 'evals'], {
      env,
      script: 'node_modules/vitest/vitest.mjs',
    });
    await vitest.until(/Waiting for file changes/);
    const prompt = join(dir, 'prompt.md');
    await writeFile(
      prompt,
      (await readFile(prompt, 'utf8')).replace(
        '6. Be brief: answer the question asked, then stop.',
        '6. Be brief.',
      ),
    );
    await vitest.until(/Waiting for file changes/, 2);
    const runs = [...vitest.output.matchAll(runLine)].map((m) => ({ reused: m[1], runId: m[2] }));
    expect(runs).toHaveLength(2);
    expect(runs[0]?.reused).toBe('0');
    expect(runs[1]?.reused).toBe('2');
    expect(runs[1]?.runId).not.toBe(runs[0]?.runId);
    expect(storedAnswers(join(dir, 'results'))).toEqual({
      byStore: { offline__extractive: 4, module__app: 2 },
      duplicates: 0,
    });

    const app = join(dir, 'app.mjs');
    await writeFile(app, (await readFile(app, 'utf8')).replace('// a system', '// an edited system'));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(vitest.count(/Waiting for file changes/)).toBe(2);
  }, 600_000);
});
