/**
 * Append-only JSONL files a person's decisions go to (labels, reviews, question reviews): one record per
 * line, appended under the file's lock, never rewritten; the last record of a key wins when read. A
 * crash mid-write leaves a torn last line: the readers skip it, and the writers cut it off into
 * `<file>.torn` before appending, so a resumed session never builds on half a record.
 */
import { existsSync } from 'node:fs';
import { appendFile, readFile, truncate } from 'node:fs/promises';
import { withFileLock } from './lock.ts';

/**
 * The torn last line of a JSONL text: the bytes after its last newline when they are not whole JSON (a
 * writer killed mid-line), with its 1-based line; null when the text ends in a newline or a whole record.
 */
export function tornTail(text: string): { at: number; line: number; bytes: number } | null {
  if (text === '' || text.endsWith('\n')) return null;
  const at = text.lastIndexOf('\n') + 1;
  try {
    JSON.parse(text.slice(at));
    return null;
  } catch {
    return { at, line: text.slice(0, at).split('\n').length, bytes: Buffer.byteLength(text.slice(at)) };
  }
}

/** Where `setAsideTornTail` keeps the torn last lines it cut from `file`. */
export const tornFile = (file: string) => `${file}.torn`;

/** Cuts a torn last line off `file` into `<file>.torn` (the caller holds the file's lock); what it cut. */
async function cutTornTail(file: string): Promise<{ line: number; bytes: number } | null> {
  if (!existsSync(file)) return null;
  const text = await readFile(file, 'utf8');
  const torn = tornTail(text);
  if (!torn) return null;
  await appendFile(tornFile(file), `${text.slice(torn.at)}\n`);
  await truncate(file, Buffer.byteLength(text.slice(0, torn.at)));
  return { line: torn.line, bytes: torn.bytes };
}

/**
 * Repairs a JSONL file a crash left with a torn last line, as the cell stores do (src/store/jsonl.ts):
 * under the file's lock the torn line is cut off and kept in `<file>.torn`. Returns what was cut, or null.
 */
export async function setAsideTornTail(file: string): Promise<{ line: number; bytes: number } | null> {
  if (!existsSync(file) || !tornTail(await readFile(file, 'utf8'))) return null;
  return withFileLock(file, () => cutTornTail(file));
}

/**
 * Appends one record as one line (under the file's lock). A torn last line left by a crash is first cut
 * off into `<file>.torn`; a last line that is whole JSON without its newline gets one.
 */
export async function appendRecord(file: string, record: unknown): Promise<void> {
  await withFileLock(file, async () => {
    await cutTornTail(file);
    let prefix = '';
    if (existsSync(file)) {
      const text = await readFile(file, 'utf8');
      if (text.length > 0 && !text.endsWith('\n')) prefix = '\n';
    }
    await appendFile(file, `${prefix}${JSON.stringify(record)}\n`);
  });
}
