import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerConfigCommands } from '../../src/cli/config.ts';
import type { CliIO } from '../../src/cli/io.ts';
import { findModel } from '../../src/providers/catalogue.ts';
import {
  loadRunConfig,
  panelFor,
  parseRunConfig,
  RunConfig,
  RunConfigError,
  type RunConfigIssue,
  resolveRunPaths,
} from '../../src/run/config/config.ts';
import { runConfigJsonSchemaText } from '../../src/run/config/schema.ts';
import { sha256 } from '../../src/util/fs.ts';

const ROOT = join(import.meta.dirname, '../..');
const FIXTURE = join(ROOT, 'configs/fixture.yaml');
const PUBLISHED = join(ROOT, 'configs/published.yaml');
const SCHEMA = join(ROOT, 'configs/config.schema.json');

function issuesOf(text: string, file = 'run.yaml'): RunConfigIssue[] {
  try {
    parseRunConfig(text, file);
  } catch (err) {
    if (err instanceof RunConfigError) return [...err.issues];
    throw err;
  }
  throw new Error('expected the config to be rejected');
}

describe('the committed configs', () => {
  it('configs/fixture.yaml validates: fixture corpus, bm25, offline subjects, heuristic judges', async () => {
    const config = await loadRunConfig(FIXTURE);
    expect(config).toMatchObject({
      version: 1,
      corpus: { pdfs: 'fixtures/generated/pdfs', index: 'fixtures/generated/index', embedder: 'bm25' },
      retrieval: { k: 5 },
      questions: { file: 'fixtures/questions.jsonl', version: 1 },
      runs: 3,
      budget: { cap_usd: 0, warn_usd: 0 },
    });
    expect(config.subjects.map((s) => [s.id, s.provider, s.family, s.temperature])).toEqual([
      ['extractive', 'offline', 'rge-offline-extractive', 0.7],
      ['eager', 'offline', 'rge-offline-eager', 0.7],
    ]);
    expect(config.judges.map((j) => [j.id, j.provider, j.family])).toEqual([
      ['numeric', 'heuristic', 'rge-heuristic-numeric'],
      ['lexical', 'heuristic', 'rge-heuristic-lexical'],
    ]);
    expect(config.seed).not.toBe('');
  });

  it('configs/published.yaml validates: the methodology', async () => {
    const config = await loadRunConfig(PUBLISHED);
    expect(config).toMatchObject({
      corpus: { sources: 'data/corpus/sources.yaml', pdfs: 'data/corpus/pdfs', embedder: 'bge-m3' },
      retrieval: { k: 5 },
      runs: 3,
      budget: { cap_usd: 100, warn_usd: 50 },
      gfs_weights: { grounding: 0.4, correctness: 0.35, calibration: 0.25 },
    });
    expect(config.subjects.map((s) => s.provider).sort()).toEqual(['anthropic', 'gemini', 'openai']);
    // temperature 0 where the model's contract allows it and its vendor does not advise against it
    // (docs/adr/0014): GPT-5.4 at reasoning effort none; none at all for Claude (API version 2026-10-21
    // refuses it) and for Gemini 3 (Google advises its default 1.0)
    expect(
      Object.fromEntries(
        [...config.subjects, ...config.judges].map((m) => [
          m.id,
          {
            temperature: m.temperature,
            reasoning_effort: m.reasoning_effort,
            thinking_level: m.thinking_level,
          },
        ]),
      ),
    ).toEqual({
      claude: { temperature: undefined, reasoning_effort: undefined, thinking_level: undefined },
      'claude-judge': { temperature: undefined, reasoning_effort: undefined, thinking_level: undefined },
      gpt: { temperature: 0, reasoning_effort: 'none', thinking_level: undefined },
      'gpt-judge': { temperature: 0, reasoning_effort: 'none', thinking_level: undefined },
      gemini: { temperature: undefined, reasoning_effort: undefined, thinking_level: 'low' },
      'gemini-judge': { temperature: undefined, reasoning_effort: undefined, thinking_level: 'low' },
    });
    // every subject is judged only by other families, and by at least two of them
    for (const s of config.subjects) {
      const panel = panelFor(config, s.id);
      expect(panel.length).toBeGreaterThanOrEqual(2);
      expect(panel.every((j) => j.family !== s.family)).toBe(true);
    }
    // the methodology's three models, each a subject and a judge, all priced by the catalogue
    const ids = ['claude-sonnet-4-6', 'gemini-3.1-pro-preview', 'gpt-5.4'];
    expect(config.subjects.map((s) => s.model).sort()).toEqual(ids);
    expect(config.judges.map((j) => j.model).sort()).toEqual(ids);
    for (const m of [...config.subjects, ...config.judges])
      expect(findModel(m.provider, m.model)?.family).toBe(m.family);
    expect(config.mode).toBe('batch');
  });

  it('both point editors at the schema on their first line', async () => {
    for (const path of [FIXTURE, PUBLISHED])
      expect((await readFile(path, 'utf8')).split('\n')[0]).toBe(
        '# yaml-language-server: $schema=./config.schema.json',
      );
  });

  it('configs/config.schema.json equals a fresh export (regenerate with `rge config schema`)', async () => {
    expect(await readFile(SCHEMA, 'utf8')).toBe(runConfigJsonSchemaText());
    const schema = JSON.parse(runConfigJsonSchemaText());
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.properties.corpus.properties.embedder.enum).toEqual([
      'use-lite',
      'bge-m3',
      'bm25',
      'hybrid',
    ]);
    // defaulted fields are optional in a file
    expect(schema.properties.corpus.required).not.toContain('chunk_tokens');
    expect(schema.required).toContain('thresholds');
  });
});

