/**
 * The cell stores: subject answers and judge verdicts, each kept by WHAT IT IS, not by the run that made
 * it, never by a label. A model's answer is identified by its provider and model (and their version; an
 * OpenAI-compatible server's also by its endpoint), the question and the question-set version, the run
 * index, the exact prompt (hash), max tokens, the sampling seed and the retrieval (index checksum and
 * k); a system's answer (a user's own RAG app) by the subject itself, its id and version, and the
 * question: its `model` is only a label, so two systems that share one are never each other's answers.
 * A verdict by the answer it judges, the judge (provider, model, endpoint, version, temperature) and the
 * exact judge request. Any run that needs a cell that exists — a full
 * run, then `--subjects X`, then `--questions 20` — reuses it and calls nothing. The run id names a
 * report, not a cache.
 *
 * Layout: `data/results/cells/answers/<provider>__<model>.jsonl` and `.../verdicts/...`, append-only,
 * written under a file lock (several processes may fill one store) so no cell is lost or duplicated;
 * the first record of a key wins. Beside them, `.../attempts/...` keeps the judges' paid first replies
 * whose retry has not given a verdict yet (`AttemptRecord`), and `.../checks/...` what the deterministic
 * checks computed from each answer (`CheckRecord`), so that a warm case reads them.
 */
import { existsSync, readdirSync } from 'node:fs';
import { z } from 'zod';
import { AnswerChecks, EvidenceRecall } from '../checks/schema.ts';
import { JudgeOutcome } from '../judging/verdict.ts';
import { CallCharge, StopInfo, Usage } from '../providers/types.ts';
import { SystemContext, SystemToolCall } from '../system/contract.ts';
import { canonicalJson, identityHash } from '../util/canonical.ts';
import { Journal, type LineAt, LineFile } from './jsonl.ts';
import { type CellKind, type ResultsLayout, resultsLayout, safeName } from './layout.ts';
import { LineIndex } from './line-index.ts';

export { canonicalJson, identityHash };

/** The model a cell's record comes from: provider and model, and the version of rge's code or data for it. */
const CellModel = {
  provider: z.string(),
  model: z.string(),
  provider_version: z.string(),
  /** an OpenAI-compatible server's base URL: two servers may serve models of one name (absent otherwise) */
  endpoint: z.string().optional(),
};

export const AnswerIdentity = z.strictObject({
  ...CellModel,
  /** a system subject's id (its answers are its own, whatever its model label); absent for a model */
  subject: z.string().optional(),
  question_id: z.string(),
  questions_version: z.number().int(),
  run_index: z.number().int().min(0),
  prompt_hash: z.string(),
  max_tokens: z.number().int(),
  seed: z.string(),
  index_checksum: z.string(),
  k: z.number().int(),
});
export type AnswerIdentity = z.infer<typeof AnswerIdentity>;

/** The head of every cell record: its kind, its key (the hash of its identity) and that identity. */
const recordHead = <K extends string, I extends z.ZodType>(kind: K, identity: I) => ({
  kind: z.literal(kind),
  key: z.string(),
  identity,
});

export const AnswerRecord = z.strictObject({
  ...recordHead('answer', AnswerIdentity),
  /** the subject (config id) that first asked for it; informative only */
  subject_id: z.string(),
  text: z.string(),
  /** the model that answered, as the provider names it */
  reply_model: z.string(),
  retrieved_ids: z.array(z.string()),
  usage: Usage,
  latency_ms: z.number().min(0),
  cost_usd: z.number().min(0),
  batch: z.boolean(),
  charges: z.array(CallCharge),
  /** why the reply ended; absent in records written before rge recorded it (complete) */
  stop: StopInfo.optional(),
  /**
   * a system's own contexts, as it returned them: what it answered from, and what its judges and checks
   * read (absent for rge's pipeline, whose contexts are the question's top-k of rge's index)
   */
  contexts: z.array(SystemContext).optional(),
  /** a system's trace of its tool calls, as it returned it */
  trace: z.array(SystemToolCall).optional(),
  created_at: z.string(),
});
export type AnswerRecord = z.infer<typeof AnswerRecord>;

