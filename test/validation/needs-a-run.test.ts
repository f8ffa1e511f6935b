/**
 * The human-validation commands of docs/review-and-label.md on a fresh clone: with no run of the config (its index not
 * built), each says what to run first, names the config and exits 1, writing nothing.
 */
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

const root = join(import.meta.dirname, '../..');

describe('rge validation sample and rge validation review without a run of the config', () => {
  for (const args of [
    ['validation', 'sample'],
    ['validation', 'review', '--reviewer', 'ana'],
  ])
    it(`rge ${args.slice(0, 2).join(' ')} says what to run first`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'rge-needs-run-'));
      const err: string[] = [];
      const io: CliIO = { out: () => {}, err: (t) => err.push(t), cwd: root, exitCode: 0 };
      const code = await main(
        [
          'node',
          'rge',
          ...args,
          '--config',
          'configs/published.yaml',
          '--results-dir',
          join(dir, 'results'),
          '--set',
          `corpus.index=${join(dir, 'no-index')}`,
        ],
        io,
      );
      expect(code).toBe(1);
      expect(err.join('')).toMatch(
        /^rge: configs\/published\.yaml: no run of configs\/published\.yaml to read: its index \(.*no-index\) is not built; run `rge corpus fetch`, `rge corpus ingest --config configs\/published\.yaml` and `rge eval run --config configs\/published\.yaml` first/,
      );
      expect(await readdir(dir)).toEqual([]);
    });
});

describe('the documented commands that need the real index, on a fresh clone', () => {
  const cases: [string, string[], (dir: string) => string[]][] = [
    [
      'rge eval run (a small sync run)',
      [
        'eval',
        'run',
        '--config',
        'configs/published.yaml',
        '--mode',
        'sync',
        '--questions',
        '1',
        '--runs',
        '1',
      ],
      (dir) => ['--results-dir', join(dir, 'results'), '--set', `corpus.index=${join(dir, 'no-index')}`],
    ],
    [
      'rge questions resolve',
      ['questions', 'resolve', '--config', 'configs/published.yaml'],
      (dir) => ['--index', join(dir, 'no-index')],
    ],
  ];
  for (const [what, args, extra] of cases)
    it(`${what} says to fetch and ingest first, naming the config`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'rge-needs-index-'));
      const err: string[] = [];
      const io: CliIO = { out: () => {}, err: (t) => err.push(t), cwd: root, exitCode: 0 };
      expect(await main(['node', 'rge', ...args, ...extra(dir)], io)).toBe(1);
      expect(err.join('')).toMatch(
        /no index at .*no-index; build it first: `rge corpus fetch` \(the PDFs data\/corpus\/pdfs pinned in .*sources\.yaml\), then `rge corpus ingest --config configs\/published\.yaml`/,
      );
      expect(await readdir(dir)).toEqual([]);
    });
});
