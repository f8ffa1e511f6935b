/**
 * The question set over the real reports: what `rge questions author` writes is what is committed, it
 * has the methodology's proportions, and every gold figure traced to XBRL is the figure the facts file
 * read from that filing, element and context.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { loadFacts } from '../../src/fixtures/build.ts';
import { AUTHORING_SEED } from '../../src/questions/authoring.ts';
import { parseQuestionLines } from '../../src/questions/load.ts';
import { goldNotReady } from '../../src/questions/resolve-evidence.ts';
import { Question } from '../../src/questions/schema.ts';
import { validateQuestions } from '../../src/questions/validate.ts';

const root = join(import.meta.dirname, '../..');
const SET = join(root, 'data/questions/questions.jsonl');

async function written() {
  const facts = await loadFacts(join(root, 'fixtures/facts.json'));
  return { facts };
}

describe('the question set over the real reports', () => {
  const committed = readFileSync(SET, 'utf8')
    .trim()
    .split('\n')
    .map((l) => Question.parse(JSON.parse(l)));

  it('has the methodology proportions, unique ids and no typed gold chunk ids', () => {
    const count = (c: string) => committed.filter((q) => q.category === c).length;
    expect([
      count('grounded-direct'),
      count('grounded-multihop'),
      count('adversarial'),
      count('out-of-domain'),
    ]).toEqual([45, 45, 65, 45]);
    expect(new Set(committed.map((q) => q.id)).size).toBe(200);
    expect(committed.every((q) => q.gold_chunk_ids.length === 0 && (q.resolved_on ?? null) === null)).toBe(
      true,
    );
    expect(committed.every((q) => q.authoring_notes.includes(`seed ${AUTHORING_SEED}`))).toBe(true);
  });

  it('is what `rge questions author` writes from the facts file (deterministic), and --check says so', async () => {
    const run = async (args: string[], cwd: string) => {
      const out: string[] = [];
      const io: CliIO = { out: (t) => out.push(t), err: (t) => out.push(t), cwd, exitCode: 0 };
      return { code: await main(['node', 'rge', 'questions', 'author', ...args], io), out: out.join('') };
    };
    const checked = await run(['--check'], root);
    expect(checked.out, 'run `rge questions author`').toMatch(/is up to date/);
    expect(checked.code).toBe(0);
    // a changed facts file changes the set, and --check exits 1
    const dir = await mkdtemp(join(tmpdir(), 'rge-author-'));
    const { facts } = await written();
    const first = facts.numeric.findIndex((f) => f.source.kind === 'xbrl');
    const bumped = {
      ...facts,
      numeric: facts.numeric.map((f, i) => (i === first ? { ...f, value: f.value + 1 } : f)),
    };
    await writeFile(join(dir, 'facts.json'), JSON.stringify(bumped));
    const differs = await run(
      [
        '--check',
        '--facts',
        join(dir, 'facts.json'),
        '--untraced',
        join(root, 'data/questions/untraced-figures.json'),
        '--out',
        SET,
      ],
      root,
    );
    expect(differs.out).toMatch(/differs from what would be written/);
    expect(differs.code).toBe(1);
  });

  it('traces every XBRL gold figure to the filing, element and context the facts file read it from', async () => {
    const { facts } = await written();
    const filed = new Set(
      facts.numeric.flatMap((f) =>
        f.source.kind === 'xbrl'
          ? [`${f.source.filing}|${f.source.concept}|${f.source.context}|${f.source.reported}`]
          : [],
      ),
    );
    const traced = committed.filter((q) => q.gold_source?.kind === 'xbrl');
    expect(traced.length).toBeGreaterThan(140);
    for (const q of traced)
      for (const f of q.gold_source?.kind === 'xbrl' ? q.gold_source.facts : [])
        expect(filed.has(`${f.filing}|${f.element}|${f.context}|${f.reported}`), q.id).toBe(true);
    // a direct or adversarial question's gold is its evidence figure, in the same unit
    const single = committed.filter(
      (x) =>
        (x.category === 'grounded-direct' || x.category === 'adversarial') && x.gold_source?.kind === 'xbrl',
    );
    expect(single.length).toBeGreaterThan(100);
    for (const q of single) {
      const e = q.gold_evidence?.[0];
      expect(e?.kind).toBe('figure');
      if (e?.kind === 'figure') {
        expect(q.numeric_gold[0]?.value, q.id).toBe(e.value);
        expect(q.numeric_gold[0]?.unit, q.id).toBe(e.unit);
      }
    }
    const untracedQs = committed.filter((q) => q.gold_source?.kind === 'untraced');
    expect(untracedQs.map((q) => q.companies[0]).sort()).toEqual([
      'nykaa',
      'nykaa',
      'ola-electric',
      'ola-electric',
      'paytm',
      'paytm',
    ]);
  });

  it('counts traceability, and a set resolved on another index is refused with the command that fixes it', () => {
    const lines = parseQuestionLines(readFileSync(SET, 'utf8'));
    const report = validateQuestions(lines, { chunks: null });
    expect(report.issues).toEqual([]);
    expect(report.traceability).toEqual({ xbrl: 149, untraced: 6, absent: 45, unstated: 0, unresolved: 155 });
    expect(goldNotReady(committed, 'a'.repeat(64))[0]).toMatch(/^155 question\(s\) unresolved/);
    const moved = committed.map((q) => (q.gold_evidence ? { ...q, resolved_on: 'b'.repeat(64) } : q));
    expect(goldNotReady(moved, 'a'.repeat(64))).toEqual([
      expect.stringMatching(/^155 question\(s\) resolved on another index than aaaaaaaaaaaa/),
    ]);
    const movedLines = parseQuestionLines(
      `${moved.map((q) => JSON.stringify({ ...q, gold_chunk_ids: q.gold_evidence ? ['x-FY24-00000000'] : [] })).join('\n')}\n`,
    );
    const refused = validateQuestions(movedLines, { chunks: [], indexChecksum: 'a'.repeat(64) });
    expect(refused.issues.find((i) => i.field === 'resolved_on')?.message).toMatch(
      /resolved on index bbbbbbbbbbbb, but the index is aaaaaaaaaaaa: run `rge questions resolve/,
    );
  });

  it('refuses gold evidence without resolved_on, and chunk ids on an unresolved question', () => {
    const q = committed.find((x) => x.category === 'grounded-direct');
    expect(q).toBeDefined();
    const { resolved_on: _r, ...noResolved } = q as Question;
    expect(Question.safeParse(noResolved).success).toBe(false);
    expect(Question.safeParse({ ...q, gold_chunk_ids: ['reliance-FY24-00000000'] }).success).toBe(false);
    expect(Question.safeParse({ ...q, resolved_on: 'c'.repeat(64) }).success).toBe(false);
  });
});

describe('the untraced figures file', () => {
  it('is refused with the file and the field when malformed', async () => {
    const { parseUntracedFigures } = await import('../../src/questions/authoring.ts');
    expect(() => parseUntracedFigures('{', 'u.json')).toThrow(/^u\.json: not JSON/);
    expect(() =>
      parseUntracedFigures(
        '{"note":"x","figures":[{"company":"a","fy":"2024","metric":"revenue_from_operations","value":1}]}',
        'u.json',
      ),
    ).toThrow(/^u\.json: figures\.0\.fy: Invalid string/);
    const ok = parseUntracedFigures(
      '{"note":"x","figures":[{"company":"a","fy":"FY24","metric":"revenue_from_operations","value":1}]}',
      'u.json',
    );
    expect(ok).toEqual([
      expect.objectContaining({
        company: 'a',
        fy: 'FY24',
        value: 1,
        reason: expect.stringMatching(/^no XBRL/),
      }),
    ]);
  });
});
