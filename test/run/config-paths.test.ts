/**
 * Paths in a run config (issue 51): a path the file writes is relative to the config file's folder, as
 * in every YAML tool; a `--set` value and a default are relative to the working folder; a path that is
 * only where the working folder puts it (a config written the old way) is an error at its line, with
 * both resolutions; the shipped configs, which say `../fixtures/...`, are read exactly as before (their
 * run identity and report unchanged).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  loadRunConfig,
  parseRunConfig,
  RunConfigError,
  type RunConfigIssue,
  resolveRunPaths,
} from '../../src/run/config/config.ts';
import { CONFIG_PATH_FIELDS, configPaths } from '../../src/run/config/paths.ts';
import { runRge } from '../helpers/cli.ts';

const ROOT = join(import.meta.dirname, '../..');

/** A config of one offline subject and one command system, every path field of the schema given. */
function configWithEveryPath(): Record<string, unknown> {
  return {
    version: 1,
    name: 'paths',
    seed: 'paths-v1',
    corpus: {
      sources: 'corpus/sources.yaml',
      generated_from: 'corpus/facts.json',
      pdfs: 'corpus/pdfs',
      index: 'corpus/index',
      embedder: 'bm25',
    },
    questions: { file: 'questions.jsonl', version: 1 },
    subjects: [
      {
        id: 'model',
        provider: 'replay',
        model: 'eager',
        family: 'f-model',
        max_tokens: 64,
        replay_file: 'replay.jsonl',
      },
      {
        id: 'app',
        provider: 'module',
        model: 'app',
        family: 'f-app',
        module: 'app.ts',
        version_files: ['app'],
      },
      {
        id: 'cmd',
        provider: 'command',
        model: 'cmd',
        family: 'f-cmd',
        command: ['node', 'answer.mjs'],
        cwd: 'app',
      },
      {
        id: 'logged',
        provider: 'logged-traces',
        model: 'app',
        family: 'f-app',
        cases: 'traces/cases.jsonl',
      },
    ],
    judges: [
      { id: 'numeric', provider: 'heuristic', model: 'numeric', family: 'h-numeric', temperature: 0 },
      { id: 'lexical', provider: 'heuristic', model: 'lexical', family: 'h-lexical', temperature: 0 },
    ],
    runs: 1,
    budget: { cap_usd: 0, warn_usd: 0 },
    thresholds: { correctness: null, grounding: null, calibration: null, gfs: null },
    judge_prompt: { version: 'v2', sha256: null, text: null },
    subject_prompt: { file: 'prompt.md' },
    validation: { labels_dir: 'labels' },
    latency_budget_ms: 2000,
  };
}

