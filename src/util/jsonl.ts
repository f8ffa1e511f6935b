import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { RgeError } from './errors.ts';

export interface JsonlRecord<T> {
  line: number;
  value: T;
}

/** One problem of a JSONL file, located by 1-based line and, for schema errors, the field path. */
export interface JsonlIssue {
  line: number;
  field: string;
  message: string;
}

export function formatIssues(file: string, issues: readonly JsonlIssue[]): string {
  return issues.map((i) => `${file}:${i.line}: ${i.field ? `${i.field}: ` : ''}${i.message}`).join('\n');
}

/**
 * Parses a JSONL file against a schema. Blank lines are skipped. Every bad line is reported in one
 * pass (file:line: field: message) in a single RgeError; nothing is returned unless all lines are good.
 */
export async function readJsonl<S extends z.ZodType>(
  path: string,
  schema: S,
): Promise<JsonlRecord<z.infer<S>>[]> {
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new RgeError(err.code === 'ENOENT' ? 'file not found' : err.message, { file: path });
  });
  const records: JsonlRecord<z.infer<S>>[] = [];
  const issues: JsonlIssue[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = i + 1;
    if (raw.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (err) {
      issues.push({ line, field: '', message: `invalid JSON (${(err as Error).message})` });
      continue;
    }
    const parsed = schema.safeParse(json);
    if (parsed.success) records.push({ line, value: parsed.data });
    else
      for (const issue of parsed.error.issues)
        issues.push({ line, field: issue.path.map(String).join('.'), message: issue.message });
  }
  const [only] = issues;
  if (issues.length === 1 && only)
    throw new RgeError(`${only.field ? `${only.field}: ` : ''}${only.message}`, {
      file: path,
      line: only.line,
    });
  if (issues.length > 0) {
    throw new RgeError(`${issues.length} problem(s):\n${formatIssues(path, issues)}`, { file: path });
  }
  return records;
}