export const VerdictIdentity = z.strictObject({
  answer_key: z.string(),
  ...CellModel,
  /** the temperature sent; absent when none is (e.g. Claude under API version 2026-10-21) */
  temperature: z.number().optional(),
  judge_prompt_hash: z.string(),
  /** hash of the whole judge request (system, messages, schema) */
  request_hash: z.string(),
});
export type VerdictIdentity = z.infer<typeof VerdictIdentity>;

export const VerdictRecord = z.strictObject({
  ...recordHead('verdict', VerdictIdentity),
  judge_id: z.string(),
  outcome: JudgeOutcome,
  usage: Usage,
  batch: z.boolean(),
  charges: z.array(CallCharge),
  created_at: z.string(),
});
export type VerdictRecord = z.infer<typeof VerdictRecord>;

/**
 * A judge's first reply that could not be used, kept with what it cost before its retry is asked: when
 * the retry then fails (the cap, an abort, a kill, its attempts used up), the paid reply is not lost, and
 * the next run asks only the retry, with this reply as the first attempt. Keyed like the verdict it is
 * the first attempt of (the first record of a key stays); once that verdict is stored, it is history.
 */
export const AttemptRecord = z.strictObject({
  ...recordHead('attempt', VerdictIdentity),
  judge_id: z.string(),
  text: z.string(),
  /** the model that replied, as the provider names it */
  reply_model: z.string(),
  usage: Usage,
  latency_ms: z.number().min(0),
  cost_usd: z.number().min(0),
  batch: z.boolean(),
  charges: z.array(CallCharge),
  created_at: z.string(),
});
export type AttemptRecord = z.infer<typeof AttemptRecord>;

/**
 * What an answer's checks computed is identified by what they read: the answer (its key, and its text's
 * SHA-256, so a record is never read for another text under the same key, e.g. across merged folders),
 * the rules (`CHECKS_VERSION`), the question (every field, hashed) and the passages the answer was checked
 * against (rge's top-k, or a system's own contexts, hashed).
 */
export const CheckIdentity = z.strictObject({
  answer_key: z.string(),
  answer_sha256: z.string(),
  checks_version: z.string(),
  question_hash: z.string(),
  passages_hash: z.string(),
});
export type CheckIdentity = z.infer<typeof CheckIdentity>;

/**
 * An answer's deterministic checks (all but latency, which is the call's) and its evidence recall, as
 * the checks stage computed them (run/stages/answer-checks.ts): a case reads them instead of computing them
 * again. Derived data: a folder without them (merged shards, an older rge) has them computed again.
 */
export const CheckRecord = z.strictObject({
  ...recordHead('checks', CheckIdentity),
  checks: AnswerChecks,
  evidence: EvidenceRecall,
  created_at: z.string(),
});
export type CheckRecord = z.infer<typeof CheckRecord>;

export const answerKey = (identity: AnswerIdentity): string => identityHash(identity);
export const checkKey = (identity: CheckIdentity): string => identityHash(identity);
export const verdictKey = (identity: VerdictIdentity): string => identityHash(identity);

/**
 * Is this answer one the judges score? Only a reply that ended on its own: one cut at the output limit,
 * refused or stopped by a safety filter is kept with its stop and counted, never judged or scored as a
 * complete answer.
 */
export function isJudgeable(answer: Pick<AnswerRecord, 'stop'>): boolean {
  return (answer.stop?.kind ?? 'complete') === 'complete';
}

/** A file-name-safe form of `provider/model`. */
export function storeName(provider: string, model: string): string {
  return safeName(`${provider}__${model}`);
}

/** A record of a cell store: its key, and the charges of the calls that made it (none for derived records). */
export type CellRecord = { key: string; charges?: CallCharge[] };

/** How many records a store keeps parsed (the ones read last); the rest stay on disk, found by location. */
const CACHED_RECORDS = 256;

