/**
 * Tests open runs as a one-process tool does: a request (validated by the run's own schema), planned and
 * opened (src/run/open.ts `openRun`). The options mix the request's fields with where and how to open.
 */
import type { OpenContext } from '../../src/run/open.ts';
import { openRun, type RunSession } from '../../src/run/open.ts';
import { parseRunRequest, type RunRequestInput } from '../../src/run/request.ts';

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
