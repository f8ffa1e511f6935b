/**
 * What a user's runs write leaves the tree clean and `npm test` passing (issue 53). Following the README
 * and the guides wrote rge-reports/, rge-results/, my-baseline.json, rge-baseline.json, blob-reports/,
 * data/labels/ and server.out, which were neither git-ignored nor left out of the linter: `git status`
 * showed them and `biome check .` (npm test's lint) failed, on every gfs.svg among them
 * (lint/a11y/noSvgWithoutTitle).
 *
 * Every path a shell block of README.md or docs/ writes (whatever its marker: a user runs the examples
 * too) is read from its flags (`--results-dir`, `--reports-dir`, `--index`, `--into`, `--to`, `--out`,
 * `--json FILE`, `--outputFile...=`, `> FILE`), and with what rge writes where no flag says (the results
 * and reports folders, the labels, the fixture world, the cache) written into a copy of the tree as a run
 * writes it: a report with its summary.json and gfs.svg, the cell stores, a baseline. Then `git status`
 * is clean and `biome check .` passes. A chart kept in a linted folder passes biome too (its <title>).
 * What the real commands leave is checked by the integration tests that run them
 * (test/docs/shell-blocks.integration.test.ts and rag-app-guide.integration.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gfsChartSvg } from '../../src/report/chart-svg.ts';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { summarise } from '../../src/report/summary.ts';
import type { CaseRowView } from '../../src/report/views.ts';
import { cleanClone, treeState } from './clean-clone.ts';
import { docPages, fences, root } from './pages.ts';

/** A folder flag's value: a folder a command fills. */
const FOLDER_FLAG = /--(results-dir|reports-dir|index|into)[ =]("[^"]*"|[^\s;&|)]+)/g;
/** A file flag's value, or a redirection's target: a file a command writes. */
const FILE_FLAG = /(?:--(?:to|out|json)[ =]|--outputFile(?:\.\w+)?=|(?<=\s)>\s*)("[^"]*"|[^\s;&|)]+)/g;

/** What rge writes where no flag names a place (its defaults), as folders and files. */
const DEFAULTS = {
  reports: ['reports'],
  results: ['data/results'],
  files: [
    'data/labels/samples/fixture-sample.json',
    'data/labels/labels-fixture-sample.jsonl',
    'data/labels/reviews.jsonl',
    'fixtures/generated/pdfs/reliance-FY24.pdf',
    'fixtures/generated/index/chunks.json',
    '.cache/rge/embeddings/use-lite.jsonl',
  ],
};

