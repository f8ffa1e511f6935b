/**
 * The stages of a run: subject answers, then judge verdicts (which need the answers), each stored in its
 * own cell store as it completes, so each stage resumes on its own after a crash; then the checks of every
 * stored answer that has none (answer-checks.ts: no call, stored beside the answers). Vitest cases then
 * read the completed stores (case/case.ts).
 *
 * Sync mode runs every cell at once and lets each provider's limiter (concurrency, requests and tokens
 * per minute) pace the calls; a cell's verdicts are asked as soon as its answer is in (judge calls have
 * priority, so finished cells accumulate). Batch mode submits the missing answers of each live model as
 * provider batches (see batch/batches.ts), waits, then does the same for the verdicts; what cannot go in a
 * batch (offline providers, openai-compatible) and what a batch did not return runs in sync mode.
 *
 * Before the first call: the ledger recovers what crashed processes left open, and the pre-flight
 * estimate is printed (in batch mode with its batch plan); a run whose expected cost exceeds what the
 * cap leaves it (batch/plan.ts `leftForRun`: with what a stopped run's batches hold, which this run
 * resumes) is refused. When a call would cross the cap, the run stops cleanly: no new call starts, calls
 * in flight finish, and every cell not computed fails with the ledger's message. A batch that does not
 * fit is not refused: it is sized to what the cap leaves, and the rest waits for earlier batches to
 * settle (batch/waves.ts). A stop (the caller's signal aborted: SIGINT, SIGTERM, SIGHUP) stops the run
 * the same way at once: no new cell starts, the calls in flight are aborted (their reservations
 * released), and the run state says which signal stopped it (docs/adr/0034).
 */
import { setMaxListeners } from 'node:events';
import type { BudgetLedger } from '../../store/ledger.ts';
import { recoverLedger } from '../../store/recover.ts';
import { type Estimate, type RunState, writeRunState } from '../../store/run-state.ts';
import { RgeError } from '../../util/errors.ts';
import { StoppedBySignal } from '../../util/stop-signal.ts';
import { collectBeforeSync, runBatches } from '../batch/batches.ts';
import { leftForRun } from '../batch/plan.ts';
import { estimateRun } from '../estimate/estimate.ts';
import { estimateLine, formatEstimate } from '../estimate/format.ts';
import type { RunSession } from '../session/open.ts';
import type { SubjectCell } from '../session/work.ts';
import { StageContext, type StageOptions } from '../sync/stage-context.ts';
import { runSyncCells } from '../sync/sync.ts';
import { storeAnswerChecks } from './answer-checks.ts';

export { StageContext, type StageOptions, type StageOutput } from '../sync/stage-context.ts';

type PayerTotals = ReturnType<BudgetLedger['summary']>['byPayer'];

/**
 * What the run spent since `before` (its stages' start, after the ledger's recovery), and the unknown
 * amount since `unknownBefore` (before that recovery: the calls of killed processes this run found).
 */
function spendSince(before: PayerTotals, unknownBefore: number, ledger: BudgetLedger): RunState['spend'] {
  const now = ledger.refresh();
  const key = (p: { provider: string; model: string; role: string }) => `${p.provider}/${p.model}/${p.role}`;
  const prior = new Map(before.map((p) => [key(p), p]));
  const byPayer = now.byPayer
    .map((p) => ({
      provider: p.provider,
      model: p.model,
      role: p.role,
      usd: p.spentUsd - (prior.get(key(p))?.spentUsd ?? 0),
      calls: p.calls - (prior.get(key(p))?.calls ?? 0),
    }))
    .filter((p) => p.calls > 0);
  return {
    usd: byPayer.reduce((sum, p) => sum + p.usd, 0),
    unknown_usd: now.unknownUsd - unknownBefore,
    by_payer: byPayer,
  };
}

function stateOf(
  ctx: StageContext,
  estimate: Estimate | null,
  started: string,
  finished: string | null,
  spend: RunState['spend'],
): RunState {
  return {
    run_id: ctx.run.plan.info.runId,
    mode: ctx.run.plan.info.mode,
    started_at: started,
    finished_at: finished,
    estimate,
    errors: Object.fromEntries(ctx.errors),
    subject_failures: [...ctx.subjectFailures].filter((id) => ctx.errors.has(id)).sort(),
    stopped: ctx.stopped?.message ?? null,
    stop_signal: ctx.stopped instanceof StoppedBySignal ? ctx.stopped.signal : null,
    warnings: [],
    counts: ctx.counts,
    spend,
    budget_warnings: ctx.run.ledger
      .summary()
      .warnings.map((w) => `$${w.spent.toFixed(4)} spent passed the warning level of $${w.warn} (${w.at})`),
  };
}

