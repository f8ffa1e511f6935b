/**
 * Gold evidence resolved, never typed: a figure pattern (line label and figure, in any printed form)
 * finds the chunks that print it; what it cannot find is listed with the nearest candidates. On the
 * fixture world (PDFs written from the same XBRL facts as the real set) every XBRL-traced question the
 * fixture reports print resolves; the untraced ones (synthetic there) must not.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Chunk } from '../../src/corpus/schema.ts';
import { describeUnresolved, resolveEvidence } from '../../src/questions/resolve-evidence.ts';
import { type GoldEvidence, Question } from '../../src/questions/schema.ts';
import { worldOverrides, worldPaths } from '../helpers/fixture-world.ts';

const root = join(import.meta.dirname, '../..');

const chunk = (id: string, text: string, heading: string | null = null): Chunk => ({
  id: `acme-FY24-${id}`,
  company: 'acme',
  fy: 'FY24',
  source: 'acme.pdf',
  heading,
  pages: [3, 3],
  tokens: 100,
  text,
});

const revenue: GoldEvidence = {
  kind: 'figure',
  company: 'acme',
  fy: 'FY24',
  label: 'Revenue from operations',
  aliases: [],
  value: 26710.56,
  unit: 'INR crore',
  statement: 'consolidated',
  period: 'full-year',
};

describe('resolveEvidence', () => {
  it('takes the chunk that prints the label and the figure on one line, with that line as the quote', () => {
    const chunks = [
      chunk(
        '00000001',
        'Consolidated Statement of Profit and Loss (₹ in crore)\nRevenue from operations 26,710.56 24,180.10\nOther income 120.00',
      ),
      chunk('00000002', 'Highlights\nThe year closed with revenue of 26,710.56 and a strong order book.'),
      chunk('00000003', 'Revenue from operations grew on the back of volumes.'),
    ];
    const [r] = resolveEvidence([{ id: 'gd-001', gold_evidence: [revenue] }], chunks);
    expect(r?.goldChunkIds).toEqual(['acme-FY24-00000001']);
    expect(r?.quotes).toEqual(['Revenue from operations 26,710.56 24,180.10']);
    expect(r?.unresolved).toEqual([]);
  });

  it('lists an unresolved pattern with the chunks that print the figure or the label, and why', () => {
    const chunks = [
      chunk('00000002', 'Highlights\nThe year closed with revenue of 26,710.56 and a strong order book.'),
      chunk('00000003', 'Revenue from operations grew on the back of volumes to 25,000.00.'),
    ];
    const [r] = resolveEvidence([{ id: 'gd-001', gold_evidence: [revenue] }], chunks);
    expect(r?.goldChunkIds).toEqual([]);
    const text = describeUnresolved(r?.unresolved[0] as never);
    expect(text).toContain('not found: "Revenue from operations" 26710.56 INR crore');
    expect(text).toMatch(/acme-FY24-00000002 \(pages 3-3\): prints 26,710\.56 .* but not the label/);
    expect(text).toMatch(
      /acme-FY24-00000003 \(pages 3-3\): prints "Revenue from operations" but not the figure/,
    );
  });

  it('looks only in the report of the pattern’s company and year', () => {
    const other = { ...chunk('00000009', 'Revenue from operations 26,710.56'), fy: 'FY23' as const };
    const [r] = resolveEvidence([{ id: 'gd-001', gold_evidence: [revenue] }], [other]);
    expect(r?.goldChunkIds).toEqual([]);
    expect(r?.unresolved).toHaveLength(1);
  });
});

describe('the real set resolved on the fixture world', () => {
  let chunks: Chunk[];
  beforeAll(async () => {
    await worldOverrides('bm25');
    chunks = JSON.parse(await readFile(join(worldPaths('bm25').index, 'chunks.json'), 'utf8')) as Chunk[];
  }, 600_000);

  it('resolves the XBRL-traced questions the fixture reports print, and no untraced one', () => {
    const set = readFileSync(join(root, 'data/questions/questions.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => Question.parse(JSON.parse(l)))
      .filter((q) => q.category !== 'out-of-domain');
    const results = resolveEvidence(set, chunks);
    const resolved = (_q: Question, i: number) =>
      (results[i]?.unresolved.length ?? 1) === 0 && (results[i]?.goldChunkIds.length ?? 0) > 0;
    const traced = set
      .map((q, i) => [q, resolved(q, i)] as const)
      .filter(([q]) => q.gold_source?.kind === 'xbrl');
    const missed = traced.filter(([, ok]) => !ok).map(([q]) => q.id);
    console.log(
      `fixture world: ${traced.length - missed.length}/${traced.length} XBRL-traced questions resolved`,
    );
    expect(missed).toEqual([]);
    const untraced = set
      .map((q, i) => [q, resolved(q, i)] as const)
      .filter(([q]) => q.gold_source?.kind === 'untraced');
    expect(untraced.length).toBe(6);
    expect(untraced.filter(([, ok]) => ok)).toEqual([]);
  }, 120_000);
});
