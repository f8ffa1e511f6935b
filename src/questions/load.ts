/**
 * Reading questions files and the chunks of a built index. `loadQuestions` is for consumers that need
 * a good file (it throws one error listing every bad line); `readQuestionLines` keeps going past bad
 * lines so that the validator can report everything in one pass.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Chunk } from '../corpus/schema.ts';
import { RgeError } from '../util/errors.ts';
import { readTextFile } from '../util/fs.ts';
import { type JsonlIssue, type JsonlRecord, parseJsonlLines, readJsonl } from '../util/jsonl.ts';
import { Question } from './schema.ts';

/**
 * Every question of a JSONL file, with its line; throws an RgeError naming every bad line, a repeated
 * id, or the file when it holds no question at all (empty or blank: a run over nothing is a mistake, not a pass).
 */
export async function loadQuestions(path: string): Promise<JsonlRecord<Question>[]> {
  const records = await readJsonl(path, Question);
  if (records.length === 0) throw new RgeError(NO_QUESTIONS, { file: path });
  const firstLineOfId = new Map<string, number>();
  for (const { line, value } of records) {
    const first = firstLineOfId.get(value.id);
    if (first !== undefined)
      throw new RgeError(`id: duplicate id ${value.id} (first at line ${first})`, { file: path, line });
    firstLineOfId.set(value.id, line);
  }
  return records;
}

/** The message for a questions file with no question in it. */
export const NO_QUESTIONS = 'no questions: the file is empty (or holds only blank lines)';

/** One non-blank line of a questions file: its JSON (when it parses) and its schema result. */
export interface QuestionLine {
  line: number;
  /** the parsed JSON, or undefined when the line is not JSON */
  json: unknown;
  /** the question when the line passes the schema */
  question?: Question;
  /** JSON and schema problems of this line */
  issues: JsonlIssue[];
}

/** Parses each non-blank line of a questions file; never throws for bad lines (only for a missing file). */
export async function readQuestionLines(path: string): Promise<QuestionLine[]> {
  return parseQuestionLines(await readTextFile(path));
}

/** Parses the text of a questions JSONL file line by line (see readQuestionLines). */
export function parseQuestionLines(text: string): QuestionLine[] {
  return parseJsonlLines(text, Question).map(({ line, json, value, issues }) =>
    value === undefined ? { line, json, issues } : { line, json, question: value, issues },
  );
}

/** The chunks of a built index folder (its `chunks.json`), without loading vectors or postings. */
export async function loadIndexChunks(dir: string): Promise<Chunk[]> {
  const abs = resolve(dir);
  if (!existsSync(join(abs, 'manifest.json')))
    throw new RgeError(`${abs} is not a built index (no manifest.json); run \`rge corpus ingest\` first`);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(join(abs, 'chunks.json'), 'utf8'));
  } catch (err) {
    throw new RgeError(`cannot read chunks.json: ${(err as Error).message}`, {
      file: join(abs, 'chunks.json'),
    });
  }
  const parsed = Chunk.array().safeParse(json);
  if (!parsed.success)
    throw new RgeError(`chunks.json does not hold valid chunks: ${parsed.error.issues[0]?.message}`, {
      file: join(abs, 'chunks.json'),
    });
  return parsed.data;
}

/** Collapses every run of whitespace to one space and trims: how gold quotes are compared with chunks. */
export function normaliseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A quote for a message: whitespace-normalised, cut to 60 characters. */
export function shortQuote(quote: string): string {
  const text = normaliseWhitespace(quote);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