/**
 * One store file: records by key, the first record of a key wins; duplicates are counted, not kept.
 * Every line is validated when it is first read, but only its location (byte offset and length) is
 * kept: a record is read again from the file when asked for (the last few stay parsed), so a store of a
 * hundred thousand cells costs a compact index of keys (`LineIndex`), not the records (issue 41).
 */
export class CellStore<R extends CellRecord> {
  private readonly byKey = new LineIndex();
  private readonly byReservation = new LineIndex();
  /** the keys of every charge on record (with the record's place): a call's record stored again is not a second call */
  private readonly chargeKeys = new LineIndex();
  private readonly dupes: LineAt[] = [];
  private readonly cache = new Map<number, R>();
  /** records of a key already stored (paid calls of processes that raced on one cell) */
  duplicates = 0;
  private readonly journal: Journal<R>;
  /** the file, read at a record's place through one descriptor */
  private readonly lines: LineFile;

  constructor(
    readonly file: string,
    private readonly schema: z.ZodType<R>,
    private readonly readOnly = false,
  ) {
    this.lines = new LineFile(file);
    this.journal = new Journal(file, schema, (record, _line, at) => {
      for (const c of record.charges ?? []) {
        this.chargeKeys.add(c.key, at);
        if (c.reservation) this.byReservation.set(c.reservation, at);
      }
      if (!this.byKey.add(record.key, at)) {
        this.duplicates++;
        this.dupes.push(at);
        return;
      }
      this.remember(at, record);
    });
    this.journal.catchUp();
  }

  /** Whether a record of the key is stored (reads nothing). */
  has(key: string): boolean {
    return this.byKey.has(key);
  }

  get(key: string): R | undefined {
    const at = this.byKey.get(key);
    return at ? this.read(at) : undefined;
  }

  /** The record at a location: parsed again (it was validated when first read), the last few kept. */
  private read(at: LineAt): R {
    const cached = this.cache.get(at.offset);
    if (cached) return cached;
    const record = this.schema.parse(JSON.parse(this.lines.read(at)));
    this.remember(at, record);
    return record;
  }

  private remember(at: LineAt, record: R): void {
    this.cache.set(at.offset, record);
    if (this.cache.size > CACHED_RECORDS) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
  }

  /** Re-reads records other processes appended. */
  refresh(): void {
    this.journal.catchUp();
  }

  /** The stored record that holds a charge of `reservation`, if any. */
  byCharge(reservation: string): R | undefined {
    const at = this.byReservation.get(reservation);
    return at ? this.read(at) : undefined;
  }

  /**
   * Stores a record and returns the stored one for its key. When another process stored the key first,
   * the first record stays the cell's; a record whose calls were paid for (it has charges) is still
   * appended, as a duplicate, so that every paid call stays on record (the ledger equals the sum of the
   * recorded costs); a free one is dropped, and so is one whose calls are all on record already (the
   * same record again, e.g. from a dead process's inbox).
   */
  async put(record: R): Promise<R> {
    if (this.readOnly) throw new Error(`cell store ${this.file} is read-only (dry run)`);
    return this.journal.transact(() => {
      const existing = this.get(record.key);
      if (!existing) return { records: [record], result: record };
      const paid = (record.charges ?? []).some((c) => c.usd > 0 && !this.chargeKeys.has(c.key));
      return { records: paid ? [record] : [], result: existing };
    });
  }

  /**
   * Stores records that no call paid for (derived ones, e.g. an answer's checks) in one write: a key
   * already stored keeps its first record, and the others of it are dropped.
   */
  async putUnpaid(records: readonly R[]): Promise<void> {
    if (this.readOnly) throw new Error(`cell store ${this.file} is read-only (dry run)`);
    if (records.some((r) => (r.charges ?? []).length > 0))
      throw new Error(`putUnpaid: a record with charges goes through put (${this.file})`);
    await this.journal.transact(() => {
      const fresh = new Map<string, R>();
      for (const r of records) if (!this.byKey.has(r.key) && !fresh.has(r.key)) fresh.set(r.key, r);
      return { records: [...fresh.values()], result: undefined };
    });
  }