let work: string;
/** the folder rge runs in */
let cwd: string;
/** the config's folder, not the working folder */
let confDir: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rge-config-paths-'));
  cwd = join(work, 'repo');
  confDir = join(work, 'elsewhere', 'evals');
  await mkdir(cwd, { recursive: true });
  await mkdir(confDir, { recursive: true });
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('a config in another folder', () => {
  it('reads every path it writes against its own folder, whatever the working folder', async () => {
    const file = join(confDir, 'rge.yaml');
    await writeFile(file, stringify(configWithEveryPath()));
    const config = await loadRunConfig(file, { root: cwd });
    const resolved = resolveRunPaths(config, cwd);
    const paths = configPaths(resolved);
    // every path field of the schema is set in this config, and each is read against its folder
    expect(new Set(paths.map((p) => p.path.map((k) => (typeof k === 'number' ? '*' : k)).join('.')))).toEqual(
      new Set(CONFIG_PATH_FIELDS.map((f) => f.join('.'))),
    );
    const written = configPaths(configWithEveryPath());
    for (const [i, p] of paths.entries())
      expect(p.written).toBe(join(confDir, written[i]?.written as string));
    // held relative to the working folder (as every stage resolves it): outside it, absolute
    expect(config.questions.file).toBe(join(confDir, 'questions.jsonl'));
  });

  it('holds a path inside the working folder relative to it', async () => {
    const inside = join(cwd, 'evals');
    await mkdir(inside, { recursive: true });
    const file = join(inside, 'rge.yaml');
    await writeFile(file, stringify(configWithEveryPath()));
    const config = await loadRunConfig(file, { root: cwd });
    expect(config.questions.file).toBe('evals/questions.jsonl');
    expect(config.corpus?.index).toBe('evals/corpus/index');
    expect(config.subjects[1]?.version_files).toEqual(['evals/app']);
    expect(config.subjects[2]?.cwd).toBe('evals/app');
  });

  it('reads a --set path and a default against the working folder, as a flag', async () => {
    const file = join(confDir, 'rge.yaml');
    const text = configWithEveryPath();
    delete (text as { validation?: unknown }).validation;
    await writeFile(file, stringify(text));
    const config = await loadRunConfig(file, {
      root: cwd,
      overrides: ['questions.file=mine.jsonl', 'subjects.1.version_files=[a, b]'],
    });
    expect(config.questions.file).toBe('mine.jsonl');
    expect(config.subjects[1]?.version_files).toEqual(['a', 'b']);
    expect(config.validation.labels_dir).toBe('data/labels');
    // the fields no --set touched are still the file's
    expect(config.subject_prompt.file).toBe(join(confDir, 'prompt.md'));
  });

  it('keeps a path as written when it means the same either way (a config in the working folder, an absolute path)', () => {
    const text = stringify({ ...configWithEveryPath(), questions: { file: '/data/q.jsonl', version: 1 } });
    const config = parseRunConfig(text, 'rge.yaml', [], cwd);
    expect(config.questions.file).toBe('/data/q.jsonl');
    expect(config.subject_prompt.file).toBe('prompt.md');
    expect(parseRunConfig(text, join(confDir, 'rge.yaml'), [], cwd).questions.file).toBe('/data/q.jsonl');
  });
});

