/**
 * Verification's optional last check (`rge questions generate --judge ID`): a judge of another family
 * than the generator reads each verified question with its gold answer and quotes and says whether it is
 * answerable from the quotes, unambiguous, and answered correctly (prompts/question-confirmation.md). A
 * "no" to any rejects the question as `judge-rejected` with the judge's reason; a reply that cannot be
 * read keeps it unconfirmed (rejected, the raw reply stored). Each question is a cell keyed by the judge,
 * the prompt and the request, stored with its charges before they are settled, so a rerun or a run after
 * a kill asks nothing twice.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LIVE_ADAPTER_VERSION } from '../../models/live.ts';
import { createProvider, isLiveProvider, priceOf } from '../../models/registry.ts';
import type { ModelSpec, RegistryContext } from '../../models/spec.ts';
import { requestTokens } from '../../providers/budget.ts';
import { worstCaseUsd } from '../../providers/catalogue.ts';
import { resolveParameters } from '../../providers/contract.ts';
import type { ModelRequest, Provider } from '../../providers/types.ts';
import type { Failure } from '../../questions/generate/verify/checks.ts';
import type { Verified } from '../../questions/generate/verify/verify.ts';
import { identityHash } from '../../store/cells.ts';
import {
  type ConfirmationIdentity,
  type ConfirmationRecord,
  confirmationStore,
  recoverGenerationLedger,
} from '../../store/generations.ts';
import type { BudgetLedger } from '../../store/ledger.ts';
import { errorMessage, RgeError, UsageError } from '../../util/errors.ts';
import { sha256 } from '../../util/fs.ts';
import { promptFileParts } from '../../util/prompt-file.ts';
import { requestHash } from './cells.ts';

export const CONFIRMATION_PROMPT_FILE = fileURLToPath(
  new URL('../../../prompts/question-confirmation.md', import.meta.url),
);
/** Output tokens a confirmation may take: a one-sentence reason in a small JSON object. */
const CONFIRMATION_MAX_TOKENS = 300;

interface ConfirmationPrompt {
  system: string;
  template: string;
  sha256: string;
}

/** The prompt file's "## System" and "## User" sections (comments are documentation). */
export function readConfirmationPrompt(file = CONFIRMATION_PROMPT_FILE): ConfirmationPrompt {
  const text = readFileSync(file, 'utf8');
  const { version, system, template } = promptFileParts(text, 'Question confirmation prompt');
  if (!version) throw new RgeError('no "# Question confirmation prompt <version>" title', { file });
  if (!system) throw new RgeError('no "## System" section', { file });
  if (!template) throw new RgeError('no "## User" section', { file });
  return { system, template, sha256: sha256(text) };
}

const VERDICT_SCHEMA = {
  type: 'object',
  properties: {
    answerable: { type: 'boolean' },
    unambiguous: { type: 'boolean' },
    answer_correct: { type: 'boolean' },
    reason: { type: 'string' },
  },
  required: ['answerable', 'unambiguous', 'answer_correct', 'reason'],
  additionalProperties: false,
};

export interface ConfirmationJudgeOptions {
  spec: ModelSpec;
  resultsDir: string;
  ledger: BudgetLedger;
  registry: Omit<RegistryContext, 'spender' | 'requireKeys'>;
  prompt?: ConfirmationPrompt;
}

/** The verdict a reply states, or null when it does not parse as one. */
function verdictOf(text: string): ConfirmationRecord['verdict'] {
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  if (!json) return null;
  try {
    const v = JSON.parse(json) as Record<string, unknown>;
    const { answerable, unambiguous, answer_correct, reason } = v;
    if (
      typeof answerable !== 'boolean' ||
      typeof unambiguous !== 'boolean' ||
      typeof answer_correct !== 'boolean'
    )
      return null;
    return { answerable, unambiguous, answer_correct, reason: typeof reason === 'string' ? reason : '' };
  } catch {
    return null;
  }
}

export class ConfirmationJudge {
  readonly id: string;
  readonly family: string;
  private readonly store;
  private readonly prompt: ConfirmationPrompt;

  constructor(
    private readonly opts: ConfirmationJudgeOptions,
    private readonly provider: Provider,
  ) {
    this.id = `${opts.spec.provider}/${opts.spec.model}`;
    this.family = opts.spec.family;
    this.prompt = opts.prompt ?? readConfirmationPrompt();
    this.store = confirmationStore(opts.resultsDir, opts.spec.provider, opts.spec.model);
  }

