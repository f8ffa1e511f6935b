/**
 * The system-under-test contract: what rge asks a RAG system and what the system answers, whatever the
 * way in (a module's function, an HTTP endpoint, a command; or rge's own pipeline, its retrieval plus a
 * model). rge asks one question at a time:
 *
 *   { "id": "gd-001", "text": "What was ...?", "run_index": 0, "seed": 123456789 }
 *
 * and the system answers with its answer and the contexts it used (the passages its retriever gave its
 * model, each with an id the answer may cite as `[id]`), and, when it knows them, its usage, cost,
 * latency, model and a trace of its tool calls:
 *
 *   { "answer": "Revenue was Rs 1,234 crore [doc-3].",
 *     "contexts": [{ "id": "doc-3", "text": "...", "source": "acme-fy24.pdf", "page": 12, "score": 0.82 }],
 *     "usage": { "input_tokens": 1830, "output_tokens": 42 }, "cost_usd": 0.0021, "model": "gpt-5-mini" }
 *
 * The judges' grounding section and the deterministic checks read the contexts; a system is judged
 * against what it retrieved, not against rge's index. An answer that does not fit the contract is a
 * failure of that cell, naming the field and the question, never a score of 0.
 */
import { z } from 'zod';

/** What rge asks: the question, and for a system that samples, the run index and a seed to sample with. */
export const SystemQuestion = z.strictObject({
  /** the question's id in the question set */
  id: z.string(),
  text: z.string(),
  /** 0, 1, ... for the repeated runs of one question */
  run_index: z.number().int().min(0),
  /** 31 bits derived from the run's seed, the question and the run index: the same cell, the same seed */
  seed: z.number().int().min(0),
});
export type SystemQuestion = z.infer<typeof SystemQuestion>;

/** One passage the system's model was given. */
export const SystemContext = z.strictObject({
  /** unique among the answer's contexts; what the answer cites as `[id]` */
  id: z.string().min(1),
  text: z.string(),
  /** the document it comes from (a file name, a title, a URL) */
  source: z.string().optional(),
  /** the page of the document it comes from (1-based) */
  page: z.number().int().min(1).optional(),
  /** the retriever's score */
  score: z.number().optional(),
});
export type SystemContext = z.infer<typeof SystemContext>;

/** One tool call of an agentic system, as its trace records it. */
export const SystemToolCall = z.strictObject({
  name: z.string(),
  input: z.unknown().optional(),
  output: z.unknown().optional(),
  latency_ms: z.number().min(0).optional(),
});
export type SystemToolCall = z.infer<typeof SystemToolCall>;

/** What the system answers. */
export const SystemAnswer = z
  .strictObject({
    answer: z.string(),
    /** the passages the answer was written from (empty when it retrieved nothing) */
    contexts: z.array(SystemContext),
    usage: z
      .strictObject({ input_tokens: z.number().int().min(0), output_tokens: z.number().int().min(0) })
      .optional(),
    /** what the question cost the system, in USD, when it knows (counted in rge's budget ledger) */
    cost_usd: z.number().min(0).optional(),
    /** the system's own measure of its latency; rge measures the call's when absent */
    latency_ms: z.number().min(0).optional(),
    /** the model that wrote the answer */
    model: z.string().optional(),
    trace: z.array(SystemToolCall).optional(),
    /** anything else the system wants kept with the answer */
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((a, ctx) => {
    const first = new Map<string, number>();
    for (const [i, c] of a.contexts.entries()) {
      const at = first.get(c.id);
      if (at === undefined) first.set(c.id, i);
      else
        ctx.addIssue({
          code: 'custom',
          path: ['contexts', i, 'id'],
          message: `duplicate context id ${JSON.stringify(c.id)} (first at contexts[${at}])`,
        });
    }
  });
export type SystemAnswer = z.infer<typeof SystemAnswer>;
/** An answer as a system's code may state it (optional fields absent). */
export type SystemAnswerInput = z.input<typeof SystemAnswer>;

/** A system's answer that does not fit the contract: names the field and the question. */
export class ContractError extends Error {
  constructor(
    readonly questionId: string,
    readonly issues: readonly { path: string; message: string }[],
  ) {
    super(
      `question ${questionId}: the answer does not fit the contract: ${issues
        .map((i) => `${i.path || '(answer)'}: ${i.message}`)
        .join('; ')}`,
    );
    this.name = 'ContractError';
  }
}

/** A system's reply, validated: the answer, or a `ContractError` naming each misfit field. */
export function checkAnswer(questionId: string, reply: unknown): SystemAnswer {
  const parsed = SystemAnswer.safeParse(reply);
  if (parsed.success) return parsed.data;
  throw new ContractError(
    questionId,
    parsed.error.issues.map((i) => ({
      path: i.path.map(String).join('.'),
      message: i.code === 'unrecognized_keys' ? `not part of the contract: ${i.keys.join(', ')}` : i.message,
    })),
  );
}

/** A system as rge calls it: one question, its answer; `signal` aborts a call the run no longer needs. */
export interface SystemUnderTest {
  /** `module`, `http`, `command` */
  readonly kind: string;
  answer(question: SystemQuestion, opts?: { signal?: AbortSignal | undefined }): Promise<SystemAnswer>;
  /** frees what the system holds (a pool of processes, sockets) */
  close?(): Promise<void>;
}
