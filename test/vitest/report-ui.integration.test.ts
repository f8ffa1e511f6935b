/**
 * vitest-evals on an rge run, end to end: a small eval (3 questions, 1 run) as `npx vitest run evals`
 * runs it, in temporary results and reports folders, writes the rge report AND vitest-evals' JSON artifact
 * beside it, whose cases carry the panel's scores (0-1, the same numbers as rge's rows) and the
 * subject's run (the stored answer); `vitest-evals serve` serves it on a free 127.0.0.1 port: the page
 * answers 200, its data names the run's cases, and (with Debian's chromium) the rendered page lists
 * them. Then the server is stopped.
 *
 * (Named without "evals" in its path: `npx vitest run evals` is a path filter, and a unit test whose path
 * matched it would join the eval run, and this one would run itself again.)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, ROOT, spawnVitest } from '../ci/vitest-child.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';

const CHROMIUM = '/usr/bin/chromium';

/** The fixture questions' gold answers by id. */
const GOLD = new Map(
  readFileSync(join(ROOT, 'fixtures/questions.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; gold_answer: string })
    .map((q) => [q.id, q.gold_answer.trim()]),
);
const hasChromium = existsSync(CHROMIUM);

interface Assertion {
  fullName: string;
  status: string;
  meta: {
    rge?: unknown;
    eval?: { scores: { name: string; score: number | null }[]; avgScore: number; thresholdFailed: boolean };
    harness?: { name: string; run: { output: string; usage: { inputTokens?: number } } };
  };
}

interface Row {
  subject_id: string;
  question_id: string;
  run_index: number;
  answer: string;
  verdicts: { judgeId: string; verdict: { correctness: { score: number } } | null }[];
  scores: { gfsPrimary: number | null };
}

/** Starts `vitest-evals serve FILE` on a free loopback port; resolves with its URL once it listens. */
function serve(file: string): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['node_modules/vitest-evals/bin/vitest-evals.js', 'serve', file, '--host', '127.0.0.1', '--port', '0'],
      { cwd: ROOT, env: childEnv({}), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let text = '';
    const timer = setTimeout(() => reject(new Error(`vitest-evals serve did not start:\n${text}`)), 30_000);
    const onData = (d: Buffer) => {
      text += d;
      const url = /report UI: (http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ url, child, output: () => text });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('close', (code) => reject(new Error(`vitest-evals serve exited (${code}):\n${text}`)));
  });
}

