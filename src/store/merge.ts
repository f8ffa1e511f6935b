/**
 * `rge results merge --into DIR SHARD_DIR...`: joins the results folders of the shards of a run (each CI
 * machine fills its own) into one, so that a later run, or the report, sees every cell:
 *
 * - cell stores (`cells/answers/*.jsonl`, `cells/verdicts/*.jsonl`, and the judges' first replies kept
 *   for their retry, `cells/attempts/*.jsonl`): the union by record `key`. Two records of one key are
 *   compared on their RESULT (merge-compare.ts: the answer, the verdict; not their timing, nor the
 *   labels of who asked). A record already there with the same result is merged once, whenever it was
 *   made; with the same result at another cost (usage, charges) it is a note, not a conflict. A record
 *   with ANOTHER result is a CONFLICT: reported, the first stays the cell. A second record that was paid
 *   for (a conflict or another cost) is kept after the first as a duplicate (as when two processes race
 *   on a cell), so the ledger still equals the sum of the recorded costs; otherwise it is dropped. A
 *   store's own duplicates are kept.
 * - the budget ledger's journal (`.budget_ledger.jsonl`): the union of the events, an event that is
 *   already there (same content) once; its summary (`.budget_ledger.json`) is recomputed.
 * - run states and batch records (`.runs/*.json`, `.batches/*.json`): copied; a file that is already
 *   there with other content is a conflict. A run's state file that its slice files derive
 *   (`<run_id>.json` beside `<run_id>.slice-<i>-of-<n>.json`) is combined again from the joined slices.
 * - the reruns asked of subjects' models (`.reruns.jsonl`): the union of the events, each once.
 * - the runs' result rows (`<subject>_<run_id>.jsonl`): one header, the union of the rows by cell; a
 *   row of a cell already there with another result is a conflict (timing and cost compared as cells'),
 *   and a run state of one name that differs in more than its start and finish times.
 * - the cell leases (`.leases.jsonl`, `.leases/`) and the reply inboxes are the state of the processes
 *   that filled a folder, not results: left out.
 *
 * Sources are read in order: DIR's own content first (when it exists), then the shards as given; the
 * first of two conflicting records is kept. Every file is written atomically (a temporary sibling
 * renamed over it), under the lock the stores use. Exit 1 when there were conflicts, unless
 * `--allow-conflicts`. Do not merge into a folder a run is using.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import canonicalizeModule from 'canonicalize';
import type { z } from 'zod';
import { RgeError, UsageError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/fs.ts';
import { withFileLock } from '../util/lock.ts';
import { AnswerRecord, AttemptRecord, VerdictRecord } from './cells.ts';
import { parseJsonl, toJsonl } from './jsonl.ts';
import { RERUNS_JOURNAL } from './layout.ts';
import { BudgetLedger, LEDGER_JOURNAL, LEDGER_SUMMARY } from './ledger.ts';
import { LedgerEvent } from './ledger-tally.ts';
import { billOf, type ComparedRecord, recordDifference, sameRunState } from './merge-compare.ts';
import { RerunEvent } from './reruns.ts';
import { CaseRow, cellKey, RunHeader } from './rows.ts';
import { combineSliceStates, parseSliceFile, RunState, sliceCountsOf } from './run-state.ts';

const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;
const same = (a: unknown, b: unknown) => canonicalize(a) === canonicalize(b);

export interface MergeConflict {
  /** the file, relative to the results folder */
  file: string;
  /** the record's key, or the file itself */
  key: string;
  /** the folder whose version was kept, and the one whose version differs */
  kept: string;
  other: string;
}

export interface MergeOutcome {
  conflicts: MergeConflict[];
  /** per merged file (relative path): records written, and records already there that were merged once */
  files: { file: string; records: number; overlaps: number }[];
  /** torn last lines skipped (a writer killed mid-line) */
  notes: string[];
}