describe('defaults and paths', () => {
  it('fills the methodology defaults: chunk 800/100, k 5, GFS weights 0.40/0.35/0.25', async () => {
    const text = (await readFile(FIXTURE, 'utf8'))
      .replace(/ {2}chunk_tokens: 800\n {2}overlap_tokens: 100\n/, '')
      .replace(/retrieval:\n {2}k: 5\n/, '')
      .replace(/gfs_weights:\n(?: {2}.*\n){3}/, '');
    const config = parseRunConfig(text, 'defaults.yaml');
    expect(config.corpus).toMatchObject({ chunk_tokens: 800, overlap_tokens: 100 });
    expect(config.retrieval.k).toBe(5);
    expect(config.gfs_weights).toEqual({ grounding: 0.4, correctness: 0.35, calibration: 0.25 });
  });

  it("resolves relative paths against the config's folder (configs/ says ../data/...)", async () => {
    const config = resolveRunPaths(await loadRunConfig(PUBLISHED, { root: '/repo' }), '/repo');
    expect(config.corpus).toMatchObject({
      sources: join(ROOT, 'data/corpus/sources.yaml'),
      pdfs: join(ROOT, 'data/corpus/pdfs'),
      index: join(ROOT, 'data/index'),
    });
    expect(config.questions.file).toBe(join(ROOT, 'data/questions/questions.jsonl'));
  });
});

describe('a config whose subjects are all systems', () => {
  /** configs/fixture.yaml with a module system for its subjects, without `sections`. */
  const systemsOnly = async (...sections: string[]) => {
    let text = (await readFile(FIXTURE, 'utf8')).replace(
      /^subjects:\n(?: {2}.*\n)+/m,
      'subjects:\n  - id: app\n    provider: module\n    module: app.ts\n    model: app\n    family: app-family\n',
    );
    for (const section of sections) text = text.replace(new RegExp(`^${section}:\\n(?: {2}.*\\n)+`, 'm'), '');
    return text;
  };

  it('may leave out the corpus, retrieval and subject prompt sections it does not use', async () => {
    const text = await systemsOnly('corpus', 'retrieval', 'subject_prompt');
    expect(text).not.toMatch(/^(corpus|retrieval|subject_prompt):/m);
    const config = parseRunConfig(text, 'systems.yaml');
    expect(config.corpus).toBeUndefined();
    expect(config.subjects.map((s) => s.provider)).toEqual(['module']);
  });

  it('a config with a model subject still needs its corpus: the error names the file and line', async () => {
    const text = (await systemsOnly('corpus')).replace(
      'subjects:\n',
      'subjects:\n  - id: extractive\n    provider: offline\n    model: extractive\n    family: rge-offline-extractive\n    max_tokens: 64\n',
    );
    // where a missing section's error has always been: the document's first line (after the comments)
    expect(issuesOf(text, 'mixed.yaml')).toEqual([
      {
        file: 'mixed.yaml',
        line: text.split('\n').indexOf('version: 1') + 1,
        field: 'corpus',
        message:
          "required field is missing (expected object): subject extractive (provider offline) answers from rge's index; " +
          'only a config whose subjects are all systems (module, http, command) may leave it out',
      },
    ]);
  });
});

