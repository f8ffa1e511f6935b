/**
 * The stores keep where each record is, not the record (issue 41): the chunked line reader gives every
 * line whole with its byte place, whatever the chunk size and however many bytes its characters take;
 * a cell store answers from the file by location (records appended by another process included), and
 * holds a bounded number of parsed records.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CallCharge } from '../../src/providers/types.ts';
import { CellStore } from '../../src/store/cells.ts';
import { readLineAt, scanLines } from '../../src/store/jsonl.ts';

const tmp = () => mkdtemp(join(tmpdir(), 'rge-located-'));

describe('scanLines', () => {
  it('gives each line whole with its byte offset, at any chunk size, across multi-byte characters', async () => {
    const file = join(await tmp(), 'lines.jsonl');
    const lines = ['{"a":"₹ crore"}', '', '{"b":"x"}', `{"c":"${'é'.repeat(40)}"}`, '{"d":"€"}'];
    writeFileSync(file, `${lines.join('\n')}\n{"torn":`);
    const whole = Buffer.byteLength(`${lines.join('\n')}\n`);
    for (const chunk of [1, 3, 7, 16, 1 << 22]) {
      const seen: { raw: string; offset: number; bytes: number }[] = [];
      const end = scanLines(
        file,
        0,
        whole + 8,
        (raw, offset, bytes) => seen.push({ raw, offset, bytes }),
        chunk,
      );
      expect(end, `chunk ${chunk}`).toBe(whole);
      expect(seen.map((s) => s.raw)).toEqual(lines.filter((l) => l !== ''));
      for (const s of seen) expect(readLineAt(file, s)).toBe(s.raw);
    }
  });

  it('reads from an offset at a line boundary to the last complete line', async () => {
    const file = join(await tmp(), 'lines.jsonl');
    writeFileSync(file, '{"n":1}\n{"n":2}\n{"n":3}\n');
    const seen: string[] = [];
    expect(scanLines(file, 8, 24, (raw) => seen.push(raw), 5)).toBe(24);
    expect(seen).toEqual(['{"n":2}', '{"n":3}']);
    // past the file's end: to the last complete line, and no further
    const all: string[] = [];
    expect(scanLines(file, 0, Number.MAX_SAFE_INTEGER, (raw) => all.push(raw), 4)).toBe(24);
    expect(all).toHaveLength(3);
  });
});

const Rec = z.strictObject({
  key: z.string(),
  text: z.string(),
  charges: z.array(CallCharge),
});
type Rec = z.infer<typeof Rec>;

const rec = (i: number, reservation?: string): Rec => ({
  key: `k${i}`,
  text: `answer ${i} ${'·'.repeat(i % 7)}`,
  charges: reservation ? [{ key: `c${i}`, usd: 0.01, reservation }] : [],
});

describe('a cell store by location', () => {
  it('answers every key from the file by location, the first record of a key winning', async () => {
    const file = join(await tmp(), 'answers.jsonl');
    const n = 2_000;
    const lines: string[] = [];
    for (let i = 0; i < n; i++) lines.push(JSON.stringify(rec(i, i === 1_500 ? 'r-1500' : undefined)));
    lines.push(JSON.stringify({ ...rec(7), text: 'a later duplicate' }));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const store = new CellStore(file, Rec);
    expect(store.size).toBe(n);
    expect(store.duplicates).toBe(1);
    for (const i of [0, 7, 999, 1_999])
      expect(store.get(`k${i}`)).toEqual(rec(i, i === 1_500 ? 'r-1500' : undefined));
    expect(store.get('k7')?.text).toBe('answer 7 ');
    expect(store.has('k1999')).toBe(true);
    expect(store.has('nope')).toBe(false);
    expect(store.byCharge('r-1500')?.key).toBe('k1500');
    expect(store.records()).toHaveLength(n);
    expect(
      store
        .allRecords()
        .map((r) => r.text)
        .at(-1),
    ).toBe('a later duplicate');
    // what another process appends is found after a refresh
    appendFileSync(file, `${JSON.stringify(rec(n))}\n`);
    expect(store.has(`k${n}`)).toBe(false);
    store.refresh();
    expect(store.get(`k${n}`)).toEqual(rec(n));
  });

  it('stores a record and reads it back by location', async () => {
    const dir = await tmp();
    const store = new CellStore(join(dir, 'verdicts.jsonl'), Rec);
    await store.put(rec(1));
    expect(await store.put({ ...rec(1), text: 'second' })).toEqual(rec(1));
    const again = new CellStore(join(dir, 'verdicts.jsonl'), Rec);
    expect(again.get('k1')).toEqual(rec(1));
    expect(again.size).toBe(1);
  });

  it('names the file and line of a record that breaks the schema', async () => {
    const file = join(await tmp(), 'bad.jsonl');
    writeFileSync(file, `${JSON.stringify(rec(1))}\n{"key":"k2","text":3,"charges":[]}\n`);
    expect(() => new CellStore(file, Rec)).toThrow(/bad\.jsonl.*2|line 2/);
  });
});
