/**
 * `rge eval watch` with a paid subject (issue 53): a self-hosted model (openai-compatible, priced in the
 * config) served by the loopback OpenAI server, judged by the offline judges. Before any paid call the
 * watch says the cost estimate; above `--confirm-above` it waits for a key press on its terminal (a
 * pseudo-terminal here): q skips the run with nothing called, Enter runs it, Ctrl-C (a byte in the
 * terminal's raw mode) stops it before any call. A stdin that is not a terminal cannot be asked: the run
 * is skipped, saying so. Below the threshold nothing is asked.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenAILoopbackServer, startOpenAIServer } from '../loopback/index.ts';
import { hasScript, WatchChild, watchWorld } from './watch/child.ts';

const KEY = 'sk-rge-watch-test-0d5e';
const PROMPT_LINE =
  /^the estimate of \$[\d.]+ is above --confirm-above \$0\.0000: press Enter to run it, q to skip$/m;

describe('rge eval watch: the estimate before paid calls, and the key press above --confirm-above', () => {
  let server: OpenAILoopbackServer;
  let dir: string;
  let config: string;
  const children: WatchChild[] = [];
  const calls = () => server.calls.length;
  /** A watch of 2 questions with its own results folder. */
  const start = (name: string, args: string[], pty = false) => {
    const child = new WatchChild(
      [
        ...['--config', config, '--questions', '2', '--debounce', '150'],
        ...[
          '--results-dir',
          join(dir, name, 'results'),
          '--reports-dir',
          join(dir, name, 'reports'),
          ...args,
        ],
      ],
      { env: { LOCAL_LLM_KEY: KEY }, pty },
    );
    children.push(child);
    return child;
  };
  const editPrompt = async (from: string, to: string) => {
    const prompt = join(dir, 'prompt.md');
    await writeFile(prompt, (await readFile(prompt, 'utf8')).replace(from, to));
  };

  beforeAll(async () => {
    server = await startOpenAIServer({ apiKey: KEY });
    dir = await mkdtemp(join(tmpdir(), 'rge-eval-watch-paid-'));
    config = await watchWorld(dir, [
      {
        id: 'local',
        provider: 'openai-compatible',
        base_url: server.url,
        api_key_env: 'LOCAL_LLM_KEY',
        model: 'local-model',
        family: 'meta',
        temperature: 0,
        max_tokens: 256,
        prices: { input: 2, output: 8, cache_read: 0, cache_write: 0, batch_discount: 0 },
      },
    ]);
    // a budget the estimate fits in
    await writeFile(
      config,
      (await readFile(config, 'utf8')).replace(/cap_usd: 0\n {2}warn_usd: 0/, 'cap_usd: 1\n  warn_usd: 0.5'),
    );
  }, 600_000);
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop()));
    await server?.close();
  });

  it.skipIf(!hasScript())(
    'on a terminal: the estimate, then q skips with nothing called, Enter runs, Ctrl-C stops before any call',
    async () => {
      const watch = start('tty', ['--confirm-above', '0'], true);
      await watch.until(PROMPT_LINE);
      const asked = watch.output;
      expect(asked.indexOf('estimate for run ci-')).toBeGreaterThanOrEqual(0);
      expect(asked.indexOf('estimate for run ci-')).toBeLessThan(asked.search(PROMPT_LINE));
      expect(calls()).toBe(0);
      watch.type('q');
      await watch.until(/^watching /m);
      expect(watch.output).toMatch(/^skipped: nothing was called; the next change plans it again$/m);
      expect(calls()).toBe(0);

      await editPrompt('6. Be brief: answer the question asked, then stop.', '6. Be brief.');
      await watch.until(PROMPT_LINE, 2);
      expect(calls()).toBe(0);
      watch.type('\r');
      await watch.until(/^watching /m, 2);
      expect(watch.output).toMatch(/answers computed 2, verdicts computed 4; spent \$0\.0\d+/);
      expect(calls()).toBe(2);

      await editPrompt('6. Be brief.', '6. Be brief, and exact.');
      await watch.until(PROMPT_LINE, 3);
      watch.type('\u0003');
      expect(await watch.exited).toBe(130);
      expect(watch.output).toMatch(/rge: stopped by Ctrl-C \(SIGINT\): .* \(before any call\)/);
      expect(calls()).toBe(2);
    },
    600_000,
  );

  it('without a terminal: above the threshold the run is skipped, saying so; below it, it runs unasked', async () => {
    const before = calls();
    const piped = start('piped', ['--confirm-above', '0']);
    await piped.until(/^watching /m);
    expect(piped.output).toMatch(/estimate for run ci-/);
    expect(piped.output).toMatch(
      /the estimate of \$[\d.]+ is above --confirm-above \$0\.0000 and stdin is not a terminal, so no key can be pressed: skipped, nothing was called/,
    );
    expect(calls()).toBe(before);
    piped.signal('SIGTERM');
    expect(await piped.exited).toBe(143);

    const below = start('below', ['--confirm-above', '5']);
    await below.until(/^watching /m);
    expect(below.output).toMatch(/estimate for run ci-/);
    expect(below.output).not.toMatch(/press Enter/);
    expect(below.output).toMatch(/answers computed 2, verdicts computed 4;/);
    expect(calls()).toBe(before + 2);
  }, 600_000);
});
