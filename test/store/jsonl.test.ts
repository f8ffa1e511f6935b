import { spawn } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Journal } from '../../src/store/jsonl.ts';
import { RgeError } from '../../src/util/errors.ts';
import { LOCK_STALE_MS, withFileLock } from '../../src/util/lock.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

const Rec = z.strictObject({ n: z.number().int(), who: z.string() });
type Rec = z.infer<typeof Rec>;

/** A journal with its view: every record folded in, with its line number. */
function open(file: string): { journal: Journal<Rec>; view: Rec[]; lines: number[] } {
  const view: Rec[] = [];
  const lines: number[] = [];
  const journal = new Journal(file, Rec, (r, line) => {
    view.push(r);
    lines.push(line);
  });
  return { journal, view, lines };
}

const fileRecords = (file: string): Rec[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => Rec.parse(JSON.parse(l)));

let work: string;
let seq = 0;
const fresh = (): string => join(work, `j${seq++}`, 'journal.jsonl');

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rge-journal-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('Journal', () => {
  it('catchUp on a file that does not exist yet is a no-op', () => {
    const a = open(fresh());
    a.journal.catchUp();
    expect(a.view).toEqual([]);
  });

  it("two instances on one file see each other's appends after catchUp", async () => {
    const file = fresh();
    const a = open(file);
    const b = open(file);
    await a.journal.append([{ n: 1, who: 'a' }]);
    expect(a.view).toEqual([{ n: 1, who: 'a' }]); // the writer folds its own records in
    expect(b.view).toEqual([]); // b has not looked yet
    b.journal.catchUp();
    expect(b.view).toEqual([{ n: 1, who: 'a' }]);
    await b.journal.append([
      { n: 2, who: 'b' },
      { n: 3, who: 'b' },
    ]);
    a.journal.catchUp();
    a.journal.catchUp(); // a second look reads nothing twice
    expect(a.view).toEqual([
      { n: 1, who: 'a' },
      { n: 2, who: 'b' },
      { n: 3, who: 'b' },
    ]);
    expect(a.lines).toEqual([1, 2, 3]);
    expect(b.view).toEqual(a.view);
  });

  it('a torn last line is ignored by catchUp and cut by the next append, which writes a clean line', async () => {
    const file = fresh();
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, '{"n":0,"who":"x"}\n{"n":1,"wh');
    const a = open(file);
    a.journal.catchUp();
    expect(a.view).toEqual([{ n: 0, who: 'x' }]);
    await a.journal.append([{ n: 2, who: 'a' }]);
    expect(readFileSync(file, 'utf8')).toBe('{"n":0,"who":"x"}\n{"n":2,"who":"a"}\n');
    expect(a.view).toEqual([
      { n: 0, who: 'x' },
      { n: 2, who: 'a' },
    ]);
    expect(a.lines).toEqual([1, 2]);
    // a reader that started from nothing agrees
    const b = open(file);
    b.journal.catchUp();
    expect(b.view).toEqual(a.view);
  });

  it('a file that is only a torn line is emptied before the first append', async () => {
    const file = fresh();
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, '{"n":9');
    const a = open(file);
    a.journal.catchUp();
    expect(a.view).toEqual([]);
    await a.journal.append([{ n: 0, who: 'a' }]);
    expect(readFileSync(file, 'utf8')).toBe('{"n":0,"who":"a"}\n');
  });

  it('a line that is not JSON in the middle is an RgeError naming file:line', () => {
    const file = fresh();
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, '{"n":0,"who":"x"}\nnot json\n{"n":2,"who":"x"}\n');
    let err: unknown;
    try {
      open(file).journal.catchUp();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RgeError);
    expect((err as RgeError).file).toBe(file);
    expect((err as RgeError).line).toBe(2);
    expect((err as Error).message).toMatch(
      new RegExp(`^${escapeRegExp(file)}:2: not JSON .*the file is damaged`),
    );
  });

  it('a line that fails the schema is an RgeError naming file:line and the field', () => {
    const file = fresh();
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, '{"n":0,"who":"x"}\n{"n":1,"who":"x"}\n{"n":"two","who":"x"}\n');
    expect(() => open(file).journal.catchUp()).toThrow(new RegExp(`^${escapeRegExp(file)}:3: n: `));
  });

  it('transact runs the concurrent calls of one process one at a time: no lost update', async () => {
    const file = fresh();
    const a = open(file);
    const seen = await Promise.all(
      Array.from({ length: 50 }, () =>
        a.journal.transact(() => {
          const size = a.view.length;
          return { records: [{ n: size, who: 'a' }], result: size };
        }),
      ),
    );
    const expected = Array.from({ length: 50 }, (_, i) => i);
    expect(seen).toEqual(expected);
    expect(fileRecords(file).map((r) => r.n)).toEqual(expected);
  });

  it('a transaction that throws appends nothing and does not block the next', async () => {
    const file = fresh();
    const a = open(file);
    await expect(
      a.journal.transact(() => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await a.journal.append([{ n: 0, who: 'a' }]);
    expect(fileRecords(file)).toEqual([{ n: 0, who: 'a' }]);
  });

  it('transactions of three processes are serialised by the file lock: 300 records, counters 0..299', async () => {
    const file = fresh();
    mkdirSync(join(file, '..'), { recursive: true });
    const journalUrl = new URL('../../src/store/jsonl.ts', import.meta.url).href;
    const script = `
      const { Journal } = await import(${JSON.stringify(journalUrl)});
      // the parent checks every line against Rec; the children need no zod (a faster start)
      const anything = { safeParse: (data) => ({ success: true, data }) };
      let size = 0;
      const j = new Journal(process.env.RGE_TEST_JOURNAL, anything, () => { size++; });
      // start together: announce, then wait for the other two
      const { readdirSync, writeFileSync } = await import('node:fs');
      writeFileSync(process.env.RGE_TEST_JOURNAL + '.ready-' + process.env.RGE_TEST_WHO, '');
      const dir = process.env.RGE_TEST_JOURNAL.replace(/[^/]*$/, '');
      const until = Date.now() + 20000;
      while (readdirSync(dir).filter((f) => f.includes('.ready-')).length < 3 && Date.now() < until)
        await new Promise((r) => setTimeout(r, 2));
      for (let i = 0; i < 100; i++)
        await j.transact(() => ({ records: [{ n: size, who: process.env.RGE_TEST_WHO }], result: undefined }));
    `;
    const run = (who: string) =>
      new Promise<{ code: number | null; err: string }>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
          cwd: root,
          env: { ...process.env, RGE_TEST_JOURNAL: file, RGE_TEST_WHO: who },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let err = '';
        child.stderr.on('data', (d: Buffer) => {
          err += d.toString();
        });
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, err }));
      });
    const outcomes = await Promise.all(['p1', 'p2', 'p3'].map(run));
    for (const o of outcomes) expect(o.code, o.err).toBe(0);
    const records = fileRecords(file);
    expect(records).toHaveLength(300);
    // each record holds the number of records before it: no two processes ever decided on the same view
    expect(records.map((r) => r.n)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    for (const who of ['p1', 'p2', 'p3']) expect(records.filter((r) => r.who === who)).toHaveLength(100);
    // and they really ran at the same time: the writer changes more often than the 2 times of a relay
    const switches = records.filter((r, i) => i > 0 && r.who !== records[i - 1]?.who).length;
    expect(switches).toBeGreaterThan(2);
    expect(existsSync(`${file}.lock`)).toBe(false); // every lock was released
  }, 60_000);
});

