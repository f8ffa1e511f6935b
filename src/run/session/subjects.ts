/**
 * The harness's one shape: every subject answers a cell with its answer and the contexts it answered
 * from. Two kinds fill it:
 *
 * - rge's pipeline (`PipelineSubject`): the question's top-k of rge's index, rendered with the subject
 *   prompt and sent to a model through its provider (metered: reserved, rate-limited, retried, priced);
 *   its contexts are rge's chunks, so its records store none.
 * - a user's own system (`SystemSubject`, the contract of src/system): asked the question alone
 *   (module, http, command); its answer carries the contexts it retrieved, stored with the record, which
 *   the judges and checks read. rge pays nothing for it: a cost the system reports is booked in the
 *   budget ledger after the answer, and a run whose booked spend is past the cap asks nothing more.
 */
import { randomUUID } from 'node:crypto';
import { MeteredProvider } from '../../providers/metered.ts';
import type { MeteredBatch } from '../../providers/metered-batch.ts';
import { COMPLETE, type ModelReply, type Provider, ZERO_USAGE } from '../../providers/types.ts';
import type { BudgetLedger } from '../../store/ledger.ts';
import type { SystemAnswer, SystemContext, SystemToolCall, SystemUnderTest } from '../../system/contract.ts';
import { Slots } from '../../util/slots.ts';
import type { PlannedSubject } from '../plan/plan.ts';
import type { SubjectCell } from './work.ts';

/** Bottleneck priority of subject calls: after judge calls (judging/calls.ts), so that started cells finish. */
const SUBJECT_PRIORITY = 5;

/** A subject's reply to a cell: a model's reply, and a system's own contexts and trace. */
export interface SubjectReply extends ModelReply {
  contexts?: SystemContext[];
  trace?: SystemToolCall[];
}

export interface SubjectCallOptions {
  signal?: AbortSignal | undefined;
  /** called when the call may start (its cell's lease is then claimed); throws to give way */
  beforeSend: () => Promise<void>;
}

/** A subject as the stages call it. */
export interface SubjectSystem {
  answer(cell: SubjectCell, opts: SubjectCallOptions): Promise<SubjectReply>;
  /** the batch API its calls can go through (a live model's), else null: its cells run as sync calls */
  readonly batch: MeteredBatch | null;
  /** frees what it holds (a system's processes or sockets) */
  close(): Promise<void>;
}

/** rge's pipeline: rge's retrieval (in the cell) and a model. */
export class PipelineSubject implements SubjectSystem {
  readonly batch: MeteredBatch | null;

  constructor(private readonly provider: Provider) {
    this.batch = provider instanceof MeteredProvider ? provider.batch : null;
  }

  answer(cell: SubjectCell, opts: SubjectCallOptions): Promise<SubjectReply> {
    if (cell.ask.kind !== 'model') throw new Error(`${cell.id}: a model subject is asked a model request`);
    return this.provider.complete(cell.ask.request, {
      ...(opts.signal ? { signal: opts.signal } : {}),
      priority: SUBJECT_PRIORITY,
      beforeSend: opts.beforeSend,
    });
  }

  async close(): Promise<void> {}
}

/**
 * A user's own system behind the contract, asked at most `concurrency` questions at once. Its slots are
 * a plain semaphore, not Bottleneck: Bottleneck's few milliseconds a job were 100 times the answer of
 * a fast module system (src/util/slots.ts, bench/system.bench.ts).
 */
export class SystemSubject implements SubjectSystem {
  readonly batch = null;
  private readonly slots: Slots;

  constructor(
    private readonly subject: PlannedSubject,
    private readonly system: SystemUnderTest,
    /** the run's ledger (null: a dry run, nothing asked) */
    private readonly ledger: BudgetLedger | null,
    concurrency: number,
  ) {
    this.slots = new Slots(concurrency);
  }

  answer(cell: SubjectCell, opts: SubjectCallOptions): Promise<SubjectReply> {
    const ask = cell.ask;
    if (ask.kind !== 'system') throw new Error(`${cell.id}: a system is asked its question`);
    // the cell's lease is claimed when its call has a slot: a process claims only what it is about to ask
    return this.slots.run(async () => {
      // a stop that came while the cell waited for its slot: the system is not asked
      opts.signal?.throwIfAborted();
      await opts.beforeSend();
      // a system's spend is booked after its answers: once past the cap, nothing more is asked
      this.ledger?.assertUnderCap();
      const started = performance.now();
      const answer = await this.system.answer(ask.question, { signal: opts.signal });
      return this.reply(answer, performance.now() - started);
    });
  }

  private async reply(a: SystemAnswer, measuredMs: number): Promise<SubjectReply> {
    const usd = a.cost_usd ?? 0;
    const key = `system:${randomUUID()}`;
    if (usd > 0 && this.ledger)
      await this.ledger.book(
        usd,
        { provider: this.subject.provider, model: this.subject.model, role: 'subject' },
        key,
      );
    return {
      text: a.answer,
      usage: a.usage
        ? { ...ZERO_USAGE, inputTokens: a.usage.input_tokens, outputTokens: a.usage.output_tokens }
        : { ...ZERO_USAGE },
      latencyMs: a.latency_ms ?? measuredMs,
      costUsd: usd,
      model: a.model ?? this.subject.model,
      // booked already: no reservation of rge's to settle
      charges: usd > 0 ? [{ reservation: null, key, usd }] : [],
      stop: COMPLETE,
      contexts: a.contexts,
      ...(a.trace ? { trace: a.trace } : {}),
    };
  }

  async close(): Promise<void> {
    await this.system.close?.();
  }
}
