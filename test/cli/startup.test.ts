/**
 * Start-up (issue 12, docs/adr/0012-cli-start-up.md): `rge --version` and `rge --help` load no heavy
 * module (TensorFlow.js, transformers.js, pdf.js, the provider SDKs, Vitest, pdfkit); each command
 * imports what it uses when its action runs. How fast that is is measured in bench/startup.bench.ts.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { buildDist } from '../../scripts/build-dist.mjs';
import { DEFAULTS as CORPUS_DEFAULTS } from '../../src/cli/corpus.ts';
import { FIXTURE_DEFAULTS } from '../../src/cli/fixtures-build.ts';
import { HELP_CONSTANTS } from '../../src/cli/judge-commands.ts';
import { VALIDATION_SIZE as HELP_VALIDATION_SIZE } from '../../src/cli/labelling-commands.ts';
import { buildProgram, main } from '../../src/cli/main.ts';
import { SYNTHETIC_SEED } from '../../src/fixtures/synthetic.ts';
import { DEFAULT_MIN_EFFECT } from '../../src/gate/gate.ts';
import { JUDGE_PROMPT_VERSION, JUDGE_PROMPT_VERSIONS } from '../../src/judging/prompt.ts';
import { DEFAULT_CACHE_DIR } from '../../src/run/config/corpus-index.ts';
import { AGREEMENT_FORMATS } from '../../src/validation/index.ts';
import { VALIDATION_SIZE } from '../../src/validation/sample.ts';
import { captureIO } from '../helpers/cli.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECORDER = fileURLToPath(new URL('./record-loads.mjs', import.meta.url));

/** Package names (or path pieces) that `--version` and `--help` must not load. */
const HEAVY = [
  '@tensorflow',
  '@energetic-ai',
  '@huggingface/transformers',
  'onnxruntime',
  'pdf-parse',
  'pdfjs',
  'openai',
  '@anthropic-ai/sdk',
  '@google/genai',
  'vitest',
  'pdfkit',
];

let tmp: string;
/** A bundle built for these tests, inside the repository (where node_modules resolves), not dist/. */
const DIST = join(ROOT, '.tmp', `test-dist-${process.pid}`);
/** No bundle: bin/rge.mjs runs the sources through tsx. */
let noDist: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'rge-startup-'));
  noDist = join(tmp, 'no-dist');
  await mkdir(noDist);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
  await rm(DIST, { recursive: true, force: true });
});

