import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ResultsStore, type RunHeader, resultsFile } from '../../src/store/rows.ts';

const Row = z.object({
  question_id: z.string(),
  subject_id: z.string(),
  run_index: z.number(),
  prompt_hash: z.string(),
  answer: z.string(),
});
type Row = z.infer<typeof Row>;

const header: RunHeader = {
  kind: 'run',
  run_id: 'fixture-abc',
  subject_id: 'extractive',
  seed: 's',
  config_hash: 'c',
  index_checksum: 'i',
  questions_hash: 'q',
  created_at: '2026-11-30T00:00:00Z',
};
const row = (q: string, run: number, answer = 'a'): Row => ({
  question_id: q,
  subject_id: 'extractive',
  run_index: run,
  prompt_hash: 'p',
  answer,
});

async function freshFile(): Promise<string> {
  return resultsFile(await mkdtemp(join(tmpdir(), 'rge-results-')), 'extractive', 'fixture-abc');
}

describe('ResultsStore', () => {
  it('writes the run header, then one line per case, and reuses stored cells on reopening', async () => {
    const file = await freshFile();
    const store = ResultsStore.open(file, header, Row);
    store.put(row('gd-001', 0));
    store.put(row('gd-001', 1));
    store.put(row('gd-001', 1, 'again')); // same cell: not written twice
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0] as string).kind).toBe('run');

    const reopened = ResultsStore.open(file, header, Row);
    expect(reopened.size).toBe(2);
    expect(reopened.get(row('gd-001', 1))?.answer).toBe('a');
    expect(reopened.get({ ...row('gd-001', 1), prompt_hash: 'changed' })).toBeUndefined();
    expect(reopened.get(row('gd-001', 2))).toBeUndefined();
  });

  it('cuts off and reports a torn last line, then appends cleanly', async () => {
    const file = await freshFile();
    const store = ResultsStore.open(file, header, Row);
    store.put(row('gd-001', 0));
    appendFileSync(file, '{"question_id":"gd-002","subj'); // a crash mid-write
    const reopened = ResultsStore.open(file, header, Row);
    expect(reopened.tornLine).toMatch(/:3: ignored a torn last line \(\d+ bytes/);
    expect(reopened.size).toBe(1);
    reopened.put(row('gd-002', 0));
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).question_id ?? 'header')).toEqual(['header', 'gd-001', 'gd-002']);
  });

  it('refuses a file of another run and names a damaged line', async () => {
    const file = await freshFile();
    ResultsStore.open(file, header, Row).put(row('gd-001', 0));
    expect(() => ResultsStore.open(file, { ...header, index_checksum: 'other' }, Row)).toThrow(
      /:1: index_checksum i differs from this run's other/,
    );
    writeFileSync(file, `${JSON.stringify(header)}\n{"question_id": 3}\n`);
    expect(() => ResultsStore.open(file, header, Row)).toThrow(/:2: question_id/);
  });

  it('starts again when the crash tore the header itself', async () => {
    const file = await freshFile();
    writeFileSync(file, '{"kind":"ru');
    const store = ResultsStore.open(file, header, Row);
    expect(store.tornLine).toMatch(/torn/);
    store.put(row('gd-001', 0));
    expect(ResultsStore.open(file, header, Row).size).toBe(1);
  });
});
