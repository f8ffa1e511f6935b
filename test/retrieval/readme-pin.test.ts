/**
 * The README pins the fixture index checksum, as the methodology asks of the published index (section
 * 9): the index this test run builds from fixtures/facts.json must have exactly that checksum.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { openIndex, verifyIndex } from '../../src/retrieval/index.ts';
import { worldOverrides, worldPaths } from '../helpers/fixture-world.ts';

describe('the README pins the fixture index checksum', () => {
  it('equals the checksum of the fixture index built from fixtures/facts.json (bm25, 800/100)', async () => {
    await worldOverrides('bm25');
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    const pinned = /^\| fixture index \(`configs\/fixture\.yaml`.*\| `([0-9a-f]{64})` \|$/m.exec(readme)?.[1];
    expect(pinned, 'the README has no pinned fixture index checksum').toMatch(/^[0-9a-f]{64}$/);
    const { index } = worldPaths('bm25');
    expect((await openIndex(index)).checksum).toBe(pinned);
    expect((await verifyIndex(index)).ok).toBe(true);
  });
});
