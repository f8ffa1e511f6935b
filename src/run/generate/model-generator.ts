/**
 * A question generator backed by any live model of the registry (Anthropic, OpenAI, Gemini, an
 * OpenAI-compatible server): a model entry of the run config (a subject or a judge, by its id) built by
 * the one registry (`createProvider`, role `generator`), so its calls are priced, rate-limited, retried
 * and budgeted like every other live call, and booked in the ledger under their own role.
 *
 * Each task is a CELL keyed by what it is (store/generations.ts): a stored cell is read back and not paid
 * again (`TaskOutcome.reused`); a new one is asked, its reply stored (candidates, or the failure with its
 * raw text: a failure is data), and its charges settled in the ledger only after the record is stored, so
 * a kill loses nothing that was paid for. A reply that cannot be read is not asked again, by this run or a
 * later one: unlike a judge's verdict, which a case needs, a task is one of many, and a plan asks for
 * more candidates than it keeps.
 */

import { createProvider, isLiveProvider } from '../../models/registry.ts';
import type { ModelSpec, RegistryContext } from '../../models/spec.ts';
import { environment } from '../../providers/credentials.ts';
import type { ModelReply, Provider } from '../../providers/types.ts';
import { type Candidate, CandidateBody, candidateId } from '../../questions/generate/candidate.ts';
import type {
  GenerateOptions,
  GenerationProblem,
  GenerationTask,
  QuestionGenerator,
  TaskOutcome,
} from '../../questions/generate/generator.ts';
import {
  candidateBodyOf,
  type GeneratorPrompt,
  readGenerationReply,
  readGeneratorPrompt,
} from '../../questions/generate/model-prompt.ts';
import type { GeneratorRef } from '../../questions/schema.ts';
import type { CellStore } from '../../store/cells.ts';
import { type GenerationRecord, generationStore, recoverGenerationLedger } from '../../store/generations.ts';
import { BudgetExceededError, BudgetLedger } from '../../store/ledger.ts';
import { errorMessage, RgeError, UsageError } from '../../util/errors.ts';
import type { RunConfig } from '../config/config.ts';
import { cellWorstUsd, type GenerationCell, generationCells } from './cells.ts';
import { estimateCells, type GenerationEstimate } from './estimate.ts';

/** What a model generator is built from. */
export interface ModelGeneratorOptions {
  /** a live model entry of the run config (a subject or a judge) */
  spec: ModelSpec;
  /** the results folder: its cell stores and budget ledger */
  resultsDir: string;
  /** the run config's seed, part of every cell's identity */
  seed: string;
  /** the budget ledger of `resultsDir` (its cap is the one that holds) */
  ledger: BudgetLedger;
  /** the registry's context: root, environment, provider settings (the config's `providers`), limiters */
  registry: Omit<RegistryContext, 'spender' | 'requireKeys'>;
  /** the prompt; default the packaged prompts/question-generator.md */
  prompt?: GeneratorPrompt;
}

/** The candidates of a reply's items, and a problem per item that is not one (its index and field). */
export function candidatesOf(
  items: readonly unknown[],
  task: GenerationTask,
  generator: GeneratorRef,
): { candidates: Candidate[]; problems: string[] } {
  const candidates: Candidate[] = [];
  const problems: string[] = [];
  const sourceChunkIds = task.chunks.map((c) => c.id);
  for (const [i, item] of items.entries()) {
    const parsed = CandidateBody.safeParse(candidateBodyOf(item));
    if (!parsed.success) {
      const issues = parsed.error.issues.map(
        (x) => `${x.path.map(String).join('.') || '(root)'}: ${x.message}`,
      );
      problems.push(`candidate ${i + 1}: ${issues.join('; ')}`);
      continue;
    }
    if (parsed.data.category !== task.category) {
      problems.push(`candidate ${i + 1}: category: ${parsed.data.category}, not the task's ${task.category}`);
      continue;
    }
    // an exact copy is kept: verification counts it as a duplicate (run.ts), so the report shows it
    const id = candidateId(parsed.data, sourceChunkIds);
    candidates.push({
      id,
      body: parsed.data,
      generator,
      document: task.document,
      source_chunk_ids: sourceChunkIds,
    });
  }
  if (items.length === 0) problems.push('the reply has no candidates');
  return { candidates, problems };
}

