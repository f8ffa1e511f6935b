/**
 * JSON Lines in rge's own system contract shape: each line one question and what the system answered,
 *
 *   {"question": "What was ...?" | {"id": "q-1", "text": "..."}, "answer": "...",
 *    "contexts": [{"id": "doc-3", "text": "..."}], "usage": {...}, "model": "...",
 *    "trace_id": "...", "started_at": "2025-06-02T10:00:00Z", "metadata": {"route": "faq"}}
 *
 * the fields besides `question`, `trace_id` and `started_at` being a `SystemAnswer`
 * (src/system/contract.ts). The trace id is `trace_id`, else the question's id, else `FILE:LINE`.
 */
import { basename } from 'node:path';
import { z } from 'zod';
import { SystemAnswer } from '../system/contract.ts';
import type { TraceCase, TraceImportReport, TraceOrigin } from './case.ts';
import { isSecretName, redactLogged } from './redact.ts';

type LeftOut = TraceImportReport['left_out'][number];

/** What a contract line adds to a `SystemAnswer`. */
const ContractQuestion = z.union([
  z.string(),
  z.strictObject({ id: z.string().optional(), text: z.string() }),
]);

/** Whether a record looks like a contract line. */
export const isContractRecord = (v: unknown): boolean =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && 'question' in v;

/** Every string inside a value redacted, and the whole value of a key that names a secret. */
function redactDeep(x: unknown): unknown {
  if (typeof x === 'string') return redactLogged(x);
  if (Array.isArray(x)) return x.map(redactDeep);
  if (x !== null && typeof x === 'object')
    return Object.fromEntries(
      Object.entries(x).map(([k, v]) => [
        k,
        isSecretName(k) && typeof v === 'string' ? '[redacted]' : redactDeep(v),
      ]),
    );
  return x;
}

/** One contract line as a case, or why it is not one. */
export function contractCase(
  record: unknown,
  origin: TraceOrigin,
): { case: TraceCase } | { leftOut: LeftOut } {
  const r = record as Record<string, unknown>;
  const { question: rawQuestion, trace_id, started_at, ...answerFields } = r;
  const q = ContractQuestion.safeParse(rawQuestion);
  const text = q.success ? (typeof q.data === 'string' ? q.data : q.data.text) : '';
  const questionId = q.success && typeof q.data !== 'string' ? q.data.id : undefined;
  const traceId =
    typeof trace_id === 'string' && trace_id !== ''
      ? trace_id
      : (questionId ?? `${basename(origin.file)}:${origin.line ?? 0}`);
  const left = (problem: LeftOut['problem'], message: string) => ({
    leftOut: { trace_id: traceId, problem, message, file: origin.file, line: origin.line },
  });
  if (text.trim() === '')
    return left('no-question', 'no question: "question" is not a non-empty string or {id, text}');
  if (typeof answerFields.answer !== 'string')
    return left('no-answer', 'no answer: "answer" is not a string');
  if (!Array.isArray(answerFields.contexts))
    return left('no-retrieval', 'no retrieval: "contexts" is not a list');
  const answer = SystemAnswer.safeParse(redactDeep(answerFields));
  if (!answer.success)
    return left(
      'unknown-schema',
      `not the contract's shape: ${answer.error.issues
        .map(
          (i) =>
            `${i.path.join('.') || '(line)'}: ${i.code === 'unrecognized_keys' ? `not a contract field: ${i.keys.join(', ')}` : i.message}`,
        )
        .join('; ')}`,
    );
  const startMs = typeof started_at === 'string' ? Date.parse(started_at) : Number.NaN;
  const startedAt = Number.isFinite(startMs) ? new Date(startMs).toISOString() : null;
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(answer.data.metadata ?? {}))
    if (typeof v === 'string' && v.length <= 200) fields[k] = v;
  if (startedAt) fields.day = startedAt.slice(0, 10);
  return {
    case: {
      trace_id: traceId,
      question: redactLogged(text),
      answer: answer.data,
      started_at: startedAt,
      fields,
      origin,
    },
  };
}
