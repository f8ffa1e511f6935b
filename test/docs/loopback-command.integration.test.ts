/**
 * The loopback command the docs give for trying the live path without keys (issue 39, defect 2), run
 * as a user would on a clean clone: a copy of the repository's tracked files made a git repository,
 * with this checkout's node_modules linked in place of `npm ci`, nothing generated copied. One shell:
 * `test/loopback/serve.ts -- COMMAND` starts the three fake providers and runs the published config
 * against them on the fixture world. It must exit 0, write its report, and leave every tracked file as
 * it was (`git status` clean: what it writes is ignored), its spend in a results folder of its own.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childOutput } from '../helpers/child.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The command as the docs give it (the lead copies it verbatim into the docs). */
const LOOPBACK_COMMAND = `npx tsx test/loopback/serve.ts -- npx rge eval run --config configs/published.yaml \\
  --questions 3 --runs 2 --mode batch --results-dir data/loopback/results --reports-dir data/loopback/reports \\
  --set corpus.generated_from=fixtures/facts.json --set corpus.pdfs=fixtures/generated/pdfs \\
  --set corpus.index=fixtures/generated/index --set corpus.embedder=bm25 \\
  --set questions.file=fixtures/questions.jsonl --set batch.poll_interval_ms=200 \\
  --set thresholds.correctness=null --set thresholds.grounding=null \\
  --set thresholds.calibration=null --set thresholds.gfs=null`;

/** A copy of the tracked files (the working tree's versions, with their modes), a git repository of its own. */
async function cleanClone(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'rge-loopback-clone-'));
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  for (const file of files) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), await readFile(join(root, file)));
    // with its mode, as a clone has it (bin/rge.mjs is executable; npx would otherwise chmod it)
    await chmod(join(dir, file), (await stat(join(root, file))).mode);
  }
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.email=loopback@rge.test', '-c', 'user.name=loopback', 'commit', '-qm', 'clone');
  return dir;
}

function bash(script: string, cwd: string): Promise<{ code: number; out: string; err: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: '1' };
  for (const name of [
    'RGE_TEST_DIR',
    'ANTHROPIC_API_KEY',
    'OPENAI_API_KEY',
    'GEMINI_API_KEY',
    'GOOGLE_API_KEY',
  ])
    delete env[name];
  return childOutput(spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

describe('the loopback command on a clean clone', () => {
  let clone: string;
  let session: { code: number; out: string; err: string };

  beforeAll(async () => {
    clone = await cleanClone();
    session = await bash(`set -e\n${LOOPBACK_COMMAND}`, clone);
  }, 600_000);

  afterAll(async () => {
    if (clone) await rm(clone, { recursive: true, force: true });
  });

  it('exits 0 with every case scored and a report', async () => {
    expect(session.code, session.out.slice(-3000) + session.err.slice(-3000)).toBe(0);
    // 3 questions x 2 runs x 3 subjects, each judged by the two judges of the other families
    expect(session.out).toMatch(/^18 cases, 0 reused, 0 failed .*answers computed 18, verdicts computed 36/m);
    const reports = await readdir(join(clone, 'data/loopback/reports'));
    expect(reports).toHaveLength(1);
    const summary = await readFile(
      join(clone, 'data/loopback/reports', reports[0] as string, 'summary.md'),
      'utf8',
    );
    expect(summary).toContain('claude-sonnet-4-6');
  });

  it('leaves every tracked file as it was, and writes nothing git does not ignore', () => {
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
      cwd: clone,
      encoding: 'utf8',
    });
    expect(status).toBe('');
  });

  it("books its spend in a results folder of its own (the user's data/results is not touched)", async () => {
    expect(session.out).toMatch(/the ledger of data\/loopback\/results: \$\d+\.\d{4} spent/);
    await expect(readdir(join(clone, 'data/results'))).rejects.toThrow(/ENOENT/);
  });

  it("keeps the fixture config's index: a fixture run afterwards uses it without a rebuild", async () => {
    const manifest = JSON.parse(
      await readFile(join(clone, 'fixtures/generated/index/manifest.json'), 'utf8'),
    );
    expect(manifest.embedder.name).toBe('bm25');
    const fixture = await bash(
      'npx rge eval run --config configs/fixture.yaml --questions 1 --runs 1 --dry-run',
      clone,
    );
    expect(fixture.code, fixture.err).toBe(0);
    expect(fixture.err + fixture.out).not.toMatch(/rebuilding|building the/);
  });

  it('the command the README gave before (use-lite on the fixture index) stops before touching the index', async () => {
    const manifestFile = join(clone, 'fixtures/generated/index/manifest.json');
    const before = await readFile(manifestFile, 'utf8');
    const old = await bash(
      LOOPBACK_COMMAND.replace('corpus.embedder=bm25', 'corpus.embedder=use-lite'),
      clone,
    );
    expect(old.code).toBe(1);
    expect(old.err).toContain(
      'rge: the index at fixtures/generated/index was built with other settings than this run asks (embedder: index bm25, config use-lite); a run does not replace an index built for another config, so nothing was changed.',
    );
    expect(old.err).toContain('--set corpus.index=fixtures/generated/index-use-lite');
    expect(await readFile(manifestFile, 'utf8')).toBe(before);
  });

  it("serve.ts -- COMMAND exits with the command's exit code", async () => {
    const failing = await bash('npx tsx test/loopback/serve.ts -- node -e "process.exit(3)"', clone);
    expect(failing.code).toBe(3);
    const keys = await bash(
      'npx tsx test/loopback/serve.ts -- node -e "console.log(process.env.OPENAI_BASE_URL, process.env.GOOGLE_API_KEY)"',
      clone,
    );
    expect(keys.code, keys.err).toBe(0);
    expect(keys.out).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1 undefined$/m);
  });
});