describe('a broken config', () => {
  const BROKEN = `# yaml-language-server: $schema=./config.schema.json
version: 2
name: broken
seed: s
corpus:
  pdfs: fixtures/generated/pdfs
  index: fixtures/generated/index
  embedder: word2vec
  chunk_tokens: 100
  overlap_tokens: 200
retrieval:
  k: 0
questions:
  file: fixtures/questions.jsonl
subjects:
  - id: a
    provider: replay
    model: m
    family: acme
    temperature: 0
    max_tokens: 100
  - id: a
    provider: offline
    model: m
    family: acme
    temperature: 3
    max_tokens: 100
judges:
  - id: j
    provider: heuristic
    model: m
    family: acme
    temperature: 0
    colour: blue
runs: 0
budget:
  cap_usd: 10
  warn_usd: 20
thresholds:
  correctness: 2.5
  grounding: null
  calibration: null
  gfs: 1.5
judge_prompt:
  version: v1
  sha256: "${'0'.repeat(64)}"
  text: Judge the answer.
gfs_weights:
  grounding: 0.5
  correctness: 0.35
  calibration: 0.25
latency_budget_ms: 1000
`;

  it('reports every problem in one pass, each with its line and field', () => {
    const issues = issuesOf(BROKEN, 'broken.yaml');
    const at = (field: string) => issues.filter((i) => i.field === field).map((i) => i.line);
    expect(at('version')).toEqual([2]);
    expect(at('corpus.embedder')).toEqual([8]);
    expect(at('corpus.overlap_tokens')).toEqual([10]);
    expect(at('retrieval.k')).toEqual([12]);
    expect(at('questions.version')).toEqual([14]); // missing: where its parent's map starts
    expect(at('subjects[0].replay_file')).toEqual([16]);
    expect(at('subjects[1].id')).toEqual([22]);
    expect(at('subjects[1].temperature')).toEqual([26]);
    expect(at('judges[0].colour')).toEqual([34]);
    expect(at('runs')).toEqual([35]);
    expect(at('budget.warn_usd')).toEqual([38]);
    expect(at('thresholds.correctness')).toEqual([40]);
    expect(at('thresholds.gfs')).toEqual([43]);
    expect(at('judge_prompt.sha256')).toEqual([46]);
    expect(at('gfs_weights')).toEqual([49]);
    // a subject whose family is the only judge family cannot be judged
    expect(at('subjects[0].family')).toEqual([19]);
    expect(issues.every((i) => i.file === 'broken.yaml')).toBe(true);
    const fields = new Set(issues.map((i) => i.field));
    expect(fields.size).toBeGreaterThanOrEqual(16);
  });

  it('formats each issue as file:line: field: message', () => {
    let message = '';
    try {
      parseRunConfig(BROKEN, 'broken.yaml');
    } catch (err) {
      message = (err as Error).message;
    }
    const lines = message.split('\n');
    expect(lines).toContain(
      'broken.yaml:38: budget.warn_usd: must be less than cap_usd (10); only a 0 cap allows a 0 warning',
    );
    expect(lines).toContain('broken.yaml:34: judges[0].colour: unknown field');
    expect(lines).toContain('broken.yaml:14: questions.version: required field is missing (expected number)');
    expect(lines).toContain(
      `broken.yaml:46: judge_prompt.sha256: does not match the text (its sha256 is ${sha256('Judge the answer.')})`,
    );
  });

  it('reports only the first YAML error, at its line: no field errors of a file that is not YAML', () => {
    const issues = issuesOf('version: 1\nname: a\nname: b\nseed: [unclosed\n', 'bad.yaml');
    expect(issues).toEqual([
      { file: 'bad.yaml', line: 3, field: 'yaml', message: 'Map keys must be unique (column 1)' },
    ]);
  });

  it('accepts a 0 cap only with a 0 warning, and a replay subject only with its file', async () => {
    const fixture = await readFile(FIXTURE, 'utf8');
    const capped = fixture.replace('warn_usd: 0', 'warn_usd: 1');
    expect(issuesOf(capped).map((i) => i.field)).toEqual(['budget.warn_usd']);
    const replay = fixture.replace(
      'provider: offline\n    model: eager',
      'provider: replay\n    model: eager\n    replay_file: fixtures/replay/eager.jsonl',
    );
    expect(parseRunConfig(replay, 'r.yaml').subjects[1]?.replay_file).toBe('fixtures/replay/eager.jsonl');
  });

  it('RunConfig.parse applies the same rules to plain objects', async () => {
    const config = await loadRunConfig(FIXTURE);
    const bad = { ...config, gfs_weights: { grounding: 0.4, correctness: 0.4, calibration: 0.4 } };
    expect(RunConfig.safeParse(bad).success).toBe(false);
    expect(RunConfig.parse(config)).toEqual(config);
  });
});