/** What a merge says of a torn last line it skipped. */
const tornNote = (file: string, bytes: number) => `${file}: skipped a torn last line (${bytes} bytes)`;

/** Regular files directly in `dir` whose names pass `keep`, sorted. */
function filesIn(dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => keep(name) && statSync(join(dir, name)).isFile())
    .sort();
}

type CellRecord = AnswerRecord | VerdictRecord;

/** Records of one key with the same result at another cost, per file: counted, the first one shown. */
interface BillNotes {
  count: number;
  first: { key: string; kept: string; other: string; keptBill: string; otherBill: string } | null;
}

const paid = (r: CellRecord) => r.charges.some((c) => c.usd > 0);

class Merger {
  readonly outcome: MergeOutcome = { conflicts: [], files: [], notes: [] };
  private readonly writes: { file: string; text: string }[] = [];

  constructor(
    readonly into: string,
    /** DIR's own content first when it exists, then the shards */
    readonly sources: readonly string[],
  ) {}

  private conflict(file: string, key: string, kept: string, other: string): void {
    this.outcome.conflicts.push({ file, key, kept, other });
  }

  /**
   * How a record compares with the first of its key: 'none' an overlap (merged once), 'bill' the same
   * result at another cost (noted in `bills`), 'result' a conflict (reported).
   */
  private compare(
    file: string,
    bills: BillNotes,
    first: { record: ComparedRecord; from: string },
    other: { record: ComparedRecord; from: string },
    key: string,
  ): 'none' | 'bill' | 'result' {
    const difference = recordDifference(first.record, other.record);
    if (difference === 'result') this.conflict(file, key, first.from, other.from);
    if (difference === 'bill') {
      bills.count++;
      bills.first ??= {
        key,
        kept: first.from,
        other: other.from,
        keptBill: billOf(first.record),
        otherBill: billOf(other.record),
      };
    }
    return difference;
  }

  /** The note of a file's records of the same result at another cost (none when there were none). */
  private noteBills(file: string, bills: BillNotes): void {
    const f = bills.first;
    if (!f) return;
    this.outcome.notes.push(
      `${file}: ${bills.count} record(s) hold the same result as one already merged, at another cost ` +
        `(e.g. ${f.key}: ${f.keptBill} in ${f.kept}, ${f.otherBill} in ${f.other}); not conflicts: the first is ` +
        'the cell, and a paid second is kept beside it so the ledger equals the recorded costs',
    );
  }

  private read<T>(file: string, schema: z.ZodType<T>): T[] {
    const { records, torn } = parseJsonl(readFileSync(file, 'utf8'), file, schema);
    if (torn) this.outcome.notes.push(tornNote(file, torn.bytes));
    return records;
  }

  private plan(rel: string, text: string, records: number, overlaps: number): void {
    this.writes.push({ file: join(this.into, rel), text });
    this.outcome.files.push({ file: rel, records, overlaps });
  }

  /** The file names under `sub` in any source. */
  private names(sub: string, keep: (name: string) => boolean): string[] {
    return [...new Set(this.sources.flatMap((dir) => filesIn(join(dir, sub), keep)))].sort();
  }

