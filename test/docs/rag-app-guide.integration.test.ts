/**
 * docs/evaluate-your-rag-app.md's commands run on a clean clone: every ```sh block of the page, in
 * order, in one bash session (`set -e`) in a copy of the repository's tracked files made a git
 * repository (as a clone is), with this checkout's node_modules linked in place of `npm ci`; nothing
 * generated (fixtures, dist, reports) is copied. The gate block must report the planted regression
 * (exit 1); the GitHub Actions snippet must parse and name only rge commands and flags that exist.
 * Afterwards `git status` is clean and `biome check .` passes in the clone (what the page's commands
 * wrote is git-ignored, issue 53).
 */
import { spawn } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { childOutput } from '../helpers/child.ts';
import { cleanClone, treeState } from './clean-clone.ts';
import { blocks, root } from './pages.ts';

const PAGE = 'docs/evaluate-your-rag-app.md';

describe(`${PAGE} on a clean clone`, () => {
  let page: string;
  let clone: string;
  let session: { code: number; out: string; err: string };

  beforeAll(async () => {
    page = await readFile(join(root, PAGE), 'utf8');
    clone = await cleanClone('rge-guide-clone-');
    const script = ['set -e', ...blocks(page, 'sh')].join('\n');
    const env: NodeJS.ProcessEnv = { ...process.env, CI: '1' };
    delete env.RGE_TEST_DIR;
    session = await childOutput(
      spawn('bash', ['-c', script], { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
  }, 900_000);

  afterAll(async () => {
    if (clone) await rm(dirname(clone), { recursive: true, force: true });
  });

  it('every command runs (bash -e exits 0)', () => {
    expect(blocks(page, 'sh').length).toBeGreaterThanOrEqual(4);
    expect(session.code, session.out.slice(-3000) + session.err.slice(-3000)).toBe(0);
  });

  it('the module and the HTTP runs score the 200 questions; the golden set is imported and run', () => {
    expect(session.out.match(/^200 cases, 0 reused, \d+ failed \(pass rate/gm)?.length).toBe(3);
    expect(session.out).toMatch(/golden: 12 questions imported to rge-results\/golden\.jsonl/);
    expect(session.out).toMatch(/^12 cases, 0 reused/m);
  });

  it('the gate fails the planted prompt change, naming the new version; the prompt is restored', async () => {
    expect(session.out).toMatch(/\*\*rge gate: REGRESSION\*\* in rag-app \(overall\)/);
    expect(session.out).toMatch(/system rag-app version [0-9a-f]{12} -> [0-9a-f]{12}/);
    expect(session.out).toContain('gate failed: exit 1');
    expect(await readFile(join(clone, 'examples/rag-app/prompt.md'), 'utf8')).toBe(
      await readFile(join(root, 'examples/rag-app/prompt.md'), 'utf8'),
    );
  });

  it("leaves the clone as a user's tree: git status clean, biome check . passing (issue 53)", () => {
    const { status, lint } = treeState(clone);
    expect(status).toEqual([]);
    expect(lint.code, lint.output).toBe(0);
  });

  it('the GitHub Actions snippet parses and its rge commands and flags exist', async () => {
    const [snippet] = blocks(page, 'yaml');
    const workflow = parse(snippet as string) as {
      jobs: Record<string, { steps: { run?: string }[] }>;
    };
    const lines = Object.values(workflow.jobs)
      .flatMap((j) => j.steps.flatMap((s) => (s.run ?? '').split('\n')))
      .map((l) => l.trim())
      .filter((l) => l.startsWith('npx rge '));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) {
      const words = line.split(/\s+/).slice(2);
      const command = words.slice(
        0,
        words.findIndex((w) => w.startsWith('-')),
      );
      const help = await childOutput(
        spawn(process.execPath, ['bin/rge.mjs', ...command, '--help'], { cwd: root }),
      );
      expect(help.code, line).toBe(0);
      for (const flag of words.filter((w) => w.startsWith('--'))) expect(help.out, line).toContain(flag);
    }
  });
  it("the page's evidence figures are the module run's: recall per category and the failing cases by cause", async () => {
    const table = page.slice(page.indexOf('| category | mean evidence recall'));
    const lines = table.split('\n');
    const stated = lines
      .slice(
        2,
        lines.findIndex((l) => !l.startsWith('|')),
      )
      .map((l) =>
        l
          .split('|')
          .slice(1, -1)
          .map((c) => c.trim()),
      );
    expect(stated.map((r) => r[0])).toEqual(['grounded-direct', 'grounded-multihop', 'adversarial']);
    const reports = join(clone, 'rge-reports');
    const [run] = await readdir(reports);
    const summary = JSON.parse(await readFile(join(reports, run as string, 'summary.json'), 'utf8')) as {
      evidence: {
        bySubject: Record<
          string,
          Record<string, { cases: number; meanRecall: number; all: number; none: number }>
        >;
      };
    };
    const rows = (await readFile(join(clone, 'rge-results', `rag-app_${run}.jsonl`), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as CauseRow)
      .filter((r) => r.kind !== 'run');
    for (const [category, recall, all, none, miss, partial, generation] of stated) {
      const cell = summary.evidence.bySubject['rag-app']?.[category as string];
      expect(recall, category).toBe(`${(100 * (cell?.meanRecall ?? Number.NaN)).toFixed(1)}%`);
      expect(all, category).toBe(`${cell?.all} of ${cell?.cases}`);
      expect(none, category).toBe(String(cell?.none));
      const causes = causesOf(rows.filter((r) => r.category === category));
      expect([miss, partial, generation], category).toEqual(
        [causes.miss, causes.partial, causes.generation].map(String),
      );
    }
  });
});

interface CauseRow {
  kind?: string;
  category: string;
  scores: { correctness: number | null; grounding: number | null };
  evidence?: { recall: number | null };
}

/** The failing cases (correctness or grounding below 1.5) by what their passages held. */
function causesOf(rows: readonly CauseRow[]): { miss: number; partial: number; generation: number } {
  const out = { miss: 0, partial: 0, generation: 0 };
  for (const r of rows) {
    const { correctness: c, grounding: g } = r.scores;
    const recall = r.evidence?.recall;
    if (!((c !== null && c < 1.5) || (g !== null && g < 1.5)) || recall === undefined || recall === null)
      continue;
    out[recall === 0 ? 'miss' : recall < 1 ? 'partial' : 'generation']++;
  }
  return out;
}