/** What a stored cell gives its task. */
function outcomeOf(
  task: GenerationTask,
  record: GenerationRecord,
  reused: boolean,
  costUsd: number,
): TaskOutcome {
  const messages = record.failure ? [`${record.failure.kind}: ${record.failure.message}`] : record.problems;
  const problem: GenerationProblem | null =
    messages.length > 0 ? { task: task.id, message: messages.join('; ') } : null;
  return { task, candidates: record.candidates, problem, costUsd, reused };
}

/** A task that got no stored cell (the cap, a stop, a call that failed): nothing to keep, asked again next run. */
function notGenerated(task: GenerationTask, err: unknown): TaskOutcome {
  const why = err instanceof BudgetExceededError ? err.message : `not generated: ${errorMessage(err)}`;
  return { task, candidates: [], problem: { task: task.id, message: why }, costUsd: 0, reused: false };
}

export class ModelGenerator implements QuestionGenerator {
  readonly ref: GeneratorRef;
  /** the model entry it was built from (what `estimateGeneration` prices) */
  readonly spec: ModelSpec;
  private readonly store: CellStore<GenerationRecord>;

  constructor(
    private readonly opts: ModelGeneratorOptions & { prompt: GeneratorPrompt },
    private readonly provider: Provider,
  ) {
    const { spec } = opts;
    this.spec = spec;
    this.ref = {
      id: `${spec.provider}/${spec.model}`,
      family: spec.family,
      kind: 'model',
      prompt_hash: opts.prompt.sha256,
      seed: opts.seed,
    };
    this.store = generationStore(opts.resultsDir, spec.provider, spec.model);
  }

  /** The cells of tasks, as this generator asks them. */
  cells(tasks: readonly GenerationTask[]): GenerationCell[] {
    return generationCells(tasks, this.opts.spec, this.opts.prompt, this.opts.seed);
  }

  /** What generating the tasks still costs: the estimate of the cells not stored (a rerun's cost nothing). */
  estimate(tasks: readonly GenerationTask[]): GenerationEstimate {
    this.store.refresh();
    return estimateCells(
      this.cells(tasks).filter((c) => !this.store.has(c.key)),
      this.spec,
    );
  }

  /** Whether a cell is stored (a run would reuse it and pay nothing). */
  isStored(cell: GenerationCell): boolean {
    this.store.refresh();
    return this.store.has(cell.key);
  }

  /**
   * Refuses, before anything is sent, a cap below the worst case of one call still to make: no call
   * could ever be reserved under it.
   */
  private assertCapCovers(fresh: readonly GenerationCell[]): void {
    if (fresh.length === 0) return;
    const worst = Math.max(...fresh.map((c) => cellWorstUsd(c, this.opts.spec)));
    const cap = this.opts.ledger.summary().capUsd;
    if (worst > cap + 1e-12)
      throw new RgeError(
        `the cap $${cap.toFixed(4)} is below the worst case of one generation call ($${worst.toFixed(4)}, ` +
          `${this.ref.id}: its prompt and ${fresh[0]?.request.maxTokens} output tokens at most); ` +
          'raise budget.cap_usd or --cap-usd',
      );
  }

  async generate(tasks: readonly GenerationTask[], options: GenerateOptions = {}): Promise<TaskOutcome[]> {
    const { ledger, resultsDir } = this.opts;
    await recoverGenerationLedger(resultsDir, ledger);
    this.store.refresh();
    const cells = this.cells(tasks);
    this.assertCapCovers(cells.filter((c) => !this.store.has(c.key)));
    try {
      return await Promise.all(
        cells.map(async (cell) => {
          const outcome = await this.generateCell(cell, options.signal);
          options.onTask?.(outcome);
          return outcome;
        }),
      );
    } finally {
      await ledger.writeSummary();
    }
  }

  /** One task: its stored cell, or a call whose record is stored, then settled. */
  private async generateCell(cell: GenerationCell, signal?: AbortSignal): Promise<TaskOutcome> {
    const stored = this.store.get(cell.key);
    if (stored) return outcomeOf(cell.task, stored, true, 0);
    let reply: ModelReply;
    try {
      signal?.throwIfAborted();
      reply = await this.provider.complete(cell.request, signal ? { signal } : {});
    } catch (err) {
      return notGenerated(cell.task, err);
    }
    const record = this.recordOf(cell, reply);
    const kept = await this.store.put(record);
    await this.opts.ledger.settleCharges(reply.charges ?? []);
    return outcomeOf(cell.task, kept, kept !== record, reply.costUsd);
  }

