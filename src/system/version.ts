/**
 * A system's version from its files: the sha256 of the files that make up its behaviour (a module, its
 * prompt, its code folder), so that a changed prompt or retriever is asked again and an unchanged one is
 * not. Folders are walked (skipping node_modules and dot-folders); the digest covers each file's path,
 * relative to the root and sorted, and its content, so a renamed file changes it too.
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { RgeError } from '../util/errors.ts';
import { sha256File } from '../util/fs.ts';

async function filesUnder(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true });
  const out: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = resolve(path, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else if (entry.isFile()) out.push(full);
  }
  return out;
}

/** The sha256 over these files and folders (relative to root); a path that is not there names the subject. */
export async function versionOfFiles(who: string, paths: readonly string[], root: string): Promise<string> {
  const files = new Set<string>();
  for (const path of paths) {
    const full = isAbsolute(path) ? path : resolve(root, path);
    const found = await stat(full).catch(() => null);
    if (found === null) throw new RgeError(`${who}: version_files: nothing at ${full}`);
    for (const file of found.isDirectory() ? await filesUnder(full) : [full]) files.add(file);
  }
  const hash = createHash('sha256');
  for (const file of [...files].sort()) {
    hash.update(`${relative(root, file).split(sep).join('/')}\0`);
    hash.update(`${await sha256File(file)}\n`);
  }
  return hash.digest('hex');
}
