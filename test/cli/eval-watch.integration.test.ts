/**
 * `rge eval watch` on the fixture world with offline subjects (issue 53), the real command in a child
 * process editing its files as a user would: an offline model subject (its request holds the subject
 * prompt) beside a module system that declares its version. Each edit reruns exactly the cells whose
 * identity it changed, and nothing else is asked again:
 * - the prompt's rules: the model subject's cells, not the system's;
 * - a question's text (saved the way editors replace a file: a new file renamed over it): that question's
 *   cells, of both subjects;
 * - a comment of the prompt: no cell (the report is made again, every cell reused);
 * - a comment of the system's module, its version declared: nothing to run at all, saying why.
 * Saves during a run make one run more after it. Ctrl-C while it waits ends it (exit 130). The estimate and the key press are in eval-watch-paid.integration.test.ts,
 * a stop during a run in eval-watch-stop.integration.test.ts.
 */
import { mkdtemp, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRge } from '../helpers/cli.ts';
import { appAndExtractiveWorld, ROOT, storedAnswers, WatchChild } from './watch/child.ts';

/** What the watch said for its i-th run (0-based): from after the (i-1)-th `watching` line to the i-th. */
function segment(output: string, i: number): string {
  const parts = output.split(/^watching .*$/m);
  return parts[i] ?? '';
}

/** The case names a run's change lines list. */
const listed = (text: string) =>
  [...text.matchAll(/^ {2}(\S+) › \S+ › (\S+) › run 0: GFS/gm)].map((m) => `${m[1]}/${m[2]}`);