describe('Journal refuses what it could not read back', () => {
  it('a NaN (written as null) is refused before it reaches the file', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'rge-journal-nan-')), 'j.jsonl');
    const Rec = z.strictObject({ n: z.number() });
    await expect(new Journal(file, Rec, () => {}).append([{ n: Number.NaN }])).rejects.toThrow(
      /refused to write an invalid record: n:/,
    );
    expect(() => new Journal(file, Rec, () => {}).catchUp()).not.toThrow();
  });
});

describe('withFileLock', () => {
  it('waits for a lock another holder has and runs once it is released', async () => {
    const file = fresh();
    mkdirSync(`${file}.lock`, { recursive: true }); // as proper-lockfile makes it: a folder beside the file
    const order: string[] = [];
    setTimeout(() => {
      order.push('released');
      rmdirSync(`${file}.lock`); // as the holder's release does
    }, 100);
    const result = await withFileLock(file, () => {
      order.push('ran');
      return 42;
    });
    expect(result).toBe(42);
    expect(order).toEqual(['released', 'ran']);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('takes over a lock left by a killed holder once it is stale', async () => {
    const file = fresh();
    mkdirSync(`${file}.lock`, { recursive: true });
    const past = (Date.now() - 2 * LOCK_STALE_MS) / 1000;
    utimesSync(`${file}.lock`, past, past);
    const started = Date.now();
    expect(await withFileLock(file, () => 'ok')).toBe('ok');
    expect(Date.now() - started).toBeLessThan(LOCK_STALE_MS);
  });

  it('an error thrown inside releases the lock', async () => {
    const file = fresh();
    await expect(
      withFileLock(file, () => {
        throw new Error('inside');
      }),
    ).rejects.toThrow('inside');
    expect(existsSync(`${file}.lock`)).toBe(false);
    appendFileSync(file, '');
    expect(await withFileLock(file, () => 'again')).toBe('again');
  });
});

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