  /** Every record of the file, duplicates included (what was paid for). */
  allRecords(): R[] {
    return [...this.records(), ...this.dupes.map((at) => this.read(at))];
  }

  get size(): number {
    return this.byKey.size;
  }

  records(): R[] {
    return [...this.byKey.values()].map((at) => this.read(at));
  }
}

/** The answer, verdict and attempt stores of a results folder, one file per provider and model. */
export class CellStores {
  private readonly answerStores = new Map<string, CellStore<AnswerRecord>>();
  private readonly verdictStores = new Map<string, CellStore<VerdictRecord>>();
  private readonly attemptStores = new Map<string, CellStore<AttemptRecord>>();
  private readonly checkStores = new Map<string, CellStore<CheckRecord>>();

  private readonly layout: ResultsLayout;

  constructor(
    readonly dir: string,
    private readonly readOnly = false,
  ) {
    this.layout = resultsLayout(dir);
  }

  answers(provider: string, model: string): CellStore<AnswerRecord> {
    return this.answerStore(storeName(provider, model));
  }

  verdicts(provider: string, model: string): CellStore<VerdictRecord> {
    return this.verdictStore(storeName(provider, model));
  }

  /** The judges' first replies kept for their retry (`AttemptRecord`), of a judge's model. */
  attempts(provider: string, model: string): CellStore<AttemptRecord> {
    return this.attemptStore(storeName(provider, model));
  }

  /** What the checks computed from a subject's answers (`CheckRecord`), of the subject's model. */
  checks(provider: string, model: string): CellStore<CheckRecord> {
    return this.opened(this.checkStores, 'checks', storeName(provider, model), CheckRecord);
  }

  private attemptStore(name: string): CellStore<AttemptRecord> {
    return this.opened(this.attemptStores, 'attempts', name, AttemptRecord);
  }

  private answerStore(name: string): CellStore<AnswerRecord> {
    return this.opened(this.answerStores, 'answers', name, AnswerRecord);
  }

  private verdictStore(name: string): CellStore<VerdictRecord> {
    return this.opened(this.verdictStores, 'verdicts', name, VerdictRecord);
  }

  /** The store `name` of a kind, opened on first use. */
  private opened<R extends CellRecord>(
    stores: Map<string, CellStore<R>>,
    kind: CellKind,
    name: string,
    schema: z.ZodType<R>,
  ): CellStore<R> {
    let store = stores.get(name);
    if (!store) {
      store = new CellStore(this.layout.cellStore(kind, name), schema, this.readOnly);
      stores.set(name, store);
    }
    return store;
  }

  /** Opens every store file of the results folder (ledger recovery looks in all of them). */
  openAll(): void {
    for (const [kind, open] of [
      ['answers', (name: string) => this.answerStore(name)],
      ['verdicts', (name: string) => this.verdictStore(name)],
      ['attempts', (name: string) => this.attemptStore(name)],
    ] as const) {
      const dir = this.layout.cells(kind);
      if (!existsSync(dir)) continue;
      for (const file of readdirSync(dir)) if (file.endsWith('.jsonl')) open(file.slice(0, -'.jsonl'.length));
    }
  }

  /** The charges recorded for a reservation in any open store (for ledger recovery). */
  chargesOf(reservation: string): CallCharge[] | undefined {
    for (const store of this.all()) {
      const record = store.byCharge(reservation);
      if (record) return record.charges.filter((c) => c.reservation === reservation);
    }
    return undefined;
  }

  /** Every store opened so far (answers, verdicts, then attempts). */
  all(): CellStore<AnswerRecord | VerdictRecord | AttemptRecord>[] {
    return [
      ...this.answerStores.values(),
      ...this.verdictStores.values(),
      ...this.attemptStores.values(),
    ] as CellStore<AnswerRecord | VerdictRecord | AttemptRecord>[];
  }
}
