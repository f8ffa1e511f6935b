import { createHash } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonArrayPieces } from '../../src/retrieval/build.ts';
import { writeFileAtomic } from '../../src/util/fs.ts';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

describe('jsonArrayPieces: an index file written in pieces', () => {
  const items = Array.from({ length: 700 }, (_, i) => ({
    id: `acme-FY24-${i}`,
    text: `₹ ${i} crore "quoted" \\ ${'x'.repeat(3000)}`,
    pages: [i, i + 1],
  }));

  for (const [name, list] of [
    ['empty', []],
    ['one item', items.slice(0, 1)],
    ['700 items, over 2 MB: several pieces', items],
  ] as const)
    it(`gives JSON.stringify's bytes and digest (${name})`, async () => {
      const hash = createHash('sha256');
      const pieces = [...jsonArrayPieces(list, hash)];
      const whole = `${JSON.stringify(list)}\n`;
      expect(pieces.join('')).toBe(whole);
      expect(hash.digest('hex')).toBe(sha(whole));
      if (list.length === 700) expect(pieces.length).toBeGreaterThan(2);
      const file = join(await mkdtemp(join(tmpdir(), 'rge-pieces-')), 'chunks.json');
      await writeFileAtomic(file, jsonArrayPieces(list, createHash('sha256')));
      expect(await readFile(file, 'utf8')).toBe(whole);
    });
});
