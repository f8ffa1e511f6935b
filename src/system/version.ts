/**
 * A system's version from its files: the sha256 of the files that make up its behaviour (a module, its
 * prompt, its code folder), so that a changed prompt or retriever is asked again and an unchanged one is
 * not. Folders are walked (skipping node_modules and dot-folders); the digest covers each file's name
 * (within the folder given) and its content, so a renamed file changes it too, and a checkout in
 * another place, or a run from another folder, does not.
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
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

/**
 * The sha256 over these files and folders (each resolved against root); a path that is not there names
 * the subject. A file is named by its own name, a folder's files by their path inside it (with the
 * entry's place in the list), so the version is the same whichever folder rge runs in and wherever the
 * config lives: only the files' names and contents decide it.
 */
export async function versionOfFiles(who: string, paths: readonly string[], root: string): Promise<string> {
  const named: { name: string; file: string }[] = [];
  for (const [i, path] of paths.entries()) {
    const full = isAbsolute(path) ? path : resolve(root, path);
    const found = await stat(full).catch(() => null);
    if (found === null) throw new RgeError(`${who}: version_files: nothing at ${full}`);
    const files = found.isDirectory() ? await filesUnder(full) : [full];
    for (const file of files) {
      const name = found.isDirectory() ? relative(full, file).split(sep).join('/') : basename(file);
      named.push({ name: `${i}\0${name}`, file });
    }
  }
  named.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const hash = createHash('sha256');
  for (const { name, file } of named) {
    hash.update(`${name}\0`);
    hash.update(`${await sha256File(file)}\n`);
  }
  return hash.digest('hex');
}