  cellStores(): void {
    for (const [kind, schema] of [
      ['answers', AnswerRecord],
      ['verdicts', VerdictRecord],
      ['attempts', AttemptRecord],
    ] as const) {
      const sub = join('cells', kind);
      const compared = (record: CellRecord) => ({ kind: kind.slice(0, -1), record }) as ComparedRecord;
      for (const name of this.names(sub, (n) => n.endsWith('.jsonl'))) {
        const rel = join(sub, name);
        const merged: CellRecord[] = [];
        const cells = new Map<string, { record: CellRecord; from: string }>();
        const bills: BillNotes = { count: 0, first: null };
        let overlaps = 0;
        for (const dir of this.sources) {
          const file = join(dir, rel);
          if (!existsSync(file)) continue;
          const own = new Set<string>();
          for (const record of this.read<CellRecord>(file, schema as z.ZodType<CellRecord>)) {
            const first = cells.get(record.key);
            if (own.has(record.key)) {
              // the source's own duplicate of a cell (a paid race): kept, unless that exact record is there
              if (!merged.some((m) => m.key === record.key && same(m, record))) merged.push(record);
              continue;
            }
            own.add(record.key);
            if (!first) {
              cells.set(record.key, { record, from: dir });
              merged.push(record);
              continue;
            }
            const there = { record: compared(first.record), from: first.from };
            if (
              this.compare(rel, bills, there, { record: compared(record), from: dir }, record.key) === 'none'
            )
              overlaps++;
            else if (paid(record)) merged.push(record);
          }
        }
        this.noteBills(rel, bills);
        this.plan(rel, toJsonl(merged), merged.length, overlaps);
      }
    }
  }

  ledger(): { capUsd: number; warnUsd: number } | null {
    let limits: { capUsd: number; warnUsd: number } | null = null;
    for (const dir of this.sources) {
      const summary = join(dir, LEDGER_SUMMARY);
      if (limits === null && existsSync(summary)) {
        const s = JSON.parse(readFileSync(summary, 'utf8')) as { capUsd?: number; warnUsd?: number };
        if (typeof s.capUsd === 'number' && typeof s.warnUsd === 'number')
          limits = { capUsd: s.capUsd, warnUsd: s.warnUsd };
      }
    }
    this.journalUnion(LEDGER_JOURNAL, LedgerEvent);
    return limits;
  }

  /** The reruns asked of subjects' models (`.reruns.jsonl`): the union of the events, each once. */
  reruns(): void {
    this.journalUnion(RERUNS_JOURNAL, RerunEvent);
  }

  /** A journal at the folder's top: the union of its events over the sources, an event already there once. */
  private journalUnion<T>(name: string, schema: z.ZodType<T>): void {
    const events: T[] = [];
    const seen = new Set<string>();
    let overlaps = 0;
    let any = false;
    for (const dir of this.sources) {
      const file = join(dir, name);
      if (!existsSync(file)) continue;
      any = true;
      for (const event of this.read(file, schema)) {
        const key = canonicalize(event) ?? '';
        if (seen.has(key)) {
          overlaps++;
          continue;
        }
        seen.add(key);
        events.push(event);
      }
    }
    if (any) this.plan(name, toJsonl(events), events.length, overlaps);
  }

  /** `.runs/*.json` and `.batches/*.json`: copied, a different file of the same name is a conflict. */
  copies(sub: string, derived: (name: string) => boolean): void {
    for (const name of this.names(sub, (n) => n.endsWith('.json') && !derived(n))) {
      const rel = join(sub, name);
      let first: { value: unknown; text: string; from: string } | null = null;
      let overlaps = 0;
      for (const dir of this.sources) {
        const file = join(dir, rel);
        if (!existsSync(file)) continue;
        const text = readFileSync(file, 'utf8');
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch (err) {
          throw new RgeError(`not JSON (${(err as Error).message})`, { file });
        }
        // a slice's state is combined after the files are written: check it now
        if (parseSliceFile(name) && !RunState.safeParse(value).success)
          throw new RgeError('not a slice state (a run state file)', { file });
        // a run state made again differs in its start and finish times: the same account of the run
        const one = sub === '.runs' ? sameRunState(first?.value, value) : same(first?.value, value);
        if (!first) first = { value, text, from: dir };
        else if (one) overlaps++;
        else this.conflict(rel, name, first.from, dir);
      }
      if (first) this.plan(rel, first.text, 1, overlaps);
    }
  }

