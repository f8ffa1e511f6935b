/**
 * `rge questions resolve` on gold evidence, end to end: the real set resolved on the fixture world's
 * index (built from the same XBRL facts) gets chunk ids, gold quotes and the index checksum; what it
 * cannot resolve (the untraced figures, synthetic there) is listed with the nearest candidates, exit 1.
 * The validator then accepts the resolved gold on that index; `rge eval run` refuses the unresolved
 * questions outside a dry run, naming the command that fixes it.
 */
import { copyFile, mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { Question } from '../../src/questions/schema.ts';
import { readIndexManifest } from '../../src/retrieval/store.ts';
import { worldOverrides, worldPaths } from '../helpers/fixture-world.ts';

const root = join(import.meta.dirname, '../..');

async function rge(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { out: (t) => out.push(t), err: (t) => err.push(t), cwd: root, exitCode: 0 };
  const code = await main(['node', 'rge', ...args], io);
  return { code, out: out.join(''), err: err.join('') };
}

describe('rge questions resolve on gold evidence', () => {
  let file: string;
  let index: string;
  beforeAll(async () => {
    await worldOverrides('bm25');
    index = worldPaths('bm25').index;
    file = join(await mkdtemp(join(tmpdir(), 'rge-resolve-')), 'questions.jsonl');
    await copyFile(join(root, 'data/questions/questions.jsonl'), file);
  }, 600_000);

  it('resolves what the index prints, lists the rest with candidates, and records the checksum', async () => {
    const r = await rge([
      'questions',
      'resolve',
      '--config',
      'configs/fixture.yaml',
      '--index',
      index,
      '--questions',
      file,
      '--write',
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^200 questions, 149 with changed gold, 6 unresolved \(index [0-9a-f]{12}\)/);
    // each unresolved question: where, what was sought, the nearest chunks and why each was not taken
    expect(r.err.match(/questions\.jsonl:\d+: gd-00\d: gold_evidence:/g)).toHaveLength(6);
    expect(r.err).toMatch(
      /not found: "Revenue from operations" 2630\.93 INR crore \(consolidated, full-year\) in ola-electric FY23/,
    );
    expect(r.err).toMatch(
      /ola-electric-FY23-[0-9a-f]{8} \(pages \d+-\d+\): prints "Revenue from operations" but not the figure/,
    );
    const checksum = (await readIndexManifest(index))?.checksum;
    const written = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => Question.parse(JSON.parse(l)));
    const resolved = written.filter((q) => q.resolved_on);
    expect(resolved).toHaveLength(149);
    expect(resolved.every((q) => q.resolved_on === checksum && q.gold_chunk_ids.length > 0)).toBe(true);
    expect(resolved.every((q) => q.gold_quotes.length === q.gold_evidence?.length)).toBe(true);
    expect(
      written.filter((q) => q.gold_source?.kind === 'untraced').every((q) => q.resolved_on === null),
    ).toBe(true);

    // the validator checks the written gold against the index it was resolved on
    const v = await rge(['questions', 'validate', '--questions', file, '--index', index]);
    expect(v.out).toMatch(/gold traced to XBRL 149, untraced 6, out-of-domain 45, unstated 0; unresolved 6/);
    expect(v.code).toBe(0);

    // a run outside --dry-run refuses the 6 unresolved questions and says how to fix it
    const set = [
      ...worldPaths('bm25').overrides.filter((o) => !o.startsWith('questions.file=')),
      `questions.file=${file}`,
    ];
    const run = await rge([
      'eval',
      'run',
      '--config',
      'configs/fixture.yaml',
      ...set.flatMap((o) => ['--set', o]),
      '--questions',
      '200',
    ]);
    expect(run.code).not.toBe(0);
    expect(run.err).toMatch(/gold not resolved on this index: 6 question\(s\) unresolved \(gd-001, gd-002/);
    expect(run.err).toMatch(/rge questions resolve --config .*fixture\.yaml --write/);
    // --write rewrites the question file: the message says so and gives the way that keeps it
    expect(run.err).toContain(`which rewrites ${relative(root, file)}`);
    expect(run.err).toMatch(
      /resolve a copy \(`cp .* COPY && rge questions resolve --questions COPY --index .* --write`\)/,
    );
  }, 600_000);
});