describe('a --set the schema refuses', () => {
  const text = async () => readFile(PUBLISHED, 'utf8');
  const messageOf = async (overrides: string[]): Promise<string> => {
    try {
      parseRunConfig(await text(), 'configs/published.yaml', overrides);
    } catch (err) {
      if (err instanceof RunConfigError) return err.message;
      throw err;
    }
    throw new Error('the config was accepted');
  };

  it('names the argument, not a line of the file that holds another value', async () => {
    expect((await messageOf(['budget.cap_usd=-1'])).split('\n')).toEqual([
      '--set budget.cap_usd=-1: budget.cap_usd: Too small: expected number to be >=0',
      // the file's warn_usd (50) is now above the cap: its line, and the argument that made it so
      expect.stringMatching(
        /^configs\/published\.yaml:\d+: budget\.warn_usd: must be less than cap_usd \(-1\); .* \(with --set budget\.cap_usd=-1\)$/,
      ),
    ]);
    expect(await messageOf(['budget.cap=1'])).toBe('--set budget.cap=1: budget.cap: unknown field');
    // an object replaced by a scalar: the issue is below the field the argument set
    expect(await messageOf(['retrieval=3'])).toMatch(/^--set retrieval=3: retrieval: /);
    // the last of two arguments on one field is the one in force
    expect(await messageOf(['runs=2', 'runs=0'])).toMatch(/^--set runs=0: runs: Too small/);
  });

  it("a rule across a section's fields stays at the file's line and names the argument too", async () => {
    const line = (await text()).split('\n').findIndex((l) => l.trim().startsWith('warn_usd:')) + 1;
    expect(await messageOf(['budget.cap_usd=1'])).toBe(
      `configs/published.yaml:${line}: budget.warn_usd: must be less than cap_usd (1); only a 0 cap allows a 0 warning (with --set budget.cap_usd=1)`,
    );
  });

  it("a problem of the file itself keeps its line beside a --set's", async () => {
    const broken = (await text()).replace(/^runs: \d+$/m, 'runs: 0');
    expect(broken).not.toBe(await text());
    let message = '';
    try {
      parseRunConfig(broken, 'configs/published.yaml', ['budget.cap=1']);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.split('\n')).toEqual([
      '--set budget.cap=1: budget.cap: unknown field',
      expect.stringMatching(/^configs\/published\.yaml:\d+: runs: Too small/),
    ]);
  });
});

function capture(cwd: string): CliIO & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { out: (t) => stdout.push(t), err: (t) => stderr.push(t), cwd, exitCode: 0, stdout, stderr };
}

async function rgeConfig(cwd: string, ...args: string[]): Promise<string> {
  const io = capture(cwd);
  const program = new Command('rge').exitOverride();
  registerConfigCommands(program, io);
  await program.parseAsync(['node', 'rge', 'config', ...args]);
  return io.stdout.join('');
}

describe('rge config', () => {
  let work: string;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'rge-config-'));
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('validate passes the committed configs and throws every issue of a broken one', async () => {
    expect(await rgeConfig(ROOT, 'validate')).toMatch(/configs\/fixture\.yaml: ok/);
    expect(await rgeConfig(ROOT, 'validate', '--config', 'configs/published.yaml')).toMatch(/ok \(published/);
    await writeFile(join(work, 'bad.yaml'), 'version: 1\nname: x\n');
    await expect(rgeConfig(work, 'validate', '--config', 'bad.yaml')).rejects.toThrow(
      /bad\.yaml:1: seed: required field is missing/,
    );
  });

  it('schema writes the same bytes as the committed file', async () => {
    await rgeConfig(work, 'schema', '--out', 'schema.json');
    expect(await readFile(join(work, 'schema.json'), 'utf8')).toBe(await readFile(SCHEMA, 'utf8'));
  });
});
