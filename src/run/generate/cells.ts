/**
 * Generation tasks as cells: the request each sends to a model entry and what it is (its identity and
 * key in the generation store, store/generations.ts), and the worst case of its call. Pure; shared by
 * the generator and the estimate.
 */
import { LIVE_ADAPTER_VERSION, priceOf } from '../../models/registry.ts';
import type { ModelSpec } from '../../models/spec.ts';
import { worstCaseUsd } from '../../providers/catalogue.ts';
import { outputLimit, resolveParameters } from '../../providers/contract.ts';
import { requestTokens } from '../../providers/metered.ts';
import type { ModelRequest } from '../../providers/types.ts';
import type { GenerationTask } from '../../questions/generate/generator.ts';
import {
  type GeneratorPrompt,
  generationMaxTokens,
  renderGenerationRequest,
} from '../../questions/generate/model-prompt.ts';
import { identityHash } from '../../store/cells.ts';
import { type GenerationIdentity, generationKey } from '../../store/generations.ts';
import { sha256 } from '../../util/fs.ts';

/** One task as a cell: the request it sends, what it is, its key. */
export interface GenerationCell {
  task: GenerationTask;
  request: ModelRequest;
  identity: GenerationIdentity;
  key: string;
}

/** The provider seed of a cell (sent when the entry asks for one): 31 bits of SHA-256 over seed and task. */
function cellSeed(seed: string, task: GenerationTask): number {
  const what = `${seed}:${task.category}:${task.count}:${task.chunks.map((c) => c.id).join(',')}`;
  return Number.parseInt(sha256(what).slice(0, 8), 16) & 0x7fffffff;
}

/** The cells of tasks for a model entry and prompt: pure, shared by the generator and the estimate. */
export function generationCells(
  tasks: readonly GenerationTask[],
  spec: ModelSpec,
  prompt: GeneratorPrompt,
  seed: string,
): GenerationCell[] {
  const parameters = resolveParameters(spec.provider, spec.model, spec);
  return tasks.map((task) => {
    const request = renderGenerationRequest(task, {
      model: spec.model,
      prompt,
      parameters,
      maxTokens: outputLimit(spec.provider, spec.model, generationMaxTokens(task.count)),
      seed: cellSeed(seed, task),
    });
    const identity: GenerationIdentity = {
      generator: `${spec.provider}/${spec.model}`,
      ...(spec.provider === 'openai-compatible' && spec.base_url ? { endpoint: spec.base_url } : {}),
      adapter_version: LIVE_ADAPTER_VERSION,
      prompt_hash: prompt.sha256,
      request_hash: requestHash(request),
      category: task.category,
      count: task.count,
      source_chunk_ids: task.chunks.map((c) => c.id),
      language: task.language,
      seed,
    };
    return { task, request, identity, key: generationKey(identity) };
  });
}

/** The worst case of one call of a cell, at the model's prices (what the ledger reserves for it). */
export function cellWorstUsd(cell: GenerationCell, spec: ModelSpec): number {
  const priced = priceOf(spec, `generator ${spec.id}`);
  return worstCaseUsd(priced, requestTokens(cell.request), cell.request.maxTokens, { batch: false });
}

/** The hash of what a request sends: system, messages, parameters, output limit, schema and (when sent) seed. */
export function requestHash(request: ModelRequest): string {
  return identityHash({
    system: request.system,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
    parameters: request.parameters,
    max_tokens: request.maxTokens,
    json_schema: request.jsonSchema,
    ...(request.parameters.seed ? { seed: request.seed } : {}),
  });
}
