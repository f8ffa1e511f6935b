/**
 * Tests open runs as a one-process tool does: a request (validated by the run's own schema), planned and
 * opened (src/run/session/open.ts `openRun`). The options mix the request's fields with where and how to open.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseRunRequest, type RunRequestInput } from '../../src/run/plan/request.ts';
import type { OpenContext } from '../../src/run/session/open.ts';
import { openRun, type RunSession } from '../../src/run/session/open.ts';

export type TestRunOptions = RunRequestInput & OpenContext;

export async function openTestRun(opts: TestRunOptions): Promise<RunSession> {
  const { root, log, env, dryRun, calls, ...request } = opts;
  return openRun(parseRunRequest(request), {
    root,
    ...(log ? { log } : {}),
    ...(env ? { env } : {}),
    ...(dryRun !== undefined ? { dryRun } : {}),
    ...(calls !== undefined ? { calls } : {}),
  });
}

/** The ids of the first `perCategory` questions of each category of fixtures/questions.jsonl, in file order. */
export async function fixtureQuestionsPerCategory(root: string, perCategory: number): Promise<string[]> {
  const questions = (await readFile(join(root, 'fixtures/questions.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: string; category: string });
  const taken = new Map<string, number>();
  return questions
    .filter((q) => {
      const n = taken.get(q.category) ?? 0;
      taken.set(q.category, n + 1);
      return n < perCategory;
    })
    .map((q) => q.id);
}
