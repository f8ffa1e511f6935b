/**
 * An append-only JSONL file that several processes append to under a file lock, each keeping an
 * in-memory view that it brings up to date by reading only the bytes added since it last looked.
 * A torn last line (a process killed mid-write) is cut off by the next writer, under the lock, before
 * it appends; a reader that is not holding the lock ignores it. A line that is not JSON or fails the
 * schema anywhere else is an error naming the file and line.
 */
import { closeSync, existsSync, ftruncateSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import type { z } from 'zod';
import { RgeError } from './errors.ts';
import { withFileLock } from './lock.ts';

export class Journal<T> {
  /** bytes of the file already read into the view (always at a line boundary) */
  private offset = 0;
  private lineNo = 0;
  /** transactions of this process run one at a time, so the file lock is never contended in-process */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly schema: z.ZodType<T>,
    private readonly onRecord: (record: T, line: number) => void,
  ) {}

  /** Reads the lines appended since the last call (without the lock; a torn tail is left for later). */
  catchUp(): void {
    if (!existsSync(this.file)) return;
    const size = statSync(this.file).size;
    if (size < this.offset)
      throw new RgeError(`shrank from ${this.offset} to ${size} bytes while in use`, { file: this.file });
    if (size === this.offset) return;
    const fd = openSync(this.file, 'r');
    try {
      const buf = Buffer.alloc(size - this.offset);
      let read = 0;
      while (read < buf.length) {
        const n = readSync(fd, buf, read, buf.length - read, this.offset + read);
        if (n === 0) break;
        read += n;
      }
      const end = buf.lastIndexOf(0x0a, read - 1);
      if (end < 0) return; // only a partial line so far
      const text = buf.subarray(0, end + 1).toString('utf8');
      for (const raw of text.split('\n')) {
        if (raw === '') continue;
        this.lineNo++;
        this.onRecord(this.parse(raw, this.lineNo), this.lineNo);
      }
      this.offset += end + 1;
    } finally {
      closeSync(fd);
    }
  }

  private parse(raw: string, line: number): T {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (err) {
      throw new RgeError(`not JSON (${(err as Error).message}); the file is damaged`, {
        file: this.file,
        line,
      });
    }
    const parsed = this.schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new RgeError(`${issue?.path.join('.') || '(record)'}: ${issue?.message}`, {
        file: this.file,
        line,
      });
    }
    return parsed.data;
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
        const text = records.map((r) => `${JSON.stringify(r)}\n`).join('');
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
    if (!existsSync(this.file)) return;
    const size = statSync(this.file).size;
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