/** A place a block names, as a path from the root, or null for one outside the tree or a placeholder. */
function place(raw: string): string | null {
  const path = raw.replace(/^"|"$/g, '').replace(/<[^>]+>/g, 'x');
  if (path.startsWith('/') || path.startsWith('../') || path.includes('$') || /^[A-Z_]+$/.test(path))
    return null;
  return path.replace(/^\.\//, '').replace(/\/$/, '');
}

/** Every folder and file the shell blocks of README.md and docs/ name as an output. */
function guideOutputs(): { folders: Map<string, string>; files: Set<string> } {
  const folders = new Map<string, string>();
  const files = new Set<string>();
  for (const page of docPages())
    for (const f of fences(readFileSync(join(root, page), 'utf8'))) {
      if (f.lang !== 'sh') continue;
      // the commands without their comments ("# ... kappa >= 0.75" is no redirection)
      const body = f.body.replace(/(^|\s)#.*$/gm, '');
      for (const m of body.matchAll(FOLDER_FLAG)) {
        const path = place(m[2] as string);
        if (path) folders.set(path, m[1] as string);
      }
      for (const m of body.matchAll(FILE_FLAG)) {
        const path = place(m[1] as string);
        if (path) files.add(path);
      }
    }
  return { folders, files };
}

/** A small summary as the reporter makes it (two subjects, two categories). */
function summary() {
  const rows: CaseRowView[] = [];
  for (const subject of ['extractive', 'eager'])
    for (let q = 0; q < 6; q++) {
      const score = (q + subject.length) % 3;
      rows.push({
        question_id: `q-${q}`,
        category: q % 2 === 0 ? 'grounded-direct' : 'adversarial',
        subject_id: subject,
        model: subject,
        run_index: 0,
        subject_prompt_hash: 'sp',
        judge_prompt_hash: 'jp',
        latency_ms: 10,
        cost_usd: 0,
        verdicts: [],
        scores: {
          correctness: score,
          grounding: score,
          calibration: score,
          gfsPrimary: score / 2,
          gfsEqual: score / 2,
          unscored: false,
          contested: false,
          contestedDimensions: [],
        },
        checks: {},
      });
    }
  const run = { runId: 'fixture-0123456789ab', configHash: 'c', indexChecksum: 'i', questionsHash: 'q' };
  return summarise(rows, { seed: 's', resamples: 100, run });
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

describe("what the guides' commands write, in a copy of the tree", () => {
  const outputs = guideOutputs();
  const s = summary();
  let clone = '';
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(clone, path)), { recursive: true });
    writeFileSync(join(clone, path), text);
  };
  const tracked = new Set(
    execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean),
  );

  beforeAll(async () => {
    clone = await cleanClone('rge-guide-outputs-');
  }, 60_000);
  afterAll(() => {
    if (clone) rmSync(dirname(clone), { recursive: true, force: true });
  });

  it('finds the outputs a new user met (the reading of the blocks is not blind)', () => {
    const all = [...outputs.folders.keys(), ...outputs.files];
    for (const known of [
      'rge-reports',
      'rge-reports-http',
      'rge-results',
      'rge-results/golden.jsonl',
      'my-baseline.json',
      'rge-baseline.json',
      'server.out',
      'reports/cases.json',
      'reports/ci-baseline.json',
    ])
      expect(all).toContain(known);
    expect(all.some((p) => p.startsWith('blob-reports/'))).toBe(true);
  });

  it('leaves `git status` clean and `biome check .` passing; a chart kept in a linted folder passes too', () => {
    const report = (dir: string) => {
      const at = join(dir, s.run.runId);
      write(join(at, 'summary.json'), json(s));
      write(join(at, 'summary.md'), renderMarkdown(s, { chartFile: 'gfs.svg' }));
      write(join(at, 'gfs.svg'), gfsChartSvg(s));
      write(join(at, 'vitest-evals.json'), json({ testResults: [] }));
    };
    const results = (dir: string) => {
      write(join(dir, 'cells/answers/extractive.jsonl'), `${JSON.stringify({ key: 'k', answer: 'a' })}\n`);
      write(join(dir, '.budget_ledger.jsonl'), `${JSON.stringify({ kind: 'cap', usd: 0 })}\n`);
      write(join(dir, '.runs', `${s.run.runId}.json`), json({ runId: s.run.runId }));
    };
    for (const dir of DEFAULTS.reports) report(dir);
    for (const dir of DEFAULTS.results) results(dir);
    for (const [dir, flag] of outputs.folders) {
      if (flag === 'reports-dir') report(dir);
      else if (flag === 'index') write(join(dir, 'chunks.json'), json([]));
      else results(dir);
    }
    for (const file of [...DEFAULTS.files, ...outputs.files]) {
      // a tracked file a command rewrites (`rge baseline update` promotes reports/baseline.json) is meant to change
      if (tracked.has(file)) continue;
      if (file.endsWith('.svg')) write(file, gfsChartSvg(s));
      else if (file.endsWith('.json')) write(file, json(s));
      else if (file.endsWith('.jsonl')) write(file, `${JSON.stringify({ id: 'q-0' })}\n`);
      else write(file, 'listening on http://127.0.0.1:40000\n');
    }
    // a chart a user keeps beside their docs, where biome looks
    write('docs/charts/gfs.svg', gfsChartSvg(s));

    // the clone keeps the files' modes (npx would chmod a bin that lost its x bit: a change in git status)
    expect(execFileSync('git', ['ls-files', '-s', 'bin/rge.mjs'], { cwd: clone, encoding: 'utf8' })).toMatch(
      /^100755 /,
    );
    const { status, lint } = treeState(clone);
    expect(status).toEqual(['?? docs/charts/gfs.svg']);
    expect(lint.code, lint.output).toBe(0);
    expect(lint.output).toMatch(/Checked \d+ files/);
  }, 60_000);
});
