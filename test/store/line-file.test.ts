/**
 * `LineFile` (src/store/jsonl.ts): one file's lines read at known places and appended to through
 * descriptors it keeps (issue 53: a warm case reads several records; a descriptor opened and closed for
 * each read cost more than the read). It reads every line at its place through one descriptor, appends
 * at the file's end whoever else appended, and a line cut short is an error naming the file.
 */
import { appendFileSync, existsSync, readdirSync, readlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LineAt, LineFile, scanLines } from '../../src/store/jsonl.ts';
import { RgeError } from '../../src/util/errors.ts';

/** The descriptors of this process open on `file` (Linux: /proc/self/fd). */
function descriptorsOn(file: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === file) n++;
    } catch {
      // closed while listed (the listing's own descriptor)
    }
  }
  return n;
}

/** Where each line of `file` is, as a store's index keeps it. */
function placesOf(file: string): (LineAt & { raw: string })[] {
  const places: (LineAt & { raw: string })[] = [];
  scanLines(file, 0, Number.MAX_SAFE_INTEGER, (raw, offset, bytes) => places.push({ raw, offset, bytes }));
  return places;
}

describe('LineFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-line-file-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(!existsSync('/proc/self/fd'))(
    'reads every line at its place through one descriptor, kept until closed',
    () => {
      const file = join(dir, 'read.jsonl');
      // lines of several lengths, multi-byte characters among them (a place is in bytes)
      const texts = Array.from({ length: 60 }, (_, i) => JSON.stringify({ i, text: 'é漢😀'.repeat(i % 7) }));
      writeFileSync(file, texts.map((t) => `${t}\n`).join(''));
      const places = placesOf(file);
      expect(places.map((p) => p.raw)).toEqual(texts);
      const lines = new LineFile(file);
      expect(descriptorsOn(file)).toBe(0);
      // in an order other than the file's, each line twice
      for (const p of [...places].reverse().concat(places)) expect(lines.read(p)).toBe(p.raw);
      expect(descriptorsOn(file)).toBe(1);
      lines.close();
      expect(descriptorsOn(file)).toBe(0);
      // a closed LineFile opens the file again when asked
      expect(lines.read(places[3] as LineAt)).toBe(texts[3]);
      expect(descriptorsOn(file)).toBe(1);
      lines.close();
    },
  );

  it('appends at the end of the file and says where each append starts, when others append too', () => {
    const file = join(dir, 'append.jsonl');
    writeFileSync(file, '{"header":true}\n');
    const lines = new LineFile(file);
    const mine: { at: number; text: string }[] = [];
    for (let i = 0; i < 20; i++) {
      const text = JSON.stringify({ i, who: 'line-file', pad: 'x'.repeat(i * 3) });
      mine.push({ at: lines.append(`${text}\n`), text });
      // another writer (another store on the file, another process) appends by path in between
      if (i % 3 === 0) appendFileSync(file, `${JSON.stringify({ i, who: 'other' })}\n`);
    }
    const places = placesOf(file);
    expect(places).toHaveLength(1 + 20 + 7);
    for (const { at, text } of mine) {
      const place = places.find((p) => p.offset === at);
      expect(place?.raw).toBe(text);
      expect(lines.read({ offset: at, bytes: Buffer.byteLength(text) })).toBe(text);
    }
    // the others' lines are where they were written: each one right after one of mine
    const others = places.filter((p) => p.raw.includes('"other"'));
    expect(others.map((p) => JSON.parse(p.raw).i)).toEqual([0, 3, 6, 9, 12, 15, 18]);
    lines.close();
  });

  it('a line cut short (the file shorter than its place) is an RgeError naming the file', () => {
    const file = join(dir, 'short.jsonl');
    writeFileSync(file, '{"a":1}\n{"b":22222}\n');
    const lines = new LineFile(file);
    const [, second] = placesOf(file);
    expect(lines.read(second as LineAt)).toBe('{"b":22222}');
    truncateSync(file, 12);
    let thrown: unknown;
    try {
      lines.read(second as LineAt);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(RgeError);
    expect((thrown as RgeError).file).toBe(file);
    expect((thrown as RgeError).message).toContain(file);
    expect((thrown as RgeError).message).toContain(`byte ${second?.offset} is cut short`);
    lines.close();
  });

  it('a file that is not there is an error on first use, not when the LineFile is made', () => {
    const file = join(dir, 'absent.jsonl');
    const lines = new LineFile(file);
    expect(() => lines.read({ offset: 0, bytes: 1 })).toThrow(/ENOENT/);
    lines.close();
  });
});
