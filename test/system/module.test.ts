/**
 * The module way in, inside this Vitest worker and in a plain Node process: TypeScript and JavaScript
 * modules (ES and CommonJS) loaded without a build step, the version a hash of the file, and every bad
 * module and bad answer a failure naming the question, or a pre-flight error naming the file and export.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import {
  ContractError,
  loadModuleSystem,
  SystemFailure,
  type SystemQuestion,
} from '../../src/system/index.ts';
import { scratchDirs } from '../helpers/scratch.ts';
import { runSystemChild } from './child-process.ts';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const TS_MODULE = fixture('module-answer.ts');
const JS_MODULE = fixture('module-answer.mjs');
const question = (id = 'gd-001'): SystemQuestion => ({
  id,
  text: 'What was revenue?',
  run_index: 1,
  seed: 99,
});
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const freshDir = scratchDirs('rge-system-module-');

/** Writes `files` into a fresh folder; returns the folder. */
function writeFiles(files: Record<string, string>): string {
  const dir = freshDir();
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const load = (file: string, exportName?: string, timeoutMs = 30_000) =>
  loadModuleSystem({ file, timeoutMs, ...(exportName ? { exportName } : {}) });

describe('loadModuleSystem: loading', () => {
  it('a TypeScript module, with no build step: its default export answers; version is the sha256 of the file', async () => {
    const system = await load(TS_MODULE);
    expect(system.kind).toBe('module');
    expect(system.version).toBe(sha256(TS_MODULE));
    expect(await system.answer(question())).toEqual({
      answer: 'answer to gd-001 [c1]',
      contexts: [{ id: 'c1', text: 'about What was revenue?', score: 0.5 }],
      usage: { input_tokens: 10, output_tokens: 2 },
      metadata: { language: 'typescript', seed: 99 },
    });
  });

  it('a named export, and a function that answers synchronously', async () => {
    const system = await load(TS_MODULE, 'synchronous');
    expect(await system.answer(question('q-7'))).toEqual({ answer: 'sync q-7', contexts: [] });
  });

  it('JavaScript is loaded by Node itself, not through Vite, even inside this Vitest worker', async () => {
    const system = await load(JS_MODULE);
    const reply = await system.answer(question());
    const { stack, url } = reply.metadata as { stack: string; url: string };
    expect(stack).not.toMatch(/__vite_ssr/);
    expect(stack).toMatch(/at answer \(/);
    expect(url.startsWith(pathToFileURL(JS_MODULE).href)).toBe(true);
  });

  it('CommonJS: a .cjs module.exports, a .cts, and a .ts in a package that is not "type": "module"', async () => {
    const dir = writeFiles({
      'package.json': '{ "type": "commonjs" }\n',
      'plain.cjs': "module.exports = (q) => ({ answer: 'cjs ' + q.id, contexts: [] });\n",
      'typed.cts':
        "const prefix: string = 'cts ';\nmodule.exports = (q: { id: string }) => ({ answer: prefix + q.id, contexts: [] });\n",
      'esm-syntax.ts':
        "export default (q: { id: string }) => ({ answer: 'ts-as-cjs ' + q.id, contexts: [] });\n" +
        "export const other = (q: { id: string }) => ({ answer: 'other ' + q.id, contexts: [] });\n",
    });
    const answers = await Promise.all(
      [['plain.cjs'], ['typed.cts'], ['esm-syntax.ts'], ['esm-syntax.ts', 'other']].map(async ([f, e]) => {
        const system = await load(join(dir, f as string), e);
        return (await system.answer(question('q1'))).answer;
      }),
    );
    expect(answers).toEqual(['cjs q1', 'cts q1', 'ts-as-cjs q1', 'other q1']);
  });

  it('each load runs the file as it is now: a changed file is a new version and its new code', async () => {
    const dir = writeFiles({ 'app.mjs': "export default () => ({ answer: 'first', contexts: [] });\n" });
    const first = await load(join(dir, 'app.mjs'));
    writeFileSync(join(dir, 'app.mjs'), "export default () => ({ answer: 'second', contexts: [] });\n");
    const second = await load(join(dir, 'app.mjs'));
    expect(second.version).not.toBe(first.version);
    expect((await first.answer(question())).answer).toBe('first');
    expect((await second.answer(question())).answer).toBe('second');
  });

  it('works in a plain Node process (as the rge command runs it), TypeScript and JavaScript alike', async () => {
    for (const [file, said] of [
      [TS_MODULE, 'answer to child-1 [c1]'],
      [JS_MODULE, 'answer to child-1'],
    ] as const) {
      const { code, out, err } = await runSystemChild(['module', file, 'default']);
      expect({ code, err }).toEqual({ code: 0, err: '' });
      const reply = JSON.parse(out) as { version: string; answer: { answer: string } };
      expect(reply.version).toBe(sha256(file));
      expect(reply.answer.answer).toBe(said);
    }
  });
});

describe('loadModuleSystem: a question the function fails', () => {
  it('a thrown error, or a rejection with a string, fails the question and names it', async () => {
    const throws = await load(TS_MODULE, 'throws');
    const err = await throws.answer(question('gd-042')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SystemFailure);
    expect((err as SystemFailure).questionId).toBe('gd-042');
    expect((err as Error).message).toBe(
      `module ${TS_MODULE} (export throws): question gd-042: the function threw: the index has no passage for gd-042`,
    );
    const rejects = await load(TS_MODULE, 'rejectsWithString');
    await expect(rejects.answer(question('gd-043'))).rejects.toThrow(
      /question gd-043: the function threw: plain string rejection$/,
    );
  });

  it('no answer within timeoutMs fails the question, and the signal the function was given aborts', async () => {
    const system = await load(TS_MODULE, 'hangs', 200);
    const err = await system.answer(question('gd-slow')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SystemFailure);
    expect((err as Error).message).toMatch(/question gd-slow: no answer within 200 ms$/);
    expect((globalThis as { rgeFixtureAborted?: string[] }).rgeFixtureAborted).toContain('gd-slow');
  });

  it('a signal the function first reads after its call timed out is already aborted', async () => {
    const system = await load(TS_MODULE, 'readsSignalLate', 100);
    await expect(system.answer(question('gd-late'))).rejects.toThrow(/no answer within 100 ms$/);
    const late = () => (globalThis as { rgeFixtureLate?: string[] }).rgeFixtureLate ?? [];
    await vi.waitFor(() => expect(late()).toContain('gd-late: aborted'), { timeout: 2000 });
  });

  it("the caller's signal: an aborted call rejects with its reason", async () => {
    const system = await load(TS_MODULE, 'hangs');
    const controller = new AbortController();
    const call = system.answer(question('gd-abort'), { signal: controller.signal });
    controller.abort(new Error('the run stopped'));
    await expect(call).rejects.toThrow('the run stopped');
    expect((globalThis as { rgeFixtureAborted?: string[] }).rgeFixtureAborted).toContain('gd-abort');
  });

  it('an answer off the contract names the field and the question; so do duplicate context ids', async () => {
    const misfit = await load(TS_MODULE, 'misfit');
    const err = await misfit.answer(question('gd-7')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContractError);
    expect((err as ContractError).issues.map((i) => i.path)).toEqual(['contexts.0.text']);
    expect((err as Error).message).toMatch(
      /^question gd-7: the answer does not fit the contract: contexts\.0\.text/,
    );
    const duplicates = await load(TS_MODULE, 'duplicates');
    await expect(duplicates.answer(question('gd-8'))).rejects.toThrow(
      'question gd-8: the answer does not fit the contract: contexts.2.id: duplicate context id "c1" (first at contexts[0])',
    );
  });

  it("the function is given a copy of the question: rge's is unchanged", async () => {
    const system = await load(TS_MODULE, 'mutates');
    const asked = question('gd-9');
    await system.answer(asked);
    expect(asked.id).toBe('gd-9');
  });
});

describe('loadModuleSystem: the pre-flight names the file and the export', () => {
  it('a missing file, a relative path, a file that is not a module', async () => {
    const missing = join(freshDir(), 'nowhere.ts');
    await expect(load(missing)).rejects.toThrow(`${missing}: the module system's file is not found`);
    await expect(load('apps/answer.ts')).rejects.toThrow(
      'apps/answer.ts: a module system is named by an absolute path',
    );
    const dir = writeFiles({ 'notes.txt': 'hello' });
    await expect(load(join(dir, 'notes.txt'))).rejects.toThrow(/notes\.txt: a module system is a \.ts, /);
  });

  it('a missing export (listing the exports there are) and an export that is not a function', async () => {
    await expect(load(TS_MODULE, 'answr')).rejects.toThrow(
      `${TS_MODULE}: the module system has no export "answr" (its exports: default, duplicates, hangs, misfit, mutates, notAFunction, readsSignalLate, rejectsWithString, synchronous, throws); it must export a function (question) => answer`,
    );
    await expect(load(TS_MODULE, 'notAFunction')).rejects.toThrow(
      `${TS_MODULE}: the module system exports "notAFunction" as number, not a function`,
    );
    const dir = writeFiles({ 'named-only.mjs': 'export const answer = () => ({});\n' });
    await expect(load(join(dir, 'named-only.mjs'))).rejects.toThrow(
      'has no export "default" (its exports: answer)',
    );
  });

  it('a module that fails to load: a syntax error, a throw at its top level, a missing import', async () => {
    const dir = writeFiles({
      'syntax.ts': 'export default (q => {\n',
      'throws.mjs': "throw new Error('no OPENAI_API_KEY');\n",
      'imports.ts': "import { x } from './absent.ts';\nexport default () => x;\n",
    });
    await expect(load(join(dir, 'syntax.ts'))).rejects.toThrow(
      /syntax\.ts: the module system's file failed to load: /,
    );
    await expect(load(join(dir, 'throws.mjs'))).rejects.toThrow(
      /throws\.mjs: the module system's file failed to load: no OPENAI_API_KEY/,
    );
    await expect(load(join(dir, 'imports.ts'))).rejects.toThrow(
      /imports\.ts: the module system's file failed to load: .*absent/,
    );
  });
});
