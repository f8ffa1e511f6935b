/**
 * The watcher under `rge eval watch` (src/util/file-watch.ts) on real files: a burst of writes settles
 * into one batch; batches that settle while nobody waits (a run going on) merge into one; a file an
 * editor replaces by a rename is seen; a folder is watched with what it holds, skipping dot-names,
 * node_modules and the ignored folders; files beside a watched file are not inputs.
 */
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputWatcher } from '../../src/util/file-watch.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The next batch, or 'none' when nothing settles within `ms`. */
async function within(watcher: InputWatcher, ms: number): Promise<string[] | 'none'> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  const paths = await watcher.next(controller.signal);
  clearTimeout(timer);
  return paths ?? 'none';
}

describe('InputWatcher', () => {
  let dir: string;
  let watcher: InputWatcher;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-file-watch-'));
    await mkdir(join(dir, 'app', 'lib'), { recursive: true });
    await mkdir(join(dir, 'app', 'results'), { recursive: true });
    await writeFile(join(dir, 'prompt.md'), 'v0');
    await writeFile(join(dir, 'other.md'), 'x');
    watcher = new InputWatcher({ debounceMs: 80, ignore: [join(dir, 'app', 'results')] });
    expect(watcher.target({ files: [join(dir, 'prompt.md')], trees: [join(dir, 'app')] })).toEqual([]);
  });
  afterEach(async () => {
    watcher.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('settles a burst of writes into one batch, once', async () => {
    for (let i = 1; i <= 5; i++) {
      await writeFile(join(dir, 'prompt.md'), `v${i}`);
      await sleep(15);
    }
    expect(await within(watcher, 2000)).toEqual([join(dir, 'prompt.md')]);
    expect(await within(watcher, 400)).toBe('none');
  });

  it('merges the batches that settle while nobody waits into one', async () => {
    await writeFile(join(dir, 'prompt.md'), 'v1');
    await sleep(250); // settled, not taken: a run is going on
    await writeFile(join(dir, 'app', 'lib', 'retriever.ts'), 'export {}');
    await sleep(250);
    expect(await within(watcher, 100)).toEqual([
      join(dir, 'app', 'lib', 'retriever.ts'),
      join(dir, 'prompt.md'),
    ]);
    expect(await within(watcher, 400)).toBe('none');
  });

  it('sees a file an editor replaces by renaming another over it', async () => {
    await writeFile(join(dir, '.prompt.md.swp'), 'v1');
    await rename(join(dir, '.prompt.md.swp'), join(dir, 'prompt.md'));
    expect(await within(watcher, 2000)).toEqual([join(dir, 'prompt.md')]);
  });

  it('skips dot-names, node_modules, ignored folders and the files beside a watched file', async () => {
    await writeFile(join(dir, 'other.md'), 'y');
    await mkdir(join(dir, 'app', 'node_modules'), { recursive: true });
    await writeFile(join(dir, 'app', 'node_modules', 'x.js'), '1');
    await writeFile(join(dir, 'app', '.cache'), '1');
    await writeFile(join(dir, 'app', 'results', 'run.jsonl'), '{}\n');
    expect(await within(watcher, 500)).toBe('none');
    await writeFile(join(dir, 'app', 'app.ts'), 'export default 1');
    expect(await within(watcher, 2000)).toEqual([join(dir, 'app', 'app.ts')]);
  });

  it('follows new targets and lets go of the old ones', async () => {
    await writeFile(join(dir, 'questions.jsonl'), '{}\n');
    watcher.target({ files: [join(dir, 'questions.jsonl')], trees: [] });
    await writeFile(join(dir, 'app', 'app.ts'), 'export default 2');
    await writeFile(join(dir, 'prompt.md'), 'v9');
    expect(await within(watcher, 500)).toBe('none');
    await writeFile(join(dir, 'questions.jsonl'), '{"id":1}\n');
    expect(await within(watcher, 2000)).toEqual([join(dir, 'questions.jsonl')]);
  });

  it('names a folder it cannot watch, and ends a wait on close', async () => {
    expect(watcher.target({ files: [join(dir, 'gone', 'x.md')], trees: [] })).toEqual([join(dir, 'gone')]);
    const waiting = watcher.next();
    watcher.close();
    expect(await waiting).toBeNull();
  });
});
