/**
 * The results store: one JSONL file per (subject, run id) under `data/results/`, one line per case,
 * appended as each case completes. The first line records the run (id, seed, config hash, index
 * checksum). On restart, cells already present — same question, subject, run index and prompt hash —
 * are reused, not recomputed; a torn last line (a crash mid-write) is cut off and reported, never
 * appended to, and nothing else is rewritten.
 */
import { appendFileSync, existsSync, mkdirSync, statSync, truncateSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { CheckResults, EvidenceRecall } from '../checks/index.ts';
import { JudgeOutcome } from '../judging/verdict.ts';
import { StopInfo, Usage } from '../providers/types.ts';
import { CaseScores } from '../scoring/index.ts';
import { RgeError } from '../util/errors.ts';
import { type LineAt, LineFile, parseRecord, readLineAt, scanLines } from './jsonl.ts';
import { resultsLayout } from './layout.ts';
import { LineIndex } from './line-index.ts';

/** One case of a run, as the published rows and the report read it (computed by run/case/case.ts). */
export const CaseRow = z.strictObject({
  question_id: z.string(),
  category: z.string(),
  expected_behavior: z.string(),
  /** what a reader of the case needs beside the answer (absent in rows written before rge recorded it) */
  question: z
    .strictObject({ text: z.string(), gold_answer: z.string(), gold_quotes: z.array(z.string()) })
    .optional(),
  subject_id: z.string(),
  model: z.string(),
  family: z.string(),
  run_index: z.number().int().min(0),
  /** sha256 of the exact subject request (system, messages, model, temperature) */
  prompt_hash: z.string(),
  subject_prompt_hash: z.string(),
  judge_prompt_hash: z.string(),
  /** the answer's identity in the cell store */
  answer_key: z.string(),
  retrieved_ids: z.array(z.string()),
  /** the question's gold chunks (none for out-of-domain questions) */
  gold_chunk_ids: z.array(z.string()),
  /** present when the question's gold is not traced to a source here (`gold_source` untraced) */
  gold_untraced: z.literal(true).optional(),
  /** whether a gold chunk was in the retrieved top-k; null without gold chunks (and for a system) */
  retrieval_hit: z.boolean().nullable(),
  /**
   * how much of the question's gold evidence (quotes, figures) the passages the subject answered from
   * hold: rge's top-k, or a system's own contexts (absent in rows written before rge measured it)
   */
  evidence: EvidenceRecall.optional(),
  answer: z.string(),
  /**
   * why the subject's reply ended; a reply that did not end on its own (cut at the output limit, a
   * refusal, a safety stop) is not judged: the case is unscored (absent in rows written before rge
   * recorded it: complete)
   */
  answer_stop: StopInfo.optional(),
  /** the subject call's tokens */
  usage: Usage,
  /** the judge calls' tokens, all attempts */
  judge_usage: Usage,
  latency_ms: z.number().min(0),
  /** subject and judge calls */
  cost_usd: z.number().min(0),
  /** what the same calls would have cost without prompt caching */
  uncached_cost_usd: z.number().min(0),
  batch: z.boolean(),
  verdicts: z.array(JudgeOutcome),
  scores: CaseScores,
  checks: CheckResults,
});
export type CaseRow = z.infer<typeof CaseRow>;

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

export function resultsFile(dir: string, subjectId: string, runId: string): string {
  return resultsLayout(dir).rows(subjectId, runId);
}

/**
 * One subject's results file. `Row` is the case schema (validated on read); rows that fail it are an
 * error naming the file and line, except the last line when it is torn (no newline and not JSON). The
 * file is read in chunks and only each row's key and place are kept (`get` and `rows` read the rows again
 * from the file), so a run of a hundred thousand cases opens in bounded memory (issue 41).
 */
export class ResultsStore<Row extends CellKey> {
  private readonly byKey = new LineIndex();
  private tornLineText: string | null = null;
  /** the file, read and appended to through kept descriptors */
  private readonly lines: LineFile;

  private constructor(
    readonly file: string,
    readonly header: RunHeader,
    private readonly schema: z.ZodType<Row>,
    readonly readOnly = false,
  ) {
    this.lines = new LineFile(file);
  }

  get tornLine(): string | null {
    return this.tornLineText;
  }

  static open<Row extends CellKey>(
    file: string,
    header: RunHeader,
    schema: z.ZodType<Row>,
    opts: { readOnly?: boolean } = {},
  ): ResultsStore<Row> {
    const store = new ResultsStore(file, header, schema, opts.readOnly === true);
    if (opts.readOnly) {
      // For dry runs: read what is stored, write nothing (a torn line is reported, not cut).
      if (existsSync(file)) store.index(true);
      return store;
    }
    mkdirSync(dirname(file), { recursive: true });
    if (!existsSync(file)) {
      appendFileSync(file, `${JSON.stringify(header)}\n`);
      return store;
    }
    store.index(false);
    // A crash can tear the header itself; the file then holds nothing and starts again.
    if (statSync(file).size === 0) appendFileSync(file, `${JSON.stringify(header)}\n`);
    return store;
  }

  /** Reads the file once: checks the header, validates every row, keeps where each is; cuts a torn tail. */
  private index(readOnly: boolean): void {
    const file = this.file;
    const { end, size, lines } = scanRows(file, this.schema, this.header, (row, at) => {
      this.byKey.add(cellKey(row), at);
    });
    if (end === size) return;
    // a torn last line: no newline (a writer killed mid-line); the header's own tear empties the file
    if (!readOnly) truncateSync(file, end);
    this.tornLineText = `${file}:${lines + 1}: ignored a torn last line (${size - end} bytes, no newline)`;
  }

  get size(): number {
    return this.byKey.size;
  }

  get(key: CellKey): Row | undefined {
    const at = this.byKey.get(cellKey(key));
    return at ? this.read(at) : undefined;
  }

  private read(at: LineAt): Row {
    return this.schema.parse(JSON.parse(this.lines.read(at)));
  }

  /** Appends a completed case; a cell already present is not written twice. */
  put(row: Row): void {
    const key = cellKey(row);
    if (this.byKey.has(key)) return;
    if (this.readOnly) throw new RgeError('results store opened read-only (dry run)', { file: this.file });
    const text = `${JSON.stringify(row)}\n`;
    const offset = this.lines.append(text);
    this.byKey.add(key, { offset, bytes: Buffer.byteLength(text) - 1 });
  }

  /** Every row, in the order first stored, read again from the file. */
  rows(): Row[] {
    return [...this.byKey.values()].map((at) => this.read(at));
  }
}

/**
 * Each row of a results file, validated, with where its line is, in one chunked pass: the first line is
 * the run header (checked against `header` when given: the rows of another run are never mixed in).
 * Returns the byte after the last complete line, the file's size (they differ when the last line is
 * torn) and the number of complete lines.
 */
export function scanRows<Row>(
  file: string,
  schema: z.ZodType<Row>,
  header: RunHeader | null,
  onRow: (row: Row, at: LineAt) => void,
): { end: number; size: number; lines: number } {
  const size = statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  let lines = 0;
  const end =
    size === 0
      ? 0
      : scanLines(file, 0, size, (raw, offset, bytes) => {
          lines++;
          if (lines > 1) onRow(parseRecord(raw, schema, file, lines), { offset, bytes });
          else {
            const stored = parseRecord(raw, RunHeader, file, lines);
            if (header) checkHeader(stored, header, file);
          }
        });
  return { end, size, lines };
}

/** The row at a place found by `scanRows` (validated again: the schema may fill defaults). */
export function readRowAt<Row>(file: string, at: LineAt, schema: z.ZodType<Row>): Row {
  return schema.parse(JSON.parse(readLineAt(file, at)));
}

/** A stored run header must be this run's: the rows of another run are never mixed in. */
function checkHeader(stored: RunHeader, header: RunHeader, file: string): void {
  for (const field of ['run_id', 'config_hash', 'index_checksum', 'questions_hash'] as const)
    if (stored[field] !== header[field])
      throw new RgeError(`${field} ${stored[field]} differs from this run's ${header[field]}`, {
        file,
        line: 1,
      });
}
