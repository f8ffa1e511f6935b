import { createHash } from 'node:crypto';
/**
 * `replay`: answers recorded in a JSONL file, re-scored without regenerating them. This is also how
 * answers produced elsewhere (another harness, a hand-run model) are evaluated: write one line per
 * (question, model, run index) and point a `provider: replay` subject at the file.
 *
 * A line: {"question_id": "gd-001", "model": "gpt-x", "run_index": 0, "answer": "...",
 *          "retrieved_ids": [...]?, "usage": {"input_tokens": n, "output_tokens": n, ...}?,
 *          "latency_ms": n?, "cost_usd": n?}
 * Records are keyed by (question_id, model, run_index); the request's model is the subject's model in
 * the run config, and the question id and run index come from `request.cell`. A missing record is an
 * error naming the file and the key; a bad or duplicate line is an error naming file:line.
 */
import { z } from 'zod';
import { RgeError } from '../util/errors.ts';
import { readJsonl } from '../util/jsonl.ts';
import type { ModelReply, ModelRequest, Provider, Usage } from './types.ts';

const Tokens = z.number().int().min(0);

export const ReplayRecord = z.strictObject({
  question_id: z.string().min(1),
  model: z.string().min(1),
  run_index: z.number().int().min(0),
  answer: z.string(),
  retrieved_ids: z.array(z.string().min(1)).optional(),
  usage: z
    .strictObject({
      input_tokens: Tokens,
      output_tokens: Tokens,
      cache_read_tokens: Tokens.default(0),
      cache_write_tokens: Tokens.default(0),
    })
    .optional(),
  latency_ms: z.number().min(0).optional(),
  cost_usd: z.number().min(0).optional(),
});
export type ReplayRecord = z.infer<typeof ReplayRecord>;

/** The family a replay subject has when the caller does not say (the run config always does). */
export const REPLAY_FAMILY = 'replay';

export interface ReplayKey {
  questionId: string;
  model: string;
  runIndex: number;
}

function keyOf(k: ReplayKey): string {
  return JSON.stringify([k.questionId, k.model, k.runIndex]);
}

function describeKey(k: ReplayKey): string {
  return `question ${k.questionId}, model ${k.model}, run index ${k.runIndex}`;
}

export class ReplayProvider implements Provider {
  readonly id: string;
  readonly family: string;
  readonly file: string;
  /** the recorded answers' own identity: a digest of every record */
  readonly version: string;
  private readonly records: ReadonlyMap<string, ReplayRecord>;

  /** Use `ReplayProvider.load`. */
  constructor(
    file: string,
    records: ReadonlyMap<string, ReplayRecord>,
    opts: { family?: string; id?: string },
  ) {
    this.file = file;
    this.version = createHash('sha256')
      .update(JSON.stringify([...records.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))))
      .digest('hex')
      .slice(0, 16);
    this.records = records;
    this.family = opts.family ?? REPLAY_FAMILY;
    this.id = opts.id ?? `replay/${file}`;
  }

  /** Reads and validates the file; every bad line, and every repeated key, is reported as file:line. */
  static async load(file: string, opts: { family?: string; id?: string } = {}): Promise<ReplayProvider> {
    const lines = await readJsonl(file, ReplayRecord);
    const records = new Map<string, ReplayRecord>();
    const firstLine = new Map<string, number>();
    const duplicates: string[] = [];
    for (const { line, value } of lines) {
      const key = keyOf({ questionId: value.question_id, model: value.model, runIndex: value.run_index });
      const first = firstLine.get(key);
      if (first !== undefined) {
        duplicates.push(
          `${file}:${line}: duplicate record for ${describeKey({ questionId: value.question_id, model: value.model, runIndex: value.run_index })} (first at line ${first})`,
        );
        continue;
      }
      firstLine.set(key, line);
      records.set(key, value);
    }
    if (duplicates.length > 0)
      throw new RgeError(`${duplicates.length} problem(s):\n${duplicates.join('\n')}`, { file });
    return new ReplayProvider(file, records, opts);
  }

  get size(): number {
    return this.records.size;
  }

  /** The recorded answer for a key, or undefined. */
  lookup(key: ReplayKey): ReplayRecord | undefined {
    return this.records.get(keyOf(key));
  }

  async complete(request: ModelRequest): Promise<ModelReply> {
    const started = performance.now();
    const cell = request.cell;
    if (!cell)
      throw new RgeError(
        'replay needs request.cell (question id and run index) to find the recorded answer',
        { file: this.file },
      );
    const key = { questionId: cell.questionId, model: request.model, runIndex: cell.runIndex };
    const record = this.lookup(key);
    if (!record) throw new RgeError(`no recorded answer for ${describeKey(key)}`, { file: this.file });
    const usage: Usage = record.usage
      ? {
          inputTokens: record.usage.input_tokens,
          outputTokens: record.usage.output_tokens,
          cacheReadTokens: record.usage.cache_read_tokens,
          cacheWriteTokens: record.usage.cache_write_tokens,
        }
      : { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    return {
      text: record.answer,
      usage,
      latencyMs: record.latency_ms ?? performance.now() - started,
      costUsd: record.cost_usd ?? 0,
      model: record.model,
      ...(record.retrieved_ids ? { retrievedIds: record.retrieved_ids } : {}),
    };
  }
}