  /** The record of a reply: its candidates, or why it gave none, with its raw text and what it cost. */
  private recordOf(cell: GenerationCell, reply: ModelReply): GenerationRecord {
    const reading = readGenerationReply(reply.text, reply.stop);
    const read = reading.ok
      ? { ...candidatesOf(reading.items, cell.task, this.ref), failure: null }
      : { candidates: [], problems: [], failure: { kind: reading.kind, message: reading.message } };
    return {
      kind: 'generation',
      key: cell.key,
      identity: cell.identity,
      task: cell.task.id,
      text: reply.text,
      reply_model: reply.model,
      ...read,
      usage: reply.usage,
      latency_ms: reply.latencyMs,
      cost_usd: reply.costUsd,
      charges: reply.charges ?? [],
      ...(reply.stop ? { stop: reply.stop } : {}),
      created_at: new Date().toISOString(),
    };
  }
}

/**
 * A generator over a live model entry, built through the registry with the ledger as its spender; its
 * key is checked here, before anything is asked. A model that is not live (offline baselines, heuristic
 * judges, replay, a user's system) writes no questions: the offline generator is its own.
 */
export async function openModelGenerator(opts: ModelGeneratorOptions): Promise<ModelGenerator> {
  const { spec } = opts;
  if (!isLiveProvider(spec.provider))
    throw new UsageError(
      `generator ${spec.id}: a ${spec.provider} model writes no questions; ` +
        'name a live model (anthropic, openai, gemini or openai-compatible) of the config',
    );
  const provider = await createProvider(spec, 'generator', {
    ...opts.registry,
    spender: opts.ledger,
    requireKeys: true,
  });
  return new ModelGenerator({ ...opts, prompt: opts.prompt ?? readGeneratorPrompt() }, provider);
}

/** Whether a model entry's generation cell is stored in `resultsDir` (a run reuses it, paying nothing). */
export function storedGeneration(resultsDir: string, spec: ModelSpec): (cell: GenerationCell) => boolean {
  const store = generationStore(resultsDir, spec.provider, spec.model);
  return (cell) => store.has(cell.key);
}

/** What a command gives to build a generator from a run config. */
export interface GeneratorFromConfig {
  /** the repository or working folder: relative files, `.env` */
  root: string;
  resultsDir: string;
  /** the config file, named in the cap's messages */
  configFile: string;
  /** `--cap-usd`: the cap instead of the config's `budget.cap_usd` */
  capUsd?: number;
  /** environment (default: process env over root's .env) */
  env?: Record<string, string | undefined>;
  /** where retries and the budget warning are said */
  log?: (line: string) => void;
  prompt?: GeneratorPrompt;
}

/**
 * The generator of the model entry `modelId` (a subject's or a judge's id) of a run config, with the
 * budget ledger of `resultsDir` under the config's cap or `capUsd`.
 */
export async function modelGeneratorFromConfig(
  config: RunConfig,
  modelId: string,
  opts: GeneratorFromConfig,
): Promise<ModelGenerator> {
  const entries: ModelSpec[] = [...config.subjects, ...config.judges];
  const spec = entries.find((e) => e.id === modelId);
  if (!spec)
    throw new UsageError(
      `--model must be the id of a subject or judge of ${opts.configFile} (${entries.map((e) => e.id).join(', ')}), got ${modelId}`,
    );
  const capUsd = opts.capUsd ?? config.budget.cap_usd;
  const ledger = new BudgetLedger(opts.resultsDir, {
    capUsd,
    warnUsd: Math.min(config.budget.warn_usd, capUsd),
    configFile: opts.configFile,
    ...(opts.capUsd !== undefined ? { capSource: '--cap-usd' } : {}),
    ...(opts.log ? { onWarn: opts.log } : {}),
  });
  return openModelGenerator({
    spec,
    resultsDir: opts.resultsDir,
    seed: config.seed,
    ledger,
    registry: {
      root: opts.root,
      env: opts.env ?? environment(opts.root),
      settings: config.providers,
      ...(opts.log ? { onRetry: opts.log } : {}),
    },
    ...(opts.prompt ? { prompt: opts.prompt } : {}),
  });
}