/** Runs `node bin/rge.mjs ARGS` with the module recorder; returns its exit code, stdout and what it loaded. */
async function loadsOf(
  name: string,
  args: readonly string[],
  distDir = noDist,
): Promise<{ code: number; out: string; loaded: string[] }> {
  const file = join(tmp, `${name}.txt`);
  const { code, out } = await new Promise<{ code: number; out: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', RECORDER, 'bin/rge.mjs', ...args], {
      cwd: ROOT,
      env: { ...process.env, RGE_RECORD_LOADS: file, RGE_DIST_DIR: distDir },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let text = '';
    child.stdout.on('data', (d) => {
      text += d;
    });
    child.on('error', reject);
    child.on('close', (c) => resolve({ code: c ?? -1, out: text }));
  });
  const loaded = (await readFile(file, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return { code, out, loaded };
}

const hasLoaded = (run: { loaded: readonly string[] }, path: string) =>
  run.loaded.some((m) => m.includes(path));
/** The heavy packages among the loaded modules, rge's patched copies of pdf.js (node_modules/.cache/rge/pdfjs-*) included. */
const heavyIn = (loaded: readonly string[]) =>
  [
    ...new Set(
      HEAVY.filter((h) =>
        loaded.some((m) => m.includes(`node_modules/${h}`) || m.includes(`node_modules/.cache/rge/${h}`)),
      ),
    ),
  ].sort();

describe('rge start-up loads no heavy module', () => {
  it('rge --version prints the version and loads none of them', async () => {
    const { code, out, loaded } = await loadsOf('version', ['--version']);
    expect(code).toBe(0);
    expect(out).toBe('0.1.0\n');
    // the recorder saw the CLI itself, so an empty list cannot pass for a clean one
    expect(loaded.some((m) => m.includes('node_modules/commander'))).toBe(true);
    expect(heavyIn(loaded)).toEqual([]);
  });

  it('rge --help lists the commands and loads none of them', async () => {
    const { code, out, loaded } = await loadsOf('help', ['--help']);
    expect(code).toBe(0);
    expect(out).toContain('retrieve [options] <question>');
    expect(loaded.some((m) => m.includes('node_modules/commander'))).toBe(true);
    expect(heavyIn(loaded)).toEqual([]);
  });

  it("a subcommand's --help (corpus ingest) loads none of them", async () => {
    const { code, out, loaded } = await loadsOf('ingest-help', ['corpus', 'ingest', '--help']);
    expect(code).toBe(0);
    expect(out).toContain('--embedder <name>');
    expect(heavyIn(loaded)).toEqual([]);
  });

  it('the recorder does see heavy modules when a command loads them (ingest: pdf.js, its modern build)', async () => {
    const pdfs = join(tmp, 'bad-pdfs');
    await mkdir(pdfs);
    await writeFile(join(pdfs, 'x.pdf'), 'not a pdf');
    const { code, loaded } = await loadsOf('ingest', [
      'corpus',
      'ingest',
      '--pdfs',
      pdfs,
      '--embedder',
      'bm25',
      '--index',
      join(tmp, 'bad-index'),
    ]);
    expect(code).toBe(1);
    expect(heavyIn(loaded)).toEqual(expect.arrayContaining(['pdfjs']));
    // the corpus workers read through pdf.js's modern build: pdf-parse, and the legacy build whose
    // global polyfills slow the whole thread, are never loaded
    expect(heavyIn(loaded)).not.toContain('pdf-parse');
    expect(loaded.filter((m) => m.includes('pdfjs-dist/legacy/'))).toEqual([]);
    // ... through rge's patched copies of its two modules (src/corpus/pdfjs-patches.ts)
    expect(hasLoaded({ loaded }, 'node_modules/.cache/rge/pdfjs-main-')).toBe(true);
    expect(hasLoaded({ loaded }, 'node_modules/.cache/rge/pdfjs-worker-')).toBe(true);
  });

  it('the provider SDKs load only for a config with live models (judge agree: heuristic, then live judges)', async () => {
    // a file that is there (a missing one is a usage error, exit 2, before any judge is built) but is
    // not a labelled set: the judges are built, then the command fails (exit 1)
    const file = join(tmp, 'not-a-labelled-set.jsonl');
    await writeFile(file, '{"x":1}\n');
    const agree = (config: string) =>
      loadsOf(`agree-${config.replace(/\W/g, '-')}`, [
        'judge',
        'agree',
        '--format',
        'salad',
        '--file',
        file,
        '--config',
        config,
      ]);
    const offline = await agree('configs/fixture.yaml');
    expect(offline.code).toBe(1);
    expect(hasLoaded(offline, 'src/models/registry.ts')).toBe(true);
    expect(heavyIn(offline.loaded)).toEqual([]);
    const live = await agree('configs/published.yaml');
    expect(live.code).toBe(1);
    // the first live judge's SDK is loaded (its missing key stops the command)
    expect(heavyIn(live.loaded)).toContain('@anthropic-ai/sdk');
  });
});

describe('the bundle (scripts/build-dist.mjs) that bin/rge.mjs runs while it matches the sources', () => {
  const bundleEntry = () => pathToFileURL(join(DIST, 'main.mjs')).href;
  const sourceEntry = pathToFileURL(join(ROOT, 'src/cli/main.ts')).href;

  it('runs --version and --help from the bundle, loading no heavy module', async () => {
    const manifest = await buildDist(DIST);
    expect(Object.keys(manifest.inputs)).toEqual(
      expect.arrayContaining(['src/cli/main.ts', 'tsconfig.json']),
    );
    for (const args of [['--version'], ['--help']]) {
      const { code, out, loaded } = await loadsOf(`bundle${args[0]}`, args, DIST);
      expect(code).toBe(0);
      expect(out).toContain(args[0] === '--version' ? '0.1.0' : 'retrieve [options] <question>');
      expect(loaded).toContain(bundleEntry());
      expect(loaded).not.toContain(sourceEntry);
      expect(heavyIn(loaded)).toEqual([]);
    }
  });

  it('runs the sources through tsx once a source file differs from what the bundle was built from', async () => {
    const manifestFile = join(DIST, 'manifest.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as { inputs: Record<string, string> };
    manifest.inputs['src/cli/retrieval.ts'] = '0'.repeat(40); // as if retrieval.ts had been edited since
    await writeFile(manifestFile, JSON.stringify(manifest));
    const { code, out, loaded } = await loadsOf('stale', ['--version'], DIST);
    expect(code).toBe(0);
    expect(out).toBe('0.1.0\n');
    expect(loaded).toContain(sourceEntry);
    expect(loaded).not.toContain(bundleEntry());
  });
});

function allCommands(cmd: Command): Command[] {
  return cmd.commands.flatMap((c) => [c, ...allCommands(c)]);
}

function pathOf(cmd: Command): string[] {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names;
}

describe('the help stays complete with lazy actions', () => {
  it('every command prints its help with every one of its options (exit 0)', async () => {
    const commands = allCommands(buildProgram(captureIO(ROOT)));
    expect(commands.length).toBeGreaterThan(20);
    for (const cmd of commands) {
      const io = captureIO(ROOT);
      const code = await main(['node', 'rge', ...pathOf(cmd), '--help'], io);
      expect(code, pathOf(cmd).join(' ')).toBe(0);
      for (const option of cmd.options) expect(io.text, pathOf(cmd).join(' ')).toContain(option.flags);
    }
  });

  it("the defaults and lists the help shows are the library's", () => {
    expect(CORPUS_DEFAULTS.cacheDir).toBe(DEFAULT_CACHE_DIR);
    expect(FIXTURE_DEFAULTS.cacheDir).toBe(DEFAULT_CACHE_DIR);
    expect(HELP_CONSTANTS.judgePromptVersion).toBe(JUDGE_PROMPT_VERSION);
    expect(HELP_CONSTANTS.judgePromptVersions).toEqual(JUDGE_PROMPT_VERSIONS);
    expect(HELP_CONSTANTS.agreementFormats).toEqual(AGREEMENT_FORMATS);
    expect(HELP_VALIDATION_SIZE).toBe(VALIDATION_SIZE);
    const program = buildProgram(captureIO(ROOT));
    const option = (path: string[], flag: string) => {
      let cmd: Command | undefined = program;
      for (const name of path) cmd = cmd?.commands.find((c) => c.name() === name);
      return cmd?.options.find((o) => o.long === flag)?.defaultValue;
    };
    expect(option(['gate'], '--min-effect')).toBe(String(DEFAULT_MIN_EFFECT));
    expect(option(['fixtures', 'facts'], '--seed')).toBe(SYNTHETIC_SEED);
    expect(option(['corpus', 'ingest'], '--cache-dir')).toBe(DEFAULT_CACHE_DIR);
  });
});
