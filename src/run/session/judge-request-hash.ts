/**
 * The hash of a judge's request, which a verdict's identity holds (`request_hash`, store/cells.ts
 * `VerdictIdentity`), computed without rendering the whole request for every answer (issue 53).
 *
 * The request is the rubric (system text), the case (question, gold, the retrieved chunks: the same for
 * every answer to a question) and then the answer; its hash is SHA-256 over its canonical JSON
 * (`judgeRequestHash`). In that JSON the answer's part of the case (`renderJudgeAnswerPart`) is one run of
 * characters between a head and a tail that every answer to the question shares: JSON escapes a string
 * character by character, and the answer's part starts and ends with plain text. So the head is hashed
 * once per judge and question (a SHA-256 state, copied for each answer), and an answer adds its part and
 * the tail. The head and tail are found by rendering the request once with a sentinel for the answer; a
 * sentinel that is not found exactly once, inside the answer's part, falls back to rendering every
 * answer's request. The hash is the rendered request's, bit for bit: stored verdicts stay valid
 * (test/run/judge-request-hash.test.ts compares the two for every cell of the fixture world).
 */
import { createHash, type Hash, randomBytes } from 'node:crypto';
import {
  type JudgeModel,
  type JudgePrompt,
  renderJudgeAnswerPart,
  renderJudgeRequest,
} from '../../judging/prompt.ts';
import type { ContextChunk, JudgeInput, ModelRequest } from '../../providers/types.ts';
import { parametersIdentity } from '../../providers/types.ts';
import type { Question } from '../../questions/schema.ts';
import { canonicalJson, identityHash } from '../../store/cells.ts';

/** What of a judge's request its hash covers (what is sent; not the typed case offline judges read). */
export function judgeRequestIdentity(request: ModelRequest): unknown {
  return {
    system: request.system,
    messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
    model: request.model,
    ...parametersIdentity(request.parameters),
    max_tokens: request.maxTokens,
    schema: request.jsonSchema ?? null,
  };
}

/** The hash of a rendered judge request (a verdict identity's `request_hash`). */
export function judgeRequestHash(request: ModelRequest): string {
  return identityHash(judgeRequestIdentity(request));
}

/** A string's JSON form without its quotes. */
const jsonInner = (text: string): string => JSON.stringify(text).slice(1, -1);

/** The canonical JSON of a judge request, hashed up to its answer's part, and what follows that part. */
interface RequestHead {
  head: Hash;
  tail: string;
}

/** How many (judge, question) heads a run keeps (cells come question by question, so few are in use at once). */
const HEADS_KEPT = 4_096;

/** What a judge is shown for a case (run/session/work.ts `judgeInputFor`, passed in to keep this module below it). */
export type JudgeInputOf = (
  question: Question,
  chunks: readonly ContextChunk[],
  answer: string,
) => JudgeInput;

/** The request hashes of a run's verdict cells, under its judge prompt. */
export class JudgeRequestHashes {
  /** by judge id and question id, for answers over rge's top-k (null: the sentinel was not found once) */
  private readonly heads = new Map<string, RequestHead | null>();
  /** the tails, one copy each (a tail is the same for every question of a judge) */
  private readonly tails = new Map<string, string>();
  /** stands for the answer while the head and tail are found: no answer or chunk holds it */
  private readonly sentinel = `\u0000rge-answer-${randomBytes(12).toString('hex')}\u0000`;

  constructor(
    private readonly prompt: JudgePrompt,
    private readonly inputOf: JudgeInputOf,
  ) {}

  /**
   * The request hash of `judge` on `answer` to `question` over `passages`; `shared` says that the
   * passages are the question's own for every answer (rge's top-k), so its head is kept for the next.
   */
  of(
    judge: JudgeModel,
    question: Question,
    passages: readonly ContextChunk[],
    answer: string,
    shared: boolean,
  ): string {
    const head = shared ? this.sharedHead(judge, question, passages) : this.headOf(judge, question, passages);
    if (!head)
      return judgeRequestHash(
        renderJudgeRequest(this.inputOf(question, passages, answer), judge, this.prompt),
      );
    return head.head
      .copy()
      .update(jsonInner(renderJudgeAnswerPart(answer, this.prompt.version)), 'utf8')
      .update(head.tail, 'utf8')
      .digest('hex');
  }

  private sharedHead(
    judge: JudgeModel,
    question: Question,
    passages: readonly ContextChunk[],
  ): RequestHead | null {
    const at = `${judge.id}\u0000${question.id}`;
    let head = this.heads.get(at);
    if (head === undefined) {
      head = this.headOf(judge, question, passages);
      this.heads.set(at, head);
      if (this.heads.size > HEADS_KEPT) {
        const oldest = this.heads.keys().next();
        if (!oldest.done) this.heads.delete(oldest.value);
      }
    }
    return head;
  }

  /** The request rendered once with the sentinel for its answer, split around the answer's part. */
  private headOf(
    judge: JudgeModel,
    question: Question,
    passages: readonly ContextChunk[],
  ): RequestHead | null {
    const request = renderJudgeRequest(this.inputOf(question, passages, this.sentinel), judge, this.prompt);
    const canonical = canonicalJson(judgeRequestIdentity(request));
    const part = jsonInner(renderJudgeAnswerPart(this.sentinel, this.prompt.version));
    const at = canonical.indexOf(part);
    const mark = jsonInner(this.sentinel);
    const first = canonical.indexOf(mark);
    // the answer must be in the request once, inside its part: else every answer is rendered
    if (at < 0 || first < at || first >= at + part.length || canonical.indexOf(mark, first + 1) >= 0)
      return null;
    return {
      head: createHash('sha256').update(canonical.slice(0, at), 'utf8'),
      tail: this.oneCopy(canonical.slice(at + part.length)),
    };
  }

  /** One copy of a tail, not a slice that would keep its whole request's text alive. */
  private oneCopy(tail: string): string {
    let kept = this.tails.get(tail);
    if (kept === undefined) {
      kept = Buffer.from(tail, 'utf8').toString('utf8');
      this.tails.set(kept, kept);
    }
    return kept;
  }
}
