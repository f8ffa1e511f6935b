/**
 * The generation cells of `rge questions generate`: what a model of the registry wrote for one
 * generation task, kept by WHAT THE TASK IS (the generator's provider and model, an OpenAI-compatible
 * server's endpoint, rge's adapter version, the prompt file's hash, what the request sends, the task's
 * category, count, chunks and language, and the seed), never by a run. A rerun over the same tasks reads
 * every stored cell and calls nothing; a reply that gave no candidates (prose, malformed JSON, a refusal,
 * a cut) is a cell too, stored with its raw text: a failure is data, and it is not asked again.
 *
 * Layout: `cells/generations/<provider>__<model>.jsonl` of the results folder (store/layout.ts),
 * append-only under a file lock (`CellStore`); the first record of a key wins. Each record carries the
 * charges of its call: the ledger settles them after the record is stored, and a process killed in
 * between is recovered from the record (`recoverGenerationLedger`).
 */
import { existsSync, readdirSync } from 'node:fs';
import { z } from 'zod';
import { CallCharge, StopInfo, Usage } from '../providers/types.ts';
import { Candidate } from '../questions/generate/candidate.ts';
import { GENERATION_FAILURES } from '../questions/generate/model-prompt.ts';
import { QuestionCategory } from '../questions/schema.ts';
import { CellStore, CellStores, identityHash, storeName } from './cells.ts';
import { takeDeadInboxes } from './inbox.ts';
import { resultsLayout } from './layout.ts';
import type { BudgetLedger } from './ledger.ts';

/** What a generation cell is: everything that decides what the model is asked, and the seed. */
export const GenerationIdentity = z.strictObject({
  /** the registry model's `provider/model` */
  generator: z.string().min(1),
  /** an OpenAI-compatible server's base URL (two servers may serve models of one name); absent otherwise */
  endpoint: z.string().optional(),
  /** rge's request mapping for live providers (`LIVE_ADAPTER_VERSION`) */
  adapter_version: z.string().min(1),
  /** SHA-256 of the prompt file */
  prompt_hash: z.string().min(1),
  /** SHA-256 of what is sent: system, message, parameters, max tokens and schema */
  request_hash: z.string().min(1),
  category: QuestionCategory,
  count: z.number().int().positive(),
  source_chunk_ids: z.array(z.string().min(1)),
  language: z.string().nullable(),
  seed: z.string().min(1),
});
export type GenerationIdentity = z.infer<typeof GenerationIdentity>;

export const generationKey = (identity: GenerationIdentity): string => identityHash(identity);

/** Why a stored reply gave no candidates. */
export const GenerationFailure = z.strictObject({
  kind: z.enum(GENERATION_FAILURES),
  message: z.string().min(1),
});
export type GenerationFailure = z.infer<typeof GenerationFailure>;

/**
 * One generation cell: the task it answers (`task`: the plan's id, informative only), the raw reply,
 * the candidates read from it and what was wrong with the others (`problems`, one per candidate,
 * naming its index and field), or the reply's `failure`; its usage, cost, charges and stop.
 */
export const GenerationRecord = z.strictObject({
  kind: z.literal('generation'),
  key: z.string(),
  identity: GenerationIdentity,
  task: z.string(),
  text: z.string(),
  /** the model that replied, as the provider names it */
  reply_model: z.string(),
  candidates: z.array(Candidate),
  problems: z.array(z.string()),
  failure: GenerationFailure.nullable(),
  usage: Usage,
  latency_ms: z.number().min(0),
  cost_usd: z.number().min(0),
  charges: z.array(CallCharge),
  stop: StopInfo.optional(),
  created_at: z.string(),
});
export type GenerationRecord = z.infer<typeof GenerationRecord>;

/** What a confirmation cell is: the judge, its prompt and request, and the question as it was verified. */
export const ConfirmationIdentity = z.strictObject({
  judge: z.string().min(1),
  endpoint: z.string().optional(),
  adapter_version: z.string().min(1),
  prompt_hash: z.string().min(1),
  request_hash: z.string().min(1),
});
export type ConfirmationIdentity = z.infer<typeof ConfirmationIdentity>;

/**
 * A judge's confirmation of one verified question (`--judge`): its verdict on the three questions of
 * prompts/question-confirmation.md, or null when the reply could not be read (kept as data, with its raw
 * text; the question is then not confirmed), and what the call cost.
 */
export const ConfirmationRecord = z.strictObject({
  kind: z.literal('confirmation'),
  key: z.string(),
  identity: ConfirmationIdentity,
  candidate: z.string(),
  text: z.string(),
  verdict: z
    .strictObject({
      answerable: z.boolean(),
      unambiguous: z.boolean(),
      answer_correct: z.boolean(),
      reason: z.string(),
    })
    .nullable(),
  usage: Usage,
  latency_ms: z.number().min(0),
  cost_usd: z.number().min(0),
  charges: z.array(CallCharge),
  created_at: z.string(),
});
export type ConfirmationRecord = z.infer<typeof ConfirmationRecord>;

/** The file name suffix of a judge's confirmation store, beside the generation stores. */
const CONFIRMATIONS = '__confirmations';

/** The confirmation store of one judge model in a results folder. */
export function confirmationStore(
  resultsDir: string,
  provider: string,
  model: string,
): CellStore<ConfirmationRecord> {
  return new CellStore(
    resultsLayout(resultsDir).cellStore('generations', `${storeName(provider, model)}${CONFIRMATIONS}`),
    ConfirmationRecord,
  );
}

/** The generation store of one generator model in a results folder. */
export function generationStore(
  resultsDir: string,
  provider: string,
  model: string,
): CellStore<GenerationRecord> {
  return new CellStore(
    resultsLayout(resultsDir).cellStore('generations', storeName(provider, model)),
    GenerationRecord,
  );
}

/** Every generation store of a results folder. */
function allGenerationStores(resultsDir: string): CellStore<GenerationRecord | ConfirmationRecord>[] {
  const layout = resultsLayout(resultsDir);
  const dir = layout.cells('generations');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => {
      const name = f.slice(0, -'.jsonl'.length);
      const file = layout.cellStore('generations', name);
      return name.endsWith(CONFIRMATIONS)
        ? new CellStore<GenerationRecord | ConfirmationRecord>(file, ConfirmationRecord)
        : new CellStore<GenerationRecord | ConfirmationRecord>(file, GenerationRecord);
    });
}

/**
 * Recovers what processes that died (kill -9, a crash) left open in the ledger of a results folder: a
 * call whose record is stored (in a generation store, or an answer, verdict or attempt store when the
 * folder is shared with runs, after the dead processes' inboxes are stored) is settled at its recorded
 * cost; one without is closed as unknown: possibly billed, at most its worst case, counted against the
 * cap, never spent (ADR 0034). Returns what it did, for a line of the command's output.
 */
export async function recoverGenerationLedger(
  resultsDir: string,
  ledger: BudgetLedger,
): Promise<{ settled: number; unknown: number }> {
  if (ledger.orphans('call').length === 0) return { settled: 0, unknown: 0 };
  const cells = new CellStores(resultsDir);
  await takeDeadInboxes(resultsDir, cells);
  cells.openAll();
  const generations = allGenerationStores(resultsDir);
  return ledger.recover((id) => {
    for (const store of generations) {
      const record = store.byCharge(id);
      if (record) return record.charges.filter((c) => c.reservation === id);
    }
    return cells.chargesOf(id);
  });
}
