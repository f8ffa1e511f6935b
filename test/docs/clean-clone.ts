/**
 * A clean clone of the repository for the docs tests (a copy of the tracked files, the working tree's
 * versions, made a git repository as a clone is, with this checkout's node_modules linked in place of
 * `npm ci`; nothing generated is copied), and what its tree shows after commands ran in it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { root } from './pages.ts';

/**
 * A copy of the tracked files in `<tmp>/rge` (with their modes), a git repository of its own; with `shared`, `<tmp>/shared`
 * links to `../shared`, so a command's `../shared/...` path resolves as it does beside the repository.
 */
export async function cleanClone(prefix: string, shared: string | null = null): Promise<string> {
  const top = await mkdtemp(join(tmpdir(), prefix));
  const dir = join(top, 'rge');
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(root, file))) continue; // deleted in the working tree, not yet committed
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), await readFile(join(root, file)));
    // with its mode, as a clone has it: bin/rge.mjs is executable, and npx would otherwise chmod it,
    // which git status shows as a change
    await chmod(join(dir, file), (await stat(join(root, file))).mode);
  }
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'));
  if (shared) await symlink(shared, join(top, 'shared'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.email=guide@rge.test', '-c', 'user.name=guide', 'commit', '-qm', 'clone');
  return dir;
}

/**
 * What a user's tree shows after commands ran in it: `git status` (untracked files listed one by one)
 * and `biome check .`, npm test's lint (its exit code and output). Both clean after any guide (issue 53).
 */
export function treeState(dir: string): { status: string[]; lint: { code: number | null; output: string } } {
  const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
    cwd: dir,
    encoding: 'utf8',
  });
  const biome = spawnSync(join(root, 'node_modules/.bin/biome'), ['check', '.'], {
    cwd: dir,
    encoding: 'utf8',
  });
  return {
    status: status.split('\n').filter(Boolean),
    lint: { code: biome.status, output: `${biome.stdout}${biome.stderr}` },
  };
}