  /** The request for one verified question. */
  request(v: Verified): ModelRequest {
    const { spec } = this.opts;
    const body = v.candidate.body;
    const quotes = v.quotes.map((q, i) => `${i + 1}. [${q.document}] ${q.text}`).join('\n') || '(none)';
    const content = this.prompt.template
      .replace('{{question}}', `${body.text} (expected behaviour: ${body.expected_behavior})`)
      .replace('{{answer}}', body.gold_answer)
      .replace('{{quotes}}', quotes);
    return {
      model: spec.model,
      system: this.prompt.system,
      messages: [{ role: 'user', content }],
      parameters: resolveParameters(spec.provider, spec.model, spec),
      maxTokens: CONFIRMATION_MAX_TOKENS,
      jsonSchema: VERDICT_SCHEMA,
    };
  }

  private identity(request: ModelRequest): ConfirmationIdentity {
    const { spec } = this.opts;
    return {
      judge: this.id,
      ...(spec.provider === 'openai-compatible' && spec.base_url ? { endpoint: spec.base_url } : {}),
      adapter_version: LIVE_ADAPTER_VERSION,
      prompt_hash: this.prompt.sha256,
      request_hash: requestHash(request),
    };
  }

  /** The worst case of one confirmation call (what the ledger reserves for it). */
  worstUsd(v: Verified): number {
    const request = this.request(v);
    return worstCaseUsd(
      priceOf(this.opts.spec, `judge ${this.opts.spec.id}`),
      requestTokens(request),
      request.maxTokens,
      {
        batch: false,
      },
    );
  }

  /** Recovers a killed run's reservations from the stored records, once before the first question. */
  async recover(): Promise<void> {
    await recoverGenerationLedger(this.opts.resultsDir, this.opts.ledger);
    this.store.refresh();
  }

  /** The check: null when the judge confirms the question, else why not. */
  async confirm(v: Verified): Promise<Failure | null> {
    const request = this.request(v);
    const identity = this.identity(request);
    const key = identityHash(identity);
    let record = this.store.get(key);
    if (!record) {
      let reply: Awaited<ReturnType<Provider['complete']>>;
      try {
        reply = await this.provider.complete(request);
      } catch (err) {
        return {
          reason: 'judge-rejected',
          message: `not confirmed: ${this.id} could not be asked (${errorMessage(err)})`,
        };
      }
      const fresh: ConfirmationRecord = {
        kind: 'confirmation',
        key,
        identity,
        candidate: v.candidate.id,
        text: reply.text,
        verdict: verdictOf(reply.text),
        usage: reply.usage,
        latency_ms: reply.latencyMs,
        cost_usd: reply.costUsd,
        charges: reply.charges ?? [],
        created_at: new Date().toISOString(),
      };
      record = await this.store.put(fresh);
      await this.opts.ledger.settleCharges(fresh.charges);
    }
    const verdict = record.verdict;
    if (!verdict)
      return {
        reason: 'judge-rejected',
        message: `not confirmed: ${this.id}'s reply is not a verdict: "${record.text.slice(0, 80)}"`,
      };
    const no = (['answerable', 'unambiguous', 'answer_correct'] as const).filter((k) => !verdict[k]);
    if (no.length === 0) return null;
    return {
      reason: 'judge-rejected',
      message: `${this.id}: not ${no.join(', not ').replace('_', ' ')}: ${verdict.reason}`,
    };
  }
}

/** A confirmation judge over a live model entry (its key checked here), of another family than `generatorFamily`. */
export async function openConfirmationJudge(
  opts: ConfirmationJudgeOptions,
  generatorFamily: string,
): Promise<ConfirmationJudge> {
  const { spec } = opts;
  if (!isLiveProvider(spec.provider))
    throw new UsageError(
      `--judge ${spec.id}: a ${spec.provider} model cannot confirm questions; name a live model of the config`,
    );
  if (spec.family === generatorFamily)
    throw new UsageError(
      `--judge ${spec.id} is of the ${spec.family} family, like the generator: a judge of another family confirms its questions`,
    );
  const provider = await createProvider(spec, 'judge', {
    ...opts.registry,
    spender: opts.ledger,
    requireKeys: true,
  });
  const judge = new ConfirmationJudge(opts, provider);
  await judge.recover();
  return judge;
}
