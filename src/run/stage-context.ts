/**
 * What the stages of a run share while they run: the errors by cell, why the run stopped (the budget
 * cap), the counts, the progress line, and one recovery of the ledger at a time after a stopped
 * process's leases were taken over.
 */
import { redactSecrets } from '../providers/credentials.ts';
import { BudgetExceededError } from '../store/ledger.ts';
import { recoverLedger } from '../store/recover.ts';
import { errorMessage } from '../util/errors.ts';
import type { RunSession } from './open.ts';

export interface StageOptions {
  signal?: AbortSignal;
  /** progress and notices (one line each) */
  log?: (line: string) => void;
  /** skip the pre-flight refusal (tests of the cap itself) */
  skipPreflight?: boolean;
}

export class StageContext {
  readonly errors = new Map<string, string>();
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
  private lastProgress = Date.now();
  private readonly started = Date.now();

  constructor(
    readonly run: RunSession,
    readonly opts: StageOptions,
  ) {}

  /** Says a line (keys redacted, wherever the line's text came from). */
  log(line: string): void {
    this.opts.log?.(redactSecrets(line));
  }

  /** A progress line (at most one every 5 s, and the last): calls done, failed, left, and an ETA. */
  progress(final = false): void {
    const c = this.counts;
    const done = c.answers.computed + c.verdicts.computed;
    const failed = c.answers.failed + c.verdicts.failed;
    const now = Date.now();
    if (this.expectedCalls === 0 || (!final && now - this.lastProgress < 5000)) return;
    this.lastProgress = now;
    const left = Math.max(0, this.expectedCalls - done - failed);
    const rate = done / Math.max(1, now - this.started);
    const eta = left > 0 && rate > 0 ? `, about ${Math.ceil(left / rate / 1000)} s left` : '';
    this.log(
      `progress: ${c.answers.computed} answers and ${c.verdicts.computed} verdicts done, ${failed} failed, ${left} calls to go${eta}`,
    );
  }

  /**
   * Settles in the ledger what the stopped processes whose leases this run took over left open (their
   * calls' records, else worst-case bookings), one recovery at a time.
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
  }
}
