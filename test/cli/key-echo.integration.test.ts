/**
 * A wrong OpenAI key through `rge eval run`, as a user meets it: OpenAI's 401 echoes the key masked,
 * its first 8 and last 4 characters around asterisks (the loopback fake does the same, test/loopback/
 * openai.ts `maskedKey`). In sync mode (a chat completion refused) and in batch mode (the batch input
 * file's upload refused, the record saved with the error, then the sync fallback refused), nothing of
 * the key reaches the terminal or any file the run writes: not the key, not its masked form, not its
 * first 8 or last 4 characters.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnRge } from '../helpers/child.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { filesUnder, liveEnv, liveOverrides, serverKeys } from '../helpers/live.ts';
import { type LoopbackServers, startLoopbackServers } from '../loopback/index.ts';
import { maskedKey } from '../loopback/openai.ts';

/** A wrong key of the shape of a project key: a public prefix, then what only its owner knows. */
const WRONG = 'sk-proj-LEAKMASK7hQ2vN9xR4tY6uJ1kL3zW8cB5nM0pA2sD4fG6hJ8kT3Xq';
/** What of it must appear nowhere: the key, its masked form, its first 8 (past `sk-proj-`) and last 4. */
const FRAGMENTS = [WRONG, maskedKey(WRONG), 'LEAKMASK', 'T3Xq', '****'];

describe('rge eval run with a wrong OpenAI key that the API echoes masked', () => {
  let s: LoopbackServers;
  beforeAll(async () => {
    await worldOverrides('bm25');
    s = await startLoopbackServers({ latencyMs: 1 }, serverKeys);
  }, 600_000);
  afterAll(async () => {
    await s.close();
  });

  for (const mode of ['sync', 'batch'] as const) {
    it(`${mode}: the cell fails on the 401, and no fragment of the key is printed or written`, async () => {
      const dir = await mkdtemp(join(tmpdir(), `rge-key-echo-${mode}-`));
      const outcome = await spawnRge(
        [
          ...['eval', 'run', '--config', 'configs/published.yaml', '--subjects', 'gpt'],
          ...['--questions', '1', '--runs', '1', '--mode', mode],
          ...['--results-dir', join(dir, 'results'), '--reports-dir', join(dir, 'reports')],
          ...liveOverrides().flatMap((o) => ['--set', o]),
        ],
        { ...liveEnv(s), OPENAI_API_KEY: WRONG },
      );
      expect(outcome.code, outcome.err).toBe(1);
      expect(outcome.out).toMatch(/1 cases, 0 reused, 1 failed/);
      // the fake did answer with the masked key, and rge said the 401 with the key redacted
      expect(outcome.err).toContain('openai 401: 401 Incorrect API key provided: [redacted]. You can find');
      const written = filesUnder(dir).filter((f) => existsSync(f));
      if (mode === 'batch') {
        const records = written.filter((f) => f.includes('.batches'));
        expect(records).toHaveLength(1);
        expect(JSON.parse(readFileSync(records[0] as string, 'utf8'))).toMatchObject({
          status: 'failed',
          error: expect.stringContaining('Incorrect API key provided: [redacted].'),
        });
        expect(outcome.err).toMatch(/submission failed \(.*Incorrect API key provided: \[redacted\]\./);
      }
      for (const fragment of FRAGMENTS) {
        expect(outcome.out, fragment).not.toContain(fragment);
        expect(outcome.err, fragment).not.toContain(fragment);
        for (const file of written)
          expect(readFileSync(file, 'utf8').includes(fragment), `${fragment} in ${file}`).toBe(false);
      }
    }, 240_000);
  }
});