describe('rge eval watch (offline subjects)', () => {
  let dir: string;
  let watch: WatchChild;
  const results = () => join(dir, 'results');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-eval-watch-'));
    const config = await appAndExtractiveWorld(dir);
    watch = new WatchChild([
      '--config',
      config,
      '--questions',
      '3',
      '--results-dir',
      results(),
      '--reports-dir',
      join(dir, 'reports'),
      '--debounce',
      '150',
    ]);
  }, 600_000);
  afterAll(async () => {
    await watch?.stop();
  });

  it('runs once at the start, asking every cell, then watches the config, questions, prompt and module', async () => {
    await watch.until(/^watching /m);
    const first = segment(watch.output, 0);
    expect(first).toMatch(
      /^run ci-\w+: 6 cases, 0 reused, 0 failed .*answers computed 6, verdicts computed 12;/m,
    );
    const watching = watch.output.split('\n').find((l) => l.startsWith('watching ')) ?? '';
    for (const file of ['watch.yaml', 'questions.jsonl', 'prompt.md', 'app.mjs'])
      expect(watching).toContain(join(dir, file));
    expect(storedAnswers(results()).byStore).toEqual({ offline__extractive: 3, module__app: 3 });
    expect(first).not.toMatch(/gate against/); // no baseline yet
    // the first run's report becomes the reports folder's baseline, which the next runs are gated against
    const report = /; report (\S+)summary\.md$/m.exec(first)?.[1] as string;
    const promoted = await runRge(
      ROOT,
      'baseline',
      'update',
      '--from',
      `${report}summary.json`,
      '--to',
      join(dir, 'reports', 'baseline.json'),
    );
    expect(promoted.code, promoted.err).toBe(0);
  }, 600_000);

  it("an edit of the prompt's rules asks again exactly the model subject's cells", async () => {
    const prompt = join(dir, 'prompt.md');
    const text = await readFile(prompt, 'utf8');
    await writeFile(
      prompt,
      text.replace('6. Be brief: answer the question asked, then stop.', '6. Be brief.'),
    );
    await watch.until(/^watching /m, 2);
    const second = segment(watch.output, 1);
    expect(second).toMatch(/^changed: .*prompt\.md$/m);
    expect(second).toMatch(/answers computed 3, verdicts computed 6;/);
    expect(second).toMatch(/^3 of 6 cases changed since the last run \(extractive 3\)/m);
    expect(listed(second).sort()).toEqual(['extractive/gd-001', 'extractive/gd-002', 'extractive/gd-003']);
    // the gate against the baseline, in a few lines: the verdict, each subject's overall slice, what changed
    expect(second).toMatch(/^gate against \S+baseline\.json: (pass|REGRESSION in .*)$/m);
    expect(second).toMatch(
      /^ {2}extractive \(overall\): GFS [\d.]+ -> [\d.]+, [+\u2212][\d.]+ \[.*\] over 3 cells: /m,
    );
    expect(second).toMatch(/^ {2}app \(overall\): GFS [\d.]+ -> [\d.]+, \+0\.000 /m);
    expect(second).toMatch(/^ {2}changed between the runs: subject prompt v1 \w+ -> v1 \w+/m);
    // the system's answers were not asked again; each cell is stored once
    expect(storedAnswers(results())).toEqual({
      byStore: { offline__extractive: 6, module__app: 3 },
      duplicates: 0,
    });
  }, 600_000);

  it("an edit of a question's text, saved by renaming a new file over it, asks again exactly that question's cells", async () => {
    const questions = join(dir, 'questions.jsonl');
    const lines = (await readFile(questions, 'utf8')).split('\n');
    const second = JSON.parse(lines[1] as string) as { id: string; text: string };
    expect(second.id).toBe('gd-002');
    lines[1] = JSON.stringify({ ...second, text: `${second.text.replace(/\?$/, '')}, as reported?` });
    await writeFile(join(dir, '.questions.jsonl.swp'), lines.join('\n'));
    await rename(join(dir, '.questions.jsonl.swp'), questions);
    await watch.until(/^watching /m, 3);
    const third = segment(watch.output, 2);
    expect(third).toMatch(/answers computed 2, verdicts computed 4;/);
    expect(third).toMatch(/^2 of 6 cases changed since the last run \(extractive 1, app 1\)/m);
    expect(listed(third).sort()).toEqual(['app/gd-002', 'extractive/gd-002']);
    expect(storedAnswers(results())).toEqual({
      byStore: { offline__extractive: 7, module__app: 4 },
      duplicates: 0,
    });
    // another question set than the baseline's: not gated, said in one line
    expect(third).toMatch(
      /^\S+baseline\.json is the baseline of config ci \(.*\), not of this run's config or questions: not gated/m,
    );
  }, 600_000);

  it('a comment of the prompt asks nothing again: every cell reused, no case changed', async () => {
    const prompt = join(dir, 'prompt.md');
    await writeFile(
      prompt,
      (await readFile(prompt, 'utf8')).replace('<!--', '<!-- edited by the watch test.'),
    );
    await watch.until(/^watching /m, 4);
    const fourth = segment(watch.output, 3);
    expect(fourth).toMatch(/6 cases, 6 reused, 0 failed .*answers computed 0, verdicts computed 0;/);
    expect(fourth).toMatch(/^no case changed since the last run \(6 cases\)$/m);
  }, 600_000);

  it("a comment of the system's module, its version declared, runs nothing and says why", async () => {
    const app = join(dir, 'app.mjs');
    await writeFile(app, (await readFile(app, 'utf8')).replace('// a system', '// an edited system'));
    await watch.until(/^watching /m, 5);
    const fifth = segment(watch.output, 4);
    expect(fifth).toContain(
      `${app} changed, but subject app declares its version ("1"): its stored answers stand`,
    );
    expect(fifth).toMatch(/^no cell's identity changed \(the same run, ci-\w+\): nothing to run$/m);
    expect(fifth).not.toMatch(/answers computed/);
    expect(storedAnswers(results()).byStore).toEqual({ offline__extractive: 7, module__app: 4 });
  }, 600_000);

  it('saves during a run make exactly one more run after it', async () => {
    const prompt = join(dir, 'prompt.md');
    const comment = async (word: string) =>
      writeFile(prompt, (await readFile(prompt, 'utf8')).replace('<!--', `<!-- ${word}.`));
    const [runs, changes, watching] = [/^run ci-/, /^changed: /, /^watching /].map((p) => watch.count(p));
    await comment('one');
    await watch.until(/^changed: /m, (changes as number) + 1); // its run starts
    await comment('two');
    await new Promise((resolve) => setTimeout(resolve, 400)); // settles while the run goes on
    // On a loaded machine the first run can end before the third save (nothing is asked again: a
    // comment): the third save may then come after the second's run started, and make a run of its own.
    // Either way no save is lost and none is run twice: a run per 'changed' line, each ending 'watching'.
    const endedBeforeThree = watch.count(/^watching /) > (watching as number);
    await comment('three');
    await watch.until(/^watching /m, (watching as number) + 2);
    for (let seen = -1; seen !== watch.output.length; ) {
      seen = watch.output.length;
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
    const made = watch.count(/^changed: /) - (changes as number);
    if (endedBeforeThree) expect([2, 3]).toContain(made);
    else expect(made).toBe(2);
    expect(watch.count(/^run ci-/)).toBe((runs as number) + made);
    expect(watch.count(/^watching /)).toBe((watching as number) + made);
    expect(await readFile(prompt, 'utf8')).toMatch(/^<!-- three\. two\. one\./);
  }, 600_000);

  it('Ctrl-C while it waits ends the watch at once (exit 130)', async () => {
    watch.signal('SIGINT');
    expect(await watch.exited).toBe(130);
    expect(watch.output).toMatch(/^rge: Ctrl-C \(SIGINT\) received: stopped watching$/m);
  }, 60_000);
});
