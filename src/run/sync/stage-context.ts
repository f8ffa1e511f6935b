/**
 * What the stages of a run share while they run: the errors by cell, why the run stopped (the budget
 * cap, a stop signal), the counts, the progress line, and one recovery of the ledger at a time after a stopped
 * process's leases were taken over.
 */
import { redactSecrets } from '../../providers/credentials.ts';
import { BudgetExceededError } from '../../store/ledger.ts';
import { recoverLedger } from '../../store/recover.ts';
import type { Estimate } from '../../store/run-state.ts';
import { ContractError, SystemFailure } from '../../system/index.ts';
import { errorMessage } from '../../util/errors.ts';
import { stoppedBy } from '../../util/stop-signal.ts';
import type { RunSession } from '../session/open.ts';

export interface StageOptions {
  signal?: AbortSignal;
  /** progress and notices (one line each) */
  log?: (line: string) => void;
  /** skip the pre-flight refusal (tests of the cap itself) */
  skipPreflight?: boolean;
  /** the clock, in milliseconds (tests inject one) */
  now?: () => number;
  /**
   * How much the stages say (default 'full'): 'full' a progress line every 5 s and a line per batch
   * whenever its counts change; 'summary' (CI, a log that is not a terminal) the progress line once,
   * at the end of the stage, and a batch's line only when its state changes; 'quiet' (`--quiet`) as
   * 'summary', with the pre-flight estimate in one line. Notices, warnings and errors are always said.
   */
  output?: StageOutput;
  /**
   * Only collect the batches the results folder records (`rge results batches --collect`): nothing is
   * submitted and nothing is asked in sync; the cells they do not answer stay missing.
   */
  collectOnly?: boolean;
  /**
   * Called with the pre-flight estimate once it is said (and the cap's pre-flight passed), before the
   * run state is written and before the first call: what it throws ends the run there, nothing called
   * (`rge eval watch` asks for a key press above `--confirm-above`).
   */
  beforeCalls?: (estimate: Estimate) => Promise<void>;
}

export type StageOutput = 'full' | 'summary' | 'quiet';

/** Calls that must finish after the first one before the progress line gives a time left. */
export const MIN_CALLS_FOR_ETA = 5;

/**
 * Whether an error is the subject's own failure to answer: a user's system threw, timed out, exited
 * non-zero, replied with something that is not JSON or with an HTTP error (`SystemFailure`), or answered
 * off the contract (`ContractError`). A stop (the budget cap, Ctrl-C), a judge's failure and rge's own
 * errors (a store, a provider rge calls for a model) are not.
 */
export const isSubjectFailure = (err: unknown): boolean =>
  err instanceof SystemFailure || err instanceof ContractError;

export class StageContext {
  readonly errors = new Map<string, string>();
  /** the cells of `errors` that the subject itself gave no answer for (`isSubjectFailure`) */
  readonly subjectFailures = new Set<string>();
  /** why the run stopped starting cells: the budget cap, or a stop (its signal aborted) */
  stopped: Error | null = null;
  /** one recovery of the ledger at a time, after leases of a stopped process were taken over */
  private recovering: Promise<void> = Promise.resolve();
  readonly counts = {
    answers: { computed: 0, reused: 0, failed: 0 },
    verdicts: { computed: 0, reused: 0, failed: 0 },
    batches: 0,
  };

  /** calls the run still had to make when it started (for the progress line) */
  expectedCalls = 0;
  private readonly now: () => number;
  private lastProgress: number;
  /** when the first call finished and how many had by then: the rate is measured from there */
  private firstDone: { at: number; done: number } | null = null;

  constructor(
    readonly run: RunSession,
    readonly opts: StageOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.lastProgress = this.now();
    // a stop (a signal, Ctrl-C) stops the run at once: no new cell starts, as at the cap
    const signal = opts.signal;
    if (signal?.aborted) this.stopFor(signal);
    else signal?.addEventListener('abort', () => this.stopFor(signal), { once: true });
  }

  /** Why the run stops when its signal aborts: the signal that stopped it (or an interruption). */
  private stopFor(signal: AbortSignal): void {
    if (this.stopped) return;
    this.stopped =
      stoppedBy(signal) ??
      new Error(
        'interrupted: the run was stopped before this cell was asked; rerun the same command to resume',
      );
  }

  /** Whether progress is said as it goes ('full'), or once a stage ends. */
  get periodic(): boolean {
    return (this.opts.output ?? 'full') === 'full';
  }

  /** Says a line (keys redacted, wherever the line's text came from). */
  log(line: string): void {
    this.opts.log?.(redactSecrets(line));
  }

  /**
   * A progress line (at most one every 5 s, and the last): calls done, failed, left, and the time left.
   * The rate is measured from the first call that finished, not from the start (the index, the plan
   * and the first replies' latency would dominate it), and only once MIN_CALLS_FOR_ETA more finished;
   * before that the line says "estimating the time left".
   */
  progress(final = false): void {
    const c = this.counts;
    const done = c.answers.computed + c.verdicts.computed;
    const failed = c.answers.failed + c.verdicts.failed;
    const now = this.now();
    if (done > 0 && this.firstDone === null) this.firstDone = { at: now, done };
    if (this.expectedCalls === 0 || (!final && (!this.periodic || now - this.lastProgress < 5000))) return;
    this.lastProgress = now;
    const left = Math.max(0, this.expectedCalls - done - failed);
    this.log(
      `progress: ${c.answers.computed} answers and ${c.verdicts.computed} verdicts done, ${failed} failed, ${left} calls to go${left > 0 ? `, ${this.timeLeft(done, left, now)}` : ''}`,
    );
  }

  /** "about N s left" at the rate since the first call finished, or "estimating the time left". */
  private timeLeft(done: number, left: number, now: number): string {
    const first = this.firstDone;
    const since = first ? done - first.done : 0;
    const ms = first ? now - first.at : 0;
    if (!first || since < MIN_CALLS_FOR_ETA || ms <= 0) return 'estimating the time left...';
    return `about ${Math.ceil((left * ms) / since / 1000)} s left`;
  }

  /**
   * Settles in the ledger what the stopped processes whose leases this run took over left open (their
   * calls' records, else shown as unknown: never spend), one recovery at a time.
   */
  recoverTakenOver(): Promise<void> {
    const next = this.recovering.then(() => recoverLedger(this.run, (line) => this.log(line)));
    this.recovering = next.catch(() => undefined);
    return next;
  }

  private shared = false;

  /** Says once that another process is computing cells of this run, which this run waits for. */
  sharing(pid: number | undefined): void {
    if (this.shared) return;
    this.shared = true;
    this.log(
      `another process${pid === undefined ? '' : ` (pid ${pid})`} is computing cells of this run in the same results folder: ` +
        'this run waits for its results instead of paying for them twice',
    );
  }

  fail(cellId: string, err: unknown): void {
    if (err instanceof BudgetExceededError) {
      if (!this.stopped) {
        this.stopped = err;
        this.log(err.message);
      }
    }
    this.errors.set(cellId, redactSecrets(errorMessage(err)));
    // a call cut by a stop (Ctrl-C) may fail as the system's timeout: the stop's, not the subject's
    if (isSubjectFailure(err) && !this.opts.signal?.aborted) this.subjectFailures.add(cellId);
    else this.subjectFailures.delete(cellId);
  }
}
