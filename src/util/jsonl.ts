import type { z } from 'zod';
import { RgeError } from './errors.ts';
import { readTextFile } from './fs.ts';

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

/** One non-blank line of a JSONL text: its JSON (undefined when it is not JSON), its value when valid, its issues. */
export interface JsonlLine<T> {
  line: number;
  json: unknown;
  value?: T;
  issues: JsonlIssue[];
}

/** Parses each non-blank line of a JSONL text against a schema; never throws for a bad line. */
export function parseJsonlLines<S extends z.ZodType>(text: string, schema: S): JsonlLine<z.infer<S>>[] {
  const lines: JsonlLine<z.infer<S>>[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = i + 1;
    if (raw.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (err) {
      lines.push({
        line,
        json: undefined,
        issues: [{ line, field: '', message: `invalid JSON (${(err as Error).message})` }],
      });
      continue;
    }
    const parsed = schema.safeParse(json);
    lines.push(
      parsed.success
        ? { line, json, value: parsed.data, issues: [] }
        : {
            line,
            json,
            issues: parsed.error.issues.map((issue) => ({
              line,
              field: issue.path.map(String).join('.'),
              message: issue.message,
            })),
          },
    );
  }
  return lines;
}

/**
 * Parses a JSONL file against a schema. Blank lines are skipped. Every bad line is reported in one
 * pass (file:line: field: message) in a single RgeError; nothing is returned unless all lines are good.
 */
export async function readJsonl<S extends z.ZodType>(
  path: string,
  schema: S,
): Promise<JsonlRecord<z.infer<S>>[]> {
  const lines = parseJsonlLines(await readTextFile(path), schema);
  const records: JsonlRecord<z.infer<S>>[] = lines.flatMap((l) =>
    l.issues.length === 0 ? [{ line: l.line, value: l.value as z.infer<S> }] : [],
  );
  const issues: JsonlIssue[] = lines.flatMap((l) => l.issues);
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
