/**
 * A system's version from its files is what the files are: their names within the folder given and
 * their contents. The same app in another checkout, or run from another working folder, has the same
 * version; an edited file, a renamed one or a new one gives another.
 */
import { cp, mkdir, mkdtemp, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { versionOfFiles } from '../../src/system/version.ts';

async function app(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rge-version-'));
  await mkdir(join(dir, 'app', 'lib'), { recursive: true });
  await writeFile(join(dir, 'app', 'main.ts'), 'export default () => 1;\n');
  await writeFile(join(dir, 'app', 'lib', 'retrieve.ts'), 'export const k = 5;\n');
  await writeFile(join(dir, 'prompt.md'), 'Answer only from the context.\n');
  return dir;
}

const versionIn = (dir: string, root: string) =>
  versionOfFiles(
    'subject app',
    [relative(root, join(dir, 'app')), relative(root, join(dir, 'prompt.md'))],
    root,
  );

describe("a system's version from its files", () => {
  it('is the same in another checkout and from another working folder', async () => {
    const a = await app();
    const b = join(await mkdtemp(join(tmpdir(), 'rge-version-copy-')), 'elsewhere');
    await cp(a, b, { recursive: true });
    const v = await versionIn(a, a);
    expect(v).toMatch(/^[0-9a-f]{64}$/);
    expect(await versionIn(a, tmpdir())).toBe(v);
    expect(await versionIn(b, b)).toBe(v);
    expect(await versionIn(b, join(b, 'app', 'lib'))).toBe(v);
  });

  it('changes with a file edited, renamed or added', async () => {
    const a = await app();
    const v = await versionIn(a, a);
    await writeFile(join(a, 'prompt.md'), 'Answer only from the context. Be brief.\n');
    const edited = await versionIn(a, a);
    expect(edited).not.toBe(v);
    await rename(join(a, 'app', 'lib', 'retrieve.ts'), join(a, 'app', 'lib', 'search.ts'));
    const renamed = await versionIn(a, a);
    expect(renamed).not.toBe(edited);
    await writeFile(join(a, 'app', 'extra.ts'), '\n');
    expect(await versionIn(a, a)).not.toBe(renamed);
  });

  it('counts a file listed beside its folder once: a module and its app folder, as the folder alone', async () => {
    const a = await app();
    const folder = await versionOfFiles('subject app', ['app'], a);
    expect(await versionOfFiles('subject app', ['app/main.ts', 'app'], a)).toBe(folder);
  });

  it('names the subject and the path when a file is not there', async () => {
    await expect(versionOfFiles('subject app', ['no-such-file.md'], tmpdir())).rejects.toThrow(
      /^subject app: version_files: nothing at .*no-such-file\.md$/,
    );
  });
});