  /** The run ids whose state file is derived from slice files in some source. */
  slicedRuns(): Set<string> {
    const runs = new Set<string>();
    for (const dir of this.sources)
      for (const name of filesIn(join(dir, '.runs'), (n) => n.endsWith('.json'))) {
        const parsed = parseSliceFile(name);
        if (parsed) runs.add(parsed.runId);
      }
    return runs;
  }

  /** `<subject>_<run_id>.jsonl`: one header, rows by cell. Other files at the top are left out, and said so. */
  resultRows(): void {
    for (const name of this.names('.', (n) => !n.startsWith('.'))) {
      if (!name.endsWith('.jsonl')) {
        this.outcome.notes.push(`left out ${name}: not a file rge merges`);
        continue;
      }
      let header: { value: RunHeader; from: string } | null = null;
      const rows = new Map<string, { row: CaseRow; from: string }>();
      const bills: BillNotes = { count: 0, first: null };
      let overlaps = 0;
      for (const dir of this.sources) {
        const file = join(dir, name);
        if (!existsSync(file)) continue;
        const [first, ...rest] = readFileSync(file, 'utf8').split('\n');
        let headerJson: unknown = null;
        try {
          headerJson = JSON.parse(first ?? 'null');
        } catch {
          // reported as not a run header below
        }
        const parsedHeader = RunHeader.safeParse(headerJson);
        if (!parsedHeader.success) throw new RgeError('not a run header', { file, line: 1 });
        const h = parsedHeader.data;
        if (!header) header = { value: h, from: dir };
        else if (
          (['run_id', 'config_hash', 'index_checksum', 'questions_hash'] as const).some(
            (f) => h[f] !== header?.value[f],
          )
        ) {
          this.conflict(name, 'run header', header.from, dir);
          continue;
        }
        const { records, torn } = parseJsonl(rest.join('\n'), file, CaseRow, 2);
        if (torn) this.outcome.notes.push(tornNote(file, torn.bytes));
        for (const row of records) {
          const key = cellKey(row);
          const there = rows.get(key);
          if (!there) {
            rows.set(key, { row, from: dir });
            continue;
          }
          const cell = `${row.subject_id}/${row.question_id}/run ${row.run_index}`;
          const kept = { record: { kind: 'row', record: there.row } as const, from: there.from };
          if (
            this.compare(name, bills, kept, { record: { kind: 'row', record: row }, from: dir }, cell) ===
            'none'
          )
            overlaps++;
        }
      }
      this.noteBills(name, bills);
      if (header)
        this.plan(
          name,
          toJsonl([header.value, ...[...rows.values()].map((r) => r.row)]),
          rows.size,
          overlaps,
        );
    }
  }

  /** Writes every planned file atomically, under the lock of the file. */
  async write(): Promise<void> {
    for (const { file, text } of this.writes) await withFileLock(file, () => writeFileAtomic(file, text));
  }
}

/** Joins results folders into `into` (whose own content, if any, comes first). */
export async function mergeResults(into: string, shards: readonly string[]): Promise<MergeOutcome> {
  for (const dir of shards)
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`no results folder ${dir}`);
  const sources = [...new Set([...(existsSync(into) ? [into] : []), ...shards.map((d) => resolve(d))])];
  const merger = new Merger(into, sources);
  const sliced = merger.slicedRuns();
  merger.cellStores();
  const limits = merger.ledger();
  merger.copies('.runs', (name) => name.endsWith('.json') && sliced.has(basename(name, '.json')));
  merger.copies('.batches', () => false);
  merger.reruns();
  merger.resultRows();
  await merger.write();
  // Derived files: the sliced runs' state from their joined slices, the ledger's summary from its journal.
  for (const runId of sliced)
    for (const count of sliceCountsOf(join(into, '.runs'), runId))
      await combineSliceStates(join(into, '.runs', `${runId}.json`), count);
  if (limits && existsSync(join(into, LEDGER_JOURNAL)))
    await new BudgetLedger(into, { ...limits, configFile: '(the run config)' }).writeSummary();
  return merger.outcome;
}
