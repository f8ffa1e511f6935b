/**
 * The identity of an answer's stored checks (store/cells.ts `CheckIdentity`; stages/answer-checks.ts): what the
 * checks read, hashed. A run's `RunWork` holds one, so each question and each set of passages is hashed
 * once however many answers there are to it.
 */
import { CHECKS_VERSION } from '../../checks/index.ts';
import type { ContextChunk } from '../../providers/types.ts';
import type { Question } from '../../questions/schema.ts';
import { type AnswerRecord, type CheckIdentity, identityHash } from '../../store/cells.ts';
import { sha256 } from '../../util/fs.ts';

/** The identities of a run's check records: each question and set of passages hashed once. */
export class CheckIdentities {
  private readonly questions = new WeakMap<Question, string>();
  private readonly passages = new WeakMap<readonly ContextChunk[], string>();

  of(
    question: Question,
    answer: Pick<AnswerRecord, 'key' | 'text'>,
    passages: readonly ContextChunk[],
  ): CheckIdentity {
    let questionHash = this.questions.get(question);
    if (questionHash === undefined) {
      questionHash = identityHash(question);
      this.questions.set(question, questionHash);
    }
    // rge's top-k is one array per question (a system's contexts are its answer's, hashed each time)
    let passagesHash = this.passages.get(passages);
    if (passagesHash === undefined) {
      passagesHash = identityHash(passages);
      this.passages.set(passages, passagesHash);
    }
    return {
      answer_key: answer.key,
      answer_sha256: sha256(answer.text),
      checks_version: CHECKS_VERSION,
      question_hash: questionHash,
      passages_hash: passagesHash,
    };
  }
}