describe('a path written the old way (relative to the working folder)', () => {
  /** The issues of loading `file` with `root` as the working folder. */
  async function issuesOf(file: string, root: string, overrides: string[] = []): Promise<RunConfigIssue[]> {
    try {
      await loadRunConfig(file, { root, overrides });
    } catch (err) {
      if (err instanceof RunConfigError) return [...err.issues];
      throw err;
    }
    throw new Error('the config was accepted');
  }

  it('is an error at its line naming the field and both resolutions, when only the working folder has it', async () => {
    const sub = join(cwd, 'configs');
    await mkdir(sub, { recursive: true });
    await writeFile(join(cwd, 'questions.jsonl'), '');
    await writeFile(join(cwd, 'prompt.md'), '');
    const file = join(sub, 'old.yaml');
    await writeFile(file, stringify(configWithEveryPath()));
    const text = await readFile(file, 'utf8');
    const lineOf = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;
    const issues = await issuesOf(file, cwd);
    expect(issues).toEqual([
      {
        file,
        line: lineOf('file: questions.jsonl'),
        field: 'questions.file',
        message:
          "questions.jsonl is not in this config's folder (configs/questions.jsonl: not there) but is in the working folder (questions.jsonl): " +
          "paths in a config are relative to the config file's folder, no longer to the folder rge runs in; write ../questions.jsonl or an absolute path",
      },
      expect.objectContaining({ line: lineOf('file: prompt.md'), field: 'subject_prompt.file' }),
    ]);
    // a --set of the field is the working folder's: no error for it
    expect((await issuesOf(file, cwd, ['questions.file=questions.jsonl'])).map((i) => i.field)).toEqual([
      'subject_prompt.file',
    ]);
  });

  it("is no error when the config's folder has it too (the config's is read)", async () => {
    const sub = join(cwd, 'both');
    await mkdir(sub, { recursive: true });
    await writeFile(join(cwd, 'questions.jsonl'), '');
    await writeFile(join(sub, 'questions.jsonl'), '');
    const text = { ...configWithEveryPath(), subject_prompt: { file: null } };
    await writeFile(join(sub, 'rge.yaml'), stringify(text));
    const config = await loadRunConfig(join(sub, 'rge.yaml'), { root: cwd });
    expect(config.questions.file).toBe('both/questions.jsonl');
  });

  it("a command's argument that is a file only from the working folder, where the command no longer runs", async () => {
    const sub = join(cwd, 'app-config');
    await mkdir(sub, { recursive: true });
    await writeFile(join(cwd, 'cli.mjs'), '');
    // the config's own questions (the working folder has a questions.jsonl of an earlier case)
    await writeFile(join(sub, 'questions.jsonl'), '');
    const text = configWithEveryPath();
    (text.subjects as Record<string, unknown>[])[2] = {
      id: 'cmd',
      provider: 'command',
      model: 'cmd',
      family: 'f-cmd',
      command: ['node', '--no-warnings', 'cli.mjs'],
    };
    text.subject_prompt = { file: null };
    await writeFile(join(sub, 'rge.yaml'), stringify(text));
    const issues = await issuesOf(join(sub, 'rge.yaml'), cwd);
    expect(issues.map((i) => [i.field, i.message])).toEqual([
      [
        'subjects[2].command[2]',
        'cli.mjs is not in the folder the command runs in (app-config/cli.mjs: not there) but is in the working folder (cli.mjs): ' +
          "a command runs in its config file's folder (or its cwd), no longer in the folder rge runs in; write ../cli.mjs or an absolute path",
      ],
    ]);
    // with a cwd of the working folder, the command runs there: no error
    const inRoot = { ...text, subjects: (text.subjects as Record<string, unknown>[]).map((s) => ({ ...s })) };
    (inRoot.subjects[2] as Record<string, unknown>).cwd = '..';
    await writeFile(join(sub, 'rge.yaml'), stringify(inRoot));
    expect((await loadRunConfig(join(sub, 'rge.yaml'), { root: cwd })).subjects[2]?.cwd).toBe('.');
  });

  it('rge config validate says it, exit 1, naming the file', async () => {
    const sub = join(cwd, 'cli');
    await mkdir(sub, { recursive: true });
    await writeFile(join(cwd, 'questions.jsonl'), '');
    await writeFile(
      join(sub, 'rge.yaml'),
      stringify({ ...configWithEveryPath(), subject_prompt: { file: null } }),
    );
    const r = await runRge(cwd, 'config', 'validate', '--config', 'cli/rge.yaml');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      /^rge: .*cli\/rge\.yaml:\d+: questions\.file: questions\.jsonl is not in this config's folder \(cli\/questions\.jsonl: not there\) but is in the working folder \(questions\.jsonl\)/,
    );
  });
});

describe('the shipped configs', () => {
  it('say ../ from configs/ and are read as they were when they said fixtures/... from the repository root', async () => {
    const fixture = await loadRunConfig(join(ROOT, 'configs/fixture.yaml'), { root: ROOT });
    expect(await readFile(join(ROOT, 'configs/fixture.yaml'), 'utf8')).toContain(
      'file: ../fixtures/questions.jsonl',
    );
    expect(fixture.questions.file).toBe('fixtures/questions.jsonl');
    expect(fixture.corpus).toMatchObject({
      generated_from: 'fixtures/facts.json',
      pdfs: 'fixtures/generated/pdfs',
      index: 'fixtures/generated/index',
    });
    expect(fixture.subject_prompt.file).toBe('prompts/subject.md');
    const published = await loadRunConfig(join(ROOT, 'configs/published.yaml'), { root: ROOT });
    expect(published.corpus).toMatchObject({
      sources: 'data/corpus/sources.yaml',
      pdfs: 'data/corpus/pdfs',
      index: 'data/index',
    });
    const app = await loadRunConfig(join(ROOT, 'examples/rag-app/rge.yaml'), { root: ROOT });
    expect(app.subjects[0]).toMatchObject({
      module: 'examples/rag-app/app.ts',
      version_files: ['examples/rag-app'],
    });
    expect(relative(ROOT, join(ROOT, app.questions.file))).toBe('fixtures/questions.jsonl');
  });
});
