/**
 * The JSONL files of a results folder, read and written in one way (every store of the folder uses
 * this module): a record per line, validated by its schema on reading and on writing. A torn last line
 * (a process killed mid-write) is never a record: a writer cuts it off under the lock before it appends,
 * a reader skips it and says so; a line that is not JSON or fails the schema anywhere else is an error
 * naming the file and line.
 *
 * `Journal` is an append-only file that several processes append to under a file lock, each keeping an
 * in-memory view that it brings up to date by reading only the bytes added since it last looked;
 * `parseJsonl` reads a whole text at once (merging folders, a run's published rows).
 */
import { closeSync, fstatSync, ftruncateSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import type { z } from 'zod';
import { RgeError } from '../util/errors.ts';
import { withFileLock } from '../util/lock.ts';

/** One line's record, validated; an error naming the file and line when it is not JSON or not the schema's. */
export function parseRecord<T>(raw: string, schema: z.ZodType<T>, file: string, line: number): T {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (err) {
    throw new RgeError(`not JSON (${(err as Error).message}); the file is damaged`, { file, line });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RgeError(`${issue?.path.join('.') || '(record)'}: ${issue?.message}`, { file, line });
  }
  return parsed.data;
}

/** A JSONL text's records, and a description of its torn last line when it has one. */
export interface JsonlText<T> {
  records: T[];
  /** the bytes after the last newline (a writer killed mid-line), or null */
  torn: { bytes: number; at: number } | null;
  /** the length of the text without its torn last line */
  whole: number;
}

/**
 * The records of a JSONL text (blank lines skipped; `firstLine` numbers its first line in the file); a
 * torn last line is left out and reported, anything else damaged is an error naming the line.
 */
export function parseJsonl<T>(text: string, file: string, schema: z.ZodType<T>, firstLine = 1): JsonlText<T> {
  const whole = text.endsWith('\n') || text === '' ? text.length : text.lastIndexOf('\n') + 1;
  const body = text.slice(0, whole);
  const lines = body.split('\n');
  const torn =
    whole < text.length
      ? { bytes: Buffer.byteLength(text.slice(whole)), at: firstLine + lines.length - 1 }
      : null;
  const records: T[] = [];
  for (const [i, raw] of lines.entries()) {
    if (raw.trim() === '') continue;
    records.push(parseRecord(raw, schema, file, firstLine + i));
  }
  return { records, torn, whole };
}

/** The records of a JSONL text with a per-line key order: JSON.stringify of each record, a newline each. */
export function toJsonl(records: readonly unknown[]): string {
  return records.map((r) => `${JSON.stringify(r)}\n`).join('');
}

/** Where a line is in its file: its first byte and its length in bytes (without the newline). */
export interface LineAt {
  offset: number;
  bytes: number;
}

const CHUNK_BYTES = 1 << 22;

/**
 * Calls `onLine` for each complete line of `file` between byte `from` (a line boundary) and `to` (or the
 * file's end, whichever comes first), reading in chunks of 4 MiB (`chunkBytes`; a line longer than a
 * chunk is read whole); empty lines are skipped. Returns the byte after the last complete line: a torn
 * tail (no newline yet) is left unread.
 */
export function scanLines(
  file: string,
  from: number,
  to: number,
  onLine: (raw: string, offset: number, bytes: number) => void,
  chunkBytes = CHUNK_BYTES,
): number {
  const fd = openSync(file, 'r');
  try {
    let start = from;
    let buf = Buffer.alloc(Math.min(chunkBytes, Math.max(1, to - from)));
    while (start < to) {
      const want = Math.min(buf.length, to - start);
      const read = readFully(fd, buf, want, start);
      const end = read === 0 ? -1 : buf.subarray(0, read).lastIndexOf(0x0a);
      if (end < 0) {
        // only a partial line is left (the end, or the file's end before it)
        if (start + read >= to || read < want) break;
        buf = Buffer.alloc(buf.length * 2); // a line longer than the buffer
        continue;
      }
      let at = 0;
      while (at <= end) {
        const nl = buf.indexOf(0x0a, at);
        if (nl > at) onLine(buf.toString('utf8', at, nl), start + at, nl - at);
        at = nl + 1;
      }
      start += end + 1;
    }
    return start;
  } finally {
    closeSync(fd);
  }
}

function readFully(fd: number, buf: Buffer, want: number, position: number): number {
  let read = 0;
  while (read < want) {
    const n = readSync(fd, buf, read, want - read, position + read);
    if (n === 0) break;
    read += n;
  }
  return read;
}

/** The text of one line at a known place (`LineAt`), read with one positioned read. */
export function readLineAt(file: string, at: LineAt): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(at.bytes);
    const read = readFully(fd, buf, at.bytes, at.offset);
    if (read < at.bytes) throw new RgeError(`a line at byte ${at.offset} is cut short`, { file });
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Closes the descriptor of a `LineFile` that was collected without being closed. */
const unclosed = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

/**
 * One file's lines read at known places, and lines appended to it, through descriptors opened on first
 * use and kept (issue 53: a warm case reads several records, and a descriptor opened and closed for each
 * cost more than the read): closed by `close`, or when the object is collected.
 */
export class LineFile {
  private readFd: number | null = null;
  private appendFd: number | null = null;
  private readonly token = {};

  constructor(readonly file: string) {}

  /** The text of one line at a known place (`LineAt`). */
  read(at: LineAt): string {
    this.readFd ??= this.opened(this.file, 'r');
    const buf = Buffer.alloc(at.bytes);
    const read = readFully(this.readFd, buf, at.bytes, at.offset);
    if (read < at.bytes) throw new RgeError(`a line at byte ${at.offset} is cut short`, { file: this.file });
    return buf.toString('utf8');
  }

  /** Appends text at the file's end (other processes may append too); returns where it starts. */
  append(text: string): number {
    this.appendFd ??= this.opened(this.file, 'a');
    const offset = fstatSync(this.appendFd).size;
    const buf = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < buf.length) written += writeSync(this.appendFd, buf, written);
    return offset;
  }

  close(): void {
    unclosed.unregister(this.token);
    for (const fd of [this.readFd, this.appendFd]) if (fd !== null) closeSync(fd);
    this.readFd = null;
    this.appendFd = null;
  }

  private opened(file: string, flags: 'r' | 'a'): number {
    const fd = openSync(file, flags);
    unclosed.register(this, fd, this.token);
    return fd;
  }
}