describe('vitest-evals reporting an rge run', () => {
  let dir: string;
  let report: string;
  let artifact: string;
  let assertions: Assertion[];
  let rows: Row[];
  let server: Awaited<ReturnType<typeof serve>> | undefined;
  let output: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-report-ui-'));
    const results = join(dir, 'results');
    const outcome = await spawnVitest(['run', 'evals', '--project', 'evals'], {
      RGE_RESULTS_DIR: results,
      RGE_REPORTS_DIR: join(dir, 'reports'),
      RGE_QUESTIONS: '3',
      RGE_RUNS: '1',
      RGE_SET: JSON.stringify(await worldOverrides()),
    });
    expect(outcome.code, outcome.out + outcome.err).toBe(0);
    output = outcome.out;
    report = /report written to (\S+summary\.md)/.exec(outcome.out)?.[1] as string;
    artifact = /JSON artifact written to (\S+vitest-evals\.json)/.exec(outcome.out)?.[1] as string;
    const json = JSON.parse(readFileSync(artifact, 'utf8')) as {
      testResults: { assertionResults: Assertion[] }[];
    };
    assertions = json.testResults.flatMap((f) => f.assertionResults).filter((a) => a.status !== 'skipped');
    rows = readdirSync(results)
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) => readFileSync(join(results, f), 'utf8').trim().split('\n').slice(1))
      .map((line) => JSON.parse(line) as Row);
  }, 300_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      const closed = new Promise((resolve) => server?.child.once('close', resolve));
      server.child.kill('SIGTERM');
      await closed;
    }
  });

  it('writes the rge report and, beside it, the JSON artifact with every case', () => {
    expect(existsSync(report)).toBe(true);
    expect(join(artifact, '..')).toBe(join(report, '..'));
    // 3 questions x 2 subjects x 1 run, named <subject> <category> › <question> › run <n>
    expect(assertions.map((a) => a.fullName).sort()).toEqual(
      ['eager', 'extractive'].flatMap((s) =>
        ['gd-001', 'gd-002', 'gd-003'].map((q) => `${s} grounded-direct › ${q} › run 0`),
      ),
    );
    expect(rows).toHaveLength(6);
  });

  it('says a line per file and the summary under CI, nothing per passed case (issue 53)', () => {
    const lines = output.split('\n');
    expect(lines.filter((l) => / › run \d|^\s+score\s/.test(l))).toEqual([]);
    // 3 questions fall in slices 1 to 3; slice 4 holds its placeholder, skipped
    expect(lines.filter((l) => /evals\/grounding-\d\.eval\.ts \(\d tests?/.test(l))).toHaveLength(4);
    expect(output).toMatch(/Tests\s+6 passed \| 1 skipped \(7\)/);
    // the artifact and the report said once each
    expect(lines.filter((l) => l.includes('vitest-evals.json (view it'))).toHaveLength(1);
    expect(lines.filter((l) => /report written to .*summary\.md/.test(l))).toHaveLength(1);
  });

  it('carries the subject as a harness (the stored answer) and the panel as judges (rge scores on 0-1)', () => {
    for (const a of assertions) {
      expect(a.meta.rge, 'rge rows stay in the results store and the rge report').toBeUndefined();
      const [subject, rest] = a.fullName.split(' grounded-direct › ') as [string, string];
      const question = rest.split(' › ')[0] as string;
      const row = rows.find((r) => r.subject_id === subject && r.question_id === question) as Row;
      expect(a.meta.harness?.name).toMatch(new RegExp(`^${subject} \\(offline/${subject}\\)$`));
      expect(a.meta.harness?.run.output).toBe(row.answer);
      expect(a.meta.harness?.run.usage.inputTokens).toBeGreaterThan(0);
      const scores = a.meta.eval?.scores ?? [];
      // the fixture's judges are named after their models (judge id numeric: provider heuristic/numeric)
      const judge = (v: Row['verdicts'][number]) => v.judgeId.split('/')[1] as string;
      expect(scores.map((s) => s.name)).toEqual([
        ...row.verdicts.flatMap((v) =>
          ['correctness', 'grounding', 'calibration'].map((d) => `${judge(v)} ${d}`),
        ),
        'GFS',
      ]);
      for (const v of row.verdicts)
        expect(scores.find((s) => s.name === `${judge(v)} correctness`)?.score).toBe(
          (v.verdict?.correctness.score ?? Number.NaN) / 2,
        );
      expect(scores.at(-1)?.score).toBe(row.scores.gfsPrimary);
      // the case's headline score is its GFS, and the metadata says the fixture config gates nothing
      expect(a.meta.eval?.avgScore).toBe(row.scores.gfsPrimary);
      const gfs = scores.at(-1) as { metadata?: { gating?: string; gated?: boolean; rationale?: string } };
      expect(gfs.metadata?.gating).toMatch(/^not gated/);
      expect(a.meta.eval?.thresholdFailed).toBe(false); // the panel records; rge's matchers gate
      // an ungated case is passed with its scores recorded, as vitest-evals records a judge of threshold
      // null (issue 53: `disabled` read as DISABLED, skipped); the GFS row says that no threshold gates
      // it, with the gold to read against
      expect(a.status).toBe('passed');
      expect(gfs.metadata?.gated).toBe(false);
      const gold = GOLD.get(question) as string;
      expect(gfs.metadata?.rationale).toContain(', recorded, not gated (every threshold is null);');
      expect(gfs.metadata?.rationale).toContain(`Gold answer: ${gold}`);
    }
  });

  it("serves the artifact with `vitest-evals serve` on a free loopback port, naming the run's cases", async () => {
    server = await serve(artifact);
    // the two lines come on different streams: the URL may arrive first
    const output = (server as { output: () => string }).output;
    await expect.poll(output, { timeout: 10_000 }).toMatch(/Loaded 6 eval case\(s\) from 1 result file\(s\)/);
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toMatch(/<div id="root">|<script/);
    // the page's data: the cases by name, with their scores
    const data = (await (await fetch(`${server.url}/data/workspace.json`)).json()) as {
      cases: { displayName: string; status: string; eval?: { scores: unknown[] } }[];
      runs: { totals: { evalPassed: number; evalFailed: number } }[];
    };
    expect(data.cases.map((c) => c.displayName).sort()).toEqual(
      assertions.map((a) => a.fullName.replace(' grounded-direct', ' > grounded-direct')).sort(),
    );
    expect(data.cases.every((c) => (c.eval?.scores.length ?? 0) === 7)).toBe(true);
    // the cases ran and their scores are recorded: passed, none skipped
    expect(data.cases.map((c) => c.status)).toEqual(data.cases.map(() => 'passed'));
    expect(data.runs.map((r) => [r.totals.evalPassed, r.totals.evalFailed])).toEqual([[6, 0]]);
  }, 60_000);

  it.skipIf(!hasChromium)(
    `lists the cases on the rendered page${hasChromium ? '' : ` (skipped: ${CHROMIUM} is absent)`}`,
    async () => {
      if (!server) server = await serve(artifact);
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
      });
      try {
        const page = await browser.newPage();
        await page.goto(server.url);
        await page.waitForFunction("document.body.textContent.includes('gd-003')", null, { timeout: 30_000 });
        const text = (await page.textContent('body')) ?? '';
        for (const a of assertions)
          expect(text).toContain(a.fullName.split(' grounded-direct ')[1] as string);
        expect(text).toMatch(/extractive > grounded-direct › gd-001 › run 0/);
        // the outcome mix: the cases ran (issue 53: "0 passed, 0 failed, 6 skipped", each DISABLED)
        const verdict = (await page.locator('section[aria-label="Report summary"]').textContent()) ?? '';
        expect(verdict).toMatch(/6 passed0 failed0 skipped/);
        expect(verdict).not.toMatch(/disabled/i);
        // a case: its GFS row says it is recorded, not gated, and gives the gold answer
        await page.getByText('extractive > grounded-direct › gd-001 › run 0').first().click();
        await page.waitForFunction("document.body.textContent.includes('Gold answer:')", null, {
          timeout: 30_000,
        });
        const detail = (await page.textContent('body')) ?? '';
        expect(detail).toContain('recorded, not gated (every threshold is null)');
        expect(detail).toContain(`Gold answer: ${GOLD.get('gd-001')}`);
        await page.screenshot({ path: join(dir, 'vitest-evals-case.png') });
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
