/** Reading a run's summary.json for a command (`rge gate`, `rge plan`): every failure a usage error naming the file. */
import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { UsageError } from '../util/errors.ts';

/**
 * Reads `file` and parses it with `schema`; a missing or unreadable file, bad JSON or a schema miss is a
 * UsageError (exit 2) naming the file, `${file}: ${what}: <path>: <message>` plus `hint(path)` for the
 * last (e.g. what an older summary lacks).
 */
export async function readSummaryFile<T extends z.ZodType>(
  file: string,
  schema: T,
  what: string,
  hint: (where: string) => string = () => '',
): Promise<z.infer<T>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT' ? `${file}: not found` : `${file}: cannot read (${(err as Error).message})`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file}: not JSON (${(err as Error).message})`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first?.path.length ? first.path.join('.') : '(top level)';
    throw new UsageError(`${file}: ${what}: ${where}: ${first?.message ?? 'invalid'}${hint(where)}`);
  }
  return parsed.data;
}
