/**
 * The run request: one schema for both front doors. A bad value is the same usage error (exit 2)
 * whichever door it came through, named as the flag (`rge eval run`) or the variable (`npx vitest run
 * evals`) it came from; 0 questions or 0 runs is an error, never a run of nothing.
 */
import { describe, expect, it } from 'vitest';
import { parseRunRequest, requestFromEnv } from '../../src/run/plan/request.ts';
import { UsageError } from '../../src/util/errors.ts';

function usageError(f: () => unknown): UsageError {
  try {
    f();
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error('no usage error');
}

describe('a run request', () => {
  it('has the defaults of `npx vitest run evals` when nothing is given', () => {
    expect(requestFromEnv({})).toEqual({
      config: 'configs/fixture.yaml',
      overrides: [],
      stages: 'run',
      resultsDir: 'data/results',
      reportsDir: 'reports',
    });
  });

  it('reads every RGE_* variable into the same request the flags make', () => {
    const env = requestFromEnv({
      RGE_CONFIG: 'configs/ci.yaml',
      RGE_SET: '["runs=2","seed=x"]',
      RGE_SUBJECTS: 'a, b',
      RGE_QUESTIONS: '20',
      RGE_RUNS: '3',
      RGE_MODE: 'batch',
      RGE_STAGES: 'done',
      RGE_RESULTS_DIR: 'out/results',
      RGE_REPORTS_DIR: 'out/reports',
      RGE_CASES: '',
      UNRELATED: 'x',
    });
    const flags = parseRunRequest(
      {
        config: 'configs/ci.yaml',
        overrides: ['runs=2', 'seed=x'],
        subjects: 'a,b',
        questions: '20',
        runs: '3',
        mode: 'batch',
        stages: 'done',
        resultsDir: 'out/results',
        reportsDir: 'out/reports',
      },
      'flags',
    );
    expect(env).toEqual(flags);
    expect(env).toMatchObject({ subjects: ['a', 'b'], questions: 20, runs: 3, mode: 'batch' });
  });

  it('names the variable in the env door and the flag in the flags door, with the value given', () => {
    expect(usageError(() => requestFromEnv({ RGE_SAMPLE: 'abc' })).message).toBe(
      'RGE_SAMPLE must be a positive integer, got "abc"',
    );
    expect(usageError(() => parseRunRequest({ sample: 'abc' }, 'flags')).message).toBe(
      '--sample must be a positive integer, got "abc"',
    );
    expect(usageError(() => requestFromEnv({ RGE_MODE: 'fast' })).message).toBe(
      'RGE_MODE must be one of sync, batch, got "fast"',
    );
    expect(usageError(() => requestFromEnv({ RGE_SET: 'runs=2' })).message).toBe(
      'RGE_SET must be a JSON array of "path=value" strings, got "runs=2"',
    );
    expect(usageError(() => parseRunRequest({ overrides: ['runs'] })).message).toBe(
      '--set takes path=value, got "runs"',
    );
    expect(usageError(() => requestFromEnv({ RGE_STAGES: 'skip' })).message).toMatch(/^RGE_STAGES /);
  });

  it('refuses 0 runs, 0 questions and a sample of 0, in both doors (exit 2)', () => {
    for (const [env, flag] of [
      ['RGE_RUNS', 'runs'],
      ['RGE_QUESTIONS', 'questions'],
      ['RGE_SAMPLE', 'sample'],
    ] as const) {
      const fromEnv = usageError(() => requestFromEnv({ [env]: '0' }));
      expect(fromEnv.exitCode).toBe(2);
      expect(fromEnv.message).toBe(`${env} must be a positive integer, got "0"`);
      expect(usageError(() => parseRunRequest({ [flag]: 0 })).message).toBe(
        `--${flag} must be a positive integer, got 0`,
      );
    }
    expect(usageError(() => requestFromEnv({ RGE_RUNS: '1.5' })).message).toMatch(/positive integer/);
    expect(usageError(() => requestFromEnv({ RGE_SUBJECTS: ',' })).message).toMatch(
      /^RGE_SUBJECTS has an empty id/,
    );
  });

  it('lets a sample draw its own questions, naming the others in its door', () => {
    expect(usageError(() => requestFromEnv({ RGE_SAMPLE: '5', RGE_CASES: 'gd-001' })).message).toBe(
      'RGE_SAMPLE draws its own questions: give it without RGE_QUESTIONS or RGE_CASES',
    );
    expect(usageError(() => parseRunRequest({ sample: 5, questions: 3 })).message).toBe(
      '--sample draws its own questions: give it without --questions or --case',
    );
  });

  it('lists every problem at once, and refuses a field that is not part of a request', () => {
    const err = usageError(() => requestFromEnv({ RGE_RUNS: '0', RGE_QUESTIONS: 'x' }));
    expect(err.message).toBe(
      'RGE_QUESTIONS must be a positive integer, got "x"; RGE_RUNS must be a positive integer, got "0"',
    );
    expect(usageError(() => parseRunRequest({ rounds: 2 })).message).toBe(
      'rounds: not part of a run request',
    );
  });
});
