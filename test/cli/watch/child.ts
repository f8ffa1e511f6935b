/**
 * `rge eval watch` (or `npx vitest evals --watch`) as a user runs it, in a child process: the real
 * command in the repository, its output collected as it comes, waited on by what it says. `pty: true` runs it under a
 * pseudo-terminal (util-linux `script`), so its stdin is a terminal a test can press keys on (Ctrl-C
 * there is the SIGINT a terminal sends); otherwise stdin is a pipe, which is not a terminal.
 *
 * Also here: the world a watch test edits (a config of the fixture world's index with its own copies of
 * the question file and subject prompt, and a module system), and reading the results folder.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { worldOverrides, worldPaths } from '../../helpers/fixture-world.ts';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Whether `script` (util-linux) can give a child a terminal here. */
export function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export class WatchChild {
  private readonly child: ChildProcess;
  private text = '';
  readonly exited: Promise<number>;

  /**
   * `rge eval watch ARGS...`; with `script`, `SCRIPT ARGS...` run by node (`node_modules/vitest/vitest.mjs`),
   * with `env` replacing the inherited environment's variables of the same name.
   */
  constructor(
    args: readonly string[],
    opts: { env?: Record<string, string | undefined>; pty?: boolean; script?: string } = {},
  ) {
    const env = { ...process.env, CI: '1', NO_COLOR: '1', ...opts.env };
    const argv = [
      process.execPath,
      ...(opts.script ? [opts.script] : ['bin/rge.mjs', 'eval', 'watch']),
      ...args,
    ];
    this.child = opts.pty
      ? spawn('script', ['-qfec', argv.map(quote).join(' '), '/dev/null'], { cwd: ROOT, env })
      : spawn(argv[0] as string, argv.slice(1), { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const collect = (d: Buffer) => {
      this.text += String(d).replace(/\r\n/g, '\n');
    };
    this.child.stdout?.on('data', collect);
    this.child.stderr?.on('data', collect);
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code ?? -1)));
  }

  /** Everything said so far (stdout and stderr, in the order it came). */
  get output(): string {
    return this.text;
  }

  /** How many times a line matching `pattern` was said. */
  count(pattern: RegExp): number {
    return this.text.split('\n').filter((line) => pattern.test(line)).length;
  }

  /** Waits until `pattern` has been said `times` times in all; fails naming what was said. */
  async until(pattern: RegExp, times = 1, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.count(pattern) < times) {
      if (Date.now() > deadline || this.child.exitCode !== null)
        throw new Error(`waited for ${times} x ${pattern}; the watch said:\n${this.text}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Keys typed on its terminal (or written to its stdin pipe). */
  type(keys: string): void {
    this.child.stdin?.write(keys);
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Ends it if it is still running (SIGTERM, then SIGKILL) and waits for it. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
      await this.exited;
      clearTimeout(timer);
    }
  }
}

/** A module system: answers after `delayMs` (0: at once), with the question's text as its context. */
export function moduleApp(delayMs = 0): string {
  return `// a system under test for rge eval watch's tests
export default async function answer(question, { signal }) {
  if (${delayMs} > 0)
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, ${delayMs});
      signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason); }, { once: true });
    });
  return { answer: 'The reports do not state this [c1].', contexts: [{ id: 'c1', text: question.text }] };
}
`;
}

/**
 * The watch tests' usual world in `dir`: a module system (`app.mjs`, its version declared) beside the
 * offline extractive subject; returns the config's path.
 */
export async function appAndExtractiveWorld(dir: string): Promise<string> {
  await writeFile(join(dir, 'app.mjs'), moduleApp());
  return watchWorld(dir, [
    {
      id: 'extractive',
      provider: 'offline',
      model: 'extractive',
      family: 'rge-offline-extractive',
      temperature: 0.7,
      max_tokens: 512,
    },
    { id: 'app', provider: 'module', module: 'app.mjs', version: '1', model: 'app', family: 'test-app' },
  ]);
}

/**
 * A watch world in `dir`: configs/ci.yaml on the tests' fixture index, one run per question, with its
 * own question file and subject prompt (copies, to edit) and `subjects` as its subjects.
 */
export async function watchWorld(dir: string, subjects: Record<string, unknown>[]): Promise<string> {
  await worldOverrides(); // builds the world once per test run
  const world = worldPaths();
  await mkdir(dir, { recursive: true });
  await copyFile(join(ROOT, 'fixtures/questions.jsonl'), join(dir, 'questions.jsonl'));
  await copyFile(join(ROOT, 'prompts/subject.md'), join(dir, 'prompt.md'));
  const doc = parseDocument(await readFile(join(ROOT, 'configs/ci.yaml'), 'utf8'));
  doc.setIn(['corpus', 'generated_from'], join(ROOT, 'fixtures/facts.json'));
  doc.setIn(['corpus', 'pdfs'], world.pdfs);
  doc.setIn(['corpus', 'index'], world.index);
  doc.setIn(['questions', 'file'], 'questions.jsonl');
  doc.setIn(['subject_prompt', 'file'], 'prompt.md');
  doc.set('subjects', subjects);
  doc.set('runs', 1);
  const config = join(dir, 'watch.yaml');
  await writeFile(config, doc.toString());
  return config;
}

/** How many answers each cell store of a results folder holds (by file), and whether any is stored twice. */
export function storedAnswers(resultsDir: string): { byStore: Record<string, number>; duplicates: number } {
  const dir = join(resultsDir, 'cells', 'answers');
  const byStore: Record<string, number> = {};
  let duplicates = 0;
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.jsonl'))) {
    const keys = new Set<string>();
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const key = (JSON.parse(line) as { key: string }).key;
      if (keys.has(key)) duplicates++;
      keys.add(key);
    }
    byStore[file.replace(/\.jsonl$/, '')] = keys.size;
  }
  return { byStore, duplicates };
}

/** Every JSONL file under a folder, each line whole JSON and the last ending its line: none half-written. */
export function tornFiles(dir: string): string[] {
  const torn: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.jsonl') || entry.name.endsWith('.json')) {
        const text = readFileSync(path, 'utf8');
        if (entry.name.endsWith('.json')) {
          try {
            JSON.parse(text);
          } catch {
            torn.push(path);
          }
          continue;
        }
        if (text !== '' && !text.endsWith('\n')) torn.push(path);
        for (const line of text.split('\n').filter((l) => l.trim() !== ''))
          try {
            JSON.parse(line);
          } catch {
            torn.push(path);
          }
      }
    }
  };
  walk(dir);
  return torn;
}
