/**
 * The crash test shared by the sync and batch runs: start a live run in a child process, SIGKILL it at a
 * seeded random moment after its stages begin, 20 times, then let it finish; then check that no cell
 * was lost or duplicated, no batch was paid twice, and the ledger equals the recorded costs.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { bundledModule } from '../../../src/util/bundle.ts';
import { worldOverrides } from '../../helpers/fixture-world.ts';
import { liveEnv, liveOverrides, root } from '../../helpers/live.ts';
import type { LoopbackServers } from '../../loopback/index.ts';

export interface CrashSettings {
  resultsDir: string;
  mode: 'sync' | 'batch';
  questions: number;
  runs: number;
  extraOverrides?: string[];
  subjects?: string[];
}

function overridesOf(c: CrashSettings): string[] {
  return [...liveOverrides(), ...(c.extraOverrides ?? [])];
}

/** Builds the test run's bm25 fixture world (once per test run), so children start fast. */
export async function buildCorpus(): Promise<void> {
  await worldOverrides('bm25');
}

interface ChildOutcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

const CHILD = join(root, 'test/run/crash/stages-child.ts');

/**
 * How the child starts: its esbuild bundle (src/util/bundle.ts), which saves each of the 40-odd
 * children of a crash test about 2.5 s of CPU in tsx's loader; the sources through tsx if it
 * cannot be built.
 */
async function childArgs(): Promise<string[]> {
  const bundle = await bundledModule(CHILD);
  return bundle ? [bundle] : ['--import', 'tsx', CHILD];
}

/** A named point of a run: the first line it prints (after its stages begin) that matches `line`. */
export interface KillPoint {
  line: RegExp;
}

/**
 * Runs the child; with `kill`, kills it that many ms after its stages begin, or as soon as it prints the
 * line of a kill point.
 */
export async function runChild(
  c: CrashSettings,
  servers: LoopbackServers,
  kill: number | KillPoint | null,
): Promise<ChildOutcome> {
  const args = await childArgs();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: {
        ...process.env,
        RGE_CHILD: JSON.stringify({
          root,
          resultsDir: c.resultsDir,
          env: liveEnv(servers),
          overrides: overridesOf(c),
          questions: c.questions,
          runs: c.runs,
          mode: c.mode,
          ...(c.subjects ? { subjects: c.subjects } : {}),
        }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let armed = false;
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      if (armed || kill === null || !out.includes('STAGES')) return;
      if (typeof kill === 'number') {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), kill);
      } else if (kill.line.test(out.slice(out.indexOf('STAGES')))) {
        armed = true;
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, out, err }));
  });
}

/**
 * Kills at seeded random moments within `windowMs` of the stages' start until `kills` children died
 * mid-run, then a run to the end. A child that finishes before its kill moment ends a round: the next
 * round asks for `step` more questions (new cells, new batches), so every kill lands in live work.
 * Returns the number of questions of the last round.
 */
export async function killAndResume(
  c: CrashSettings,
  servers: LoopbackServers,
  opts: { kills: number; windowMs: number; seed: string; step?: number },
): Promise<{ killed: number; rounds: number; questions: number; finished: ChildOutcome }> {
  const random = seedrandom(opts.seed);
  let killed = 0;
  let rounds = 1;
  let current = c;
  while (killed < opts.kills) {
    const outcome = await runChild(current, servers, Math.floor(random() * opts.windowMs));
    if (outcome.signal === 'SIGKILL') killed++;
    else if (outcome.code !== 0)
      throw new Error(`a child failed (${outcome.code}): ${outcome.err || outcome.out}`);
    else {
      rounds++;
      current = { ...current, questions: current.questions + (opts.step ?? 2) };
    }
  }
  const finished = await runChild(current, servers, null);
  if (finished.code !== 0)
    throw new Error(`the last run failed (${finished.code}): ${finished.err || finished.out}`);
  return { killed, rounds, questions: current.questions, finished };
}
