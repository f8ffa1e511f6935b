/**
 * The results store: one JSONL file per (subject, run id) under `data/results/`, one line per case,
 * appended as each case completes. The first line records the run (id, seed, config hash, index
 * checksum). On restart, cells already present — same question, subject, run index and prompt hash —
 * are reused, not recomputed; a torn last line (a crash mid-write) is cut off and reported, never
 * appended to, and nothing else is rewritten.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, truncateSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { RgeError } from '../util/errors.ts';

export const RunHeader = z.strictObject({
  kind: z.literal('run'),
  run_id: z.string(),
  subject_id: z.string(),
  seed: z.string(),
  config_hash: z.string(),
  index_checksum: z.string(),
  questions_hash: z.string(),
  created_at: z.string(),
});
export type RunHeader = z.infer<typeof RunHeader>;

/** The identity of a cell: what must match for a stored result to be reused. */
export interface CellKey {
  question_id: string;
  subject_id: string;
  run_index: number;
  prompt_hash: string;
}

export function cellKey(k: CellKey): string {
  return `${k.question_id}\u0000${k.subject_id}\u0000${k.run_index}\u0000${k.prompt_hash}`;
}

export interface StoreOpen<Row> {
  rows: Row[];
  /** a description of the torn last line that was cut off, if there was one */
  tornLine: string | null;
}

export function resultsFile(dir: string, subjectId: string, runId: string): string {
  return join(dir, `${subjectId.replace(/[^A-Za-z0-9._-]+/g, '_')}_${runId}.jsonl`);
}

/**
 * One subject's results file. `Row` is the case schema (validated on read); rows that fail it are an
 * error naming the file and line, except the last line when it is torn (no newline and not JSON).
 */
export class ResultsStore<Row extends CellKey> {
  private readonly byKey = new Map<string, Row>();
  readonly tornLine: string | null;

  private constructor(
    readonly file: string,
    readonly header: RunHeader,
    rows: Row[],
    tornLine: string | null,
    readonly readOnly = false,
  ) {
    for (const row of rows) this.byKey.set(cellKey(row), row);
    this.tornLine = tornLine;
  }

  static open<Row extends CellKey>(
    file: string,
    header: RunHeader,
    schema: z.ZodType<Row>,
    opts: { readOnly?: boolean } = {},
  ): ResultsStore<Row> {
    if (opts.readOnly) {
      // For dry runs: read what is stored, write nothing (a torn line is reported, not cut).
      if (!existsSync(file)) return new ResultsStore(file, header, [], null, true);
      const { rows, tornLine } = readResults(file, header, schema, true);
      return new ResultsStore(file, header, rows, tornLine, true);
    }
    mkdirSync(dirname(file), { recursive: true });
    if (!existsSync(file)) {
      appendFileSync(file, `${JSON.stringify(header)}\n`);
      return new ResultsStore(file, header, [], null);
    }
    const { rows, tornLine } = readResults(file, header, schema);
    // A crash can tear the header itself; the file then holds nothing and starts again.
    if (readFileSync(file, 'utf8').trim() === '') appendFileSync(file, `${JSON.stringify(header)}\n`);
    return new ResultsStore(file, header, rows, tornLine);
  }

  get size(): number {
    return this.byKey.size;
  }

  get(key: CellKey): Row | undefined {
    return this.byKey.get(cellKey(key));
  }

  /** Appends a completed case; a cell already present is not written twice. */
  put(row: Row): void {
    const key = cellKey(row);
    if (this.byKey.has(key)) return;
    if (this.readOnly) throw new RgeError('results store opened read-only (dry run)', { file: this.file });
    appendFileSync(this.file, `${JSON.stringify(row)}\n`);
    this.byKey.set(key, row);
  }

  rows(): Row[] {
    return [...this.byKey.values()];
  }
}

function readResults<Row>(
  file: string,
  header: RunHeader,
  schema: z.ZodType<Row>,
  readOnly = false,
): StoreOpen<Row> {
  const text = readFileSync(file, 'utf8');
  let tornLine: string | null = null;
  let body = text;
  if (!text.endsWith('\n')) {
    const cut = text.lastIndexOf('\n') + 1;
    const tail = text.slice(cut);
    tornLine = `${file}:${text.slice(0, cut).split('\n').length}: ignored a torn last line (${tail.length} bytes, no newline)`;
    if (!readOnly) truncateSync(file, Buffer.byteLength(text.slice(0, cut)));
    body = text.slice(0, cut);
  }
  const lines = body.split('\n');
  const rows: Row[] = [];
  for (const [i, raw] of lines.entries()) {
    if (raw.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (err) {
      throw new RgeError(`not JSON (${(err as Error).message}); the results file is damaged`, {
        file,
        line: i + 1,
      });
    }
    if (i === 0) {
      const stored = RunHeader.safeParse(json);
      if (!stored.success) throw new RgeError('not a run header', { file, line: 1 });
      for (const field of ['run_id', 'config_hash', 'index_checksum', 'questions_hash'] as const) {
        if (stored.data[field] !== header[field])
          throw new RgeError(`${field} ${stored.data[field]} differs from this run's ${header[field]}`, {
            file,
            line: 1,
          });
      }
      continue;
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new RgeError(`${issue?.path.join('.')}: ${issue?.message}`, { file, line: i + 1 });
    }
    rows.push(parsed.data);
  }
  return { rows, tornLine };
}