export class Journal<T> {
  /** bytes of the file already read into the view (always at a line boundary) */
  private offset = 0;
  private lineNo = 0;
  /** transactions of this process run one at a time, so the file lock is never contended in-process */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly schema: z.ZodType<T>,
    private readonly onRecord: (record: T, line: number, at: LineAt) => void,
  ) {}

  /**
   * Reads the lines appended since the last call (without the lock; a torn tail is left for later), in
   * chunks: a file of any size is read in bounded memory, and each record comes with where its line is
   * (byte offset and length), for a view that keeps locations rather than records.
   */
  catchUp(): void {
    // one stat, no exception when absent: a system subject's cap check catches up before every question
    const size = statSync(this.file, { throwIfNoEntry: false })?.size;
    if (size === undefined) return;
    if (size < this.offset)
      throw new RgeError(`shrank from ${this.offset} to ${size} bytes while in use`, { file: this.file });
    if (size === this.offset) return;
    this.offset = scanLines(this.file, this.offset, size, (raw, at, bytes) => {
      this.lineNo++;
      this.onRecord(this.parse(raw, this.lineNo), this.lineNo, { offset: at, bytes });
    });
  }

  private parse(raw: string, line: number): T {
    return parseRecord(raw, this.schema, this.file, line);
  }

  /**
   * Under the lock: catches up, lets `decide` look at the current view and return the records to
   * append (or throw to append nothing), appends them in one write, and folds them into the view.
   */
  async transact<R>(decide: () => { records: T[]; result: R }): Promise<R> {
    const next = this.queue.then(() => this.locked(decide));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async locked<R>(decide: () => { records: T[]; result: R }): Promise<R> {
    return withFileLock(this.file, () => {
      this.cutTornTail();
      this.catchUp();
      const { records, result } = decide();
      // A record the schema would refuse on reading (e.g. a NaN cost, written as null) is refused here,
      // so the file never holds a line that breaks every later reader.
      for (const r of records) {
        const checked = this.schema.safeParse(JSON.parse(JSON.stringify(r)));
        if (!checked.success)
          throw new RgeError(
            `refused to write an invalid record: ${checked.error.issues[0]?.path.join('.')}: ${checked.error.issues[0]?.message}`,
            { file: this.file },
          );
      }
      if (records.length > 0) {
        const text = toJsonl(records);
        const fd = openSync(this.file, 'a');
        try {
          const buf = Buffer.from(text, 'utf8');
          let written = 0;
          while (written < buf.length) written += writeSync(fd, buf, written);
        } finally {
          closeSync(fd);
        }
        this.catchUp();
      }
      return result;
    });
  }

  /** Appends records under the lock. */
  async append(records: T[]): Promise<void> {
    await this.transact(() => ({ records, result: undefined }));
  }

  /** Cuts a torn last line left by a writer that died mid-write (only ever called under the lock). */
  private cutTornTail(): void {
    const size = statSync(this.file, { throwIfNoEntry: false })?.size ?? 0;
    if (size === 0) return;
    const fd = openSync(this.file, 'r+');
    try {
      const window = Math.min(size, 1 << 20);
      const buf = Buffer.alloc(window);
      readSync(fd, buf, 0, window, size - window);
      if (buf[window - 1] === 0x0a) return;
      const nl = buf.lastIndexOf(0x0a);
      if (nl < 0 && window < size) return; // a line longer than the window: leave it to the parser
      const keep = nl < 0 ? 0 : size - window + nl + 1;
      if (keep < this.offset) return;
      ftruncateSync(fd, keep);
    } finally {
      closeSync(fd);
    }
  }
}