export interface StagesOutcome {
  state: RunState;
  cells: SubjectCell[];
  estimate: Estimate;
}

/**
 * Runs the answer and verdict stages of a prepared run to completion (or to the cap), in the run's mode,
 * and writes the run state file. Throws only for a refused pre-flight or a usage problem; call failures
 * are recorded per cell.
 */
export async function runStages(run: RunSession, opts: StageOptions = {}): Promise<StagesOutcome> {
  if (run.dryRun) throw new RgeError('a dry run calls nothing');
  const started = new Date().toISOString();
  const cells = await run.work.cells();
  const stop = opts.signal ? runSignal(opts.signal, run, cells.length) : null;
  try {
    return await stagesOf(run, new StageContext(run, stop ? { ...opts, signal: stop.signal } : opts), {
      started,
      cells,
    });
  } finally {
    stop?.detach();
    // the cells this process still holds (a stop, an error) are free for the next run at once
    await run.leases.close();
    run.inbox.close();
  }
}

/**
 * The signal the run's calls listen to, following the caller's: every call of the run may listen to it
 * at once (each call in flight or backing off adds one abort listener and removes it when it ends: a
 * cell's answer, then its panel's verdicts side by side; and the batch polls), far more than the 10
 * listeners after which Node warns of a leak. Its limit is that many; past it, a listener is a leak.
 */
function runSignal(
  outer: AbortSignal,
  run: RunSession,
  cells: number,
): { signal: AbortSignal; detach: () => void } {
  const controller = new AbortController();
  const panel = Math.max(1, ...run.plan.subjects.map((s) => run.work.panel(s).length));
  setMaxListeners(cells * panel + 16, controller.signal);
  const follow = () => controller.abort(outer.reason);
  if (outer.aborted) follow();
  else outer.addEventListener('abort', follow, { once: true });
  return { signal: controller.signal, detach: () => outer.removeEventListener('abort', follow) };
}

async function stagesOf(
  run: RunSession,
  ctx: StageContext,
  { started, cells }: { started: string; cells: SubjectCell[] },
): Promise<StagesOutcome> {
  const opts = ctx.opts;
  const unknownBefore = run.ledger.refresh().unknownUsd;
  await recoverLedger(run, opts.log);
  const before = run.ledger.refresh();
  const noSpend: RunState['spend'] = { usd: 0, unknown_usd: 0, by_payer: [] };
  const estimate = await estimateRun(run);
  run.ledger.refresh();
  const left = leftForRun(run.ledger);
  if (estimate.totals.calls > 0 && estimate.totals.expectedUsd > 0) {
    const budget = { capUsd: run.plan.config.budget.cap_usd, leftUsd: left };
    opts.log?.(
      (opts.output === 'quiet' ? estimateLine(estimate, budget) : formatEstimate(estimate, budget)).trimEnd(),
    );
    if (!opts.skipPreflight && estimate.totals.expectedUsd > left)
      throw new RgeError(
        `pre-flight: the estimate of $${estimate.totals.expectedUsd.toFixed(2)} exceeds the $${left.toFixed(2)} left ` +
          `of the $${run.plan.config.budget.cap_usd} cap; nothing was called. Narrow the run (--subjects, --questions, ` +
          `--runs) or raise budget.cap_usd in ${run.plan.info.configFile}.`,
      );
  }
  await opts.beforeCalls?.(estimate);
  await writeRunState(run.plan.info.stateFile, stateOf(ctx, estimate, started, null, noSpend));
  ctx.expectedCalls = estimate.totals.calls;
  if (run.plan.info.mode === 'batch') await runBatches(ctx, cells);
  else {
    await collectBeforeSync(ctx, cells);
    await runSyncCells(ctx, cells);
  }
  ctx.progress(true);
  await storeAnswerChecks(ctx, cells);
  await run.ledger.writeSummary();
  const spend = spendSince(before.byPayer, unknownBefore, run.ledger);
  const state = stateOf(ctx, estimate, started, new Date().toISOString(), spend);
  await writeRunState(run.plan.info.stateFile, state);
  return { state, cells, estimate };
}
