/**
 * A system's version from its files: the sha256 of the files that make up its behaviour (a module, its
 * prompt, its code folder), so that a changed prompt or retriever is asked again and an unchanged one is
 * not. Folders are walked (skipping node_modules and dot-folders); the digest covers each file's path
 * from the folder that holds them all, and its content, so a renamed file changes it too, and a
 * checkout in another place, or a run from another folder, does not.
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
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

/** The deepest folder that holds every one of these folders (absolute paths). */
function commonFolder(folders: readonly string[]): string {
  const split = folders.map((f) => f.split(sep));
  const first = split[0] ?? [];
  let n = first.length;
  for (const parts of split) {
    let i = 0;
    while (i < n && parts[i] === first[i]) i++;
    n = i;
  }
  return first.slice(0, n).join(sep) || sep;
}

/**
 * The sha256 over these files and folders (each resolved against root); a path that is not there names
 * the subject. Each file is named by its path from the deepest folder holding everything listed, so the
 * version is the same whichever folder rge runs in and wherever the app is checked out: only the files'
 * names and contents decide it (a module listed beside its own folder counts once).
 */
export async function versionOfFiles(who: string, paths: readonly string[], root: string): Promise<string> {
  const files = new Set<string>();
  const folders: string[] = [];
  for (const path of paths) {
    const full = isAbsolute(path) ? path : resolve(root, path);
    const found = await stat(full).catch(() => null);
    if (found === null) throw new RgeError(`${who}: version_files: nothing at ${full}`);
    folders.push(found.isDirectory() ? full : dirname(full));
    for (const file of found.isDirectory() ? await filesUnder(full) : [full]) files.add(file);
  }
  const base = commonFolder(folders);
  const named = [...files].map((file) => ({ name: relative(base, file).split(sep).join('/'), file }));
  named.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const hash = createHash('sha256');
  for (const { name, file } of named) {
    hash.update(`${name}\0`);
    hash.update(`${await sha256File(file)}\n`);
  }
  return hash.digest('hex');
}
