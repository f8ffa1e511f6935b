/**
 * What a case's checks compute from its answer and the passages it answered from (every deterministic
 * check but latency, which is the call's, and the evidence recall), stored beside the answers (issue 53):
 * the checks stage computes them for every stored answer that has none (`storeAnswerChecks`, after the
 * answers and verdicts), and a case reads them (`answerChecksOf`) instead of computing them again, so a
 * warm run only reads. A stored record is found by what the checks read (store/cells.ts
 * `CheckIdentity`): the answer's key and text, `CHECKS_VERSION`, the question and the passages; a
 * changed rule, question or passage is a new identity, computed again. A case whose record is missing
 * (the stages stopped first, or never ran in this process) computes its checks without storing them.
 */
import { type AnswerChecks, answerChecks, type EvidenceRecall, evidenceRecall } from '../../checks/index.ts';
import type { ContextChunk } from '../../providers/types.ts';
import type { Question } from '../../questions/schema.ts';
import { type AnswerRecord, type CheckRecord, checkKey } from '../../store/cells.ts';
import type { RunSession } from '../session/open.ts';
import { contextsOf, type SubjectCell } from '../session/work.ts';
import type { StageContext } from '../sync/stage-context.ts';

/** What the checks computed from an answer, as a case reads it. */
export interface AnswerCheckResults {
  checks: AnswerChecks;
  evidence: EvidenceRecall;
}

/** An answer's checks and evidence recall, computed. */
export function computeAnswerChecks(
  question: Question,
  answer: string,
  passages: readonly ContextChunk[],
): AnswerCheckResults {
  return {
    checks: answerChecks({ question, answer, chunks: passages }),
    evidence: evidenceRecall(question, passages),
  };
}

/** A cell's answer's checks: read from the store, or computed (not stored) when the store has none. */
export function answerChecksOf(
  run: RunSession,
  cell: SubjectCell,
  answer: AnswerRecord,
  passages: readonly ContextChunk[],
): AnswerCheckResults {
  const identity = run.work.checkIdentities.of(cell.question, answer, passages);
  const stored = run.checks(cell.subject).get(checkKey(identity));
  if (stored) return { checks: stored.checks, evidence: stored.evidence };
  return computeAnswerChecks(cell.question, answer.text, passages);
}

/** How many computed records the checks stage appends at a time (one write under the store's lock). */
const CHECKS_PER_WRITE = 512;

/**
 * The checks stage: computes and stores the checks of every cell's stored answer that has none (a warm
 * run finds them all and computes nothing). A stop (Ctrl-C) ends it at once; what it computed is kept.
 * Returns how many it computed.
 */
export async function storeAnswerChecks(ctx: StageContext, cells: readonly SubjectCell[]): Promise<number> {
  const run = ctx.run;
  const pending = new Map<ReturnType<RunSession['checks']>, CheckRecord[]>();
  let computed = 0;
  const write = async (store: ReturnType<RunSession['checks']>, records: CheckRecord[]) => {
    pending.delete(store);
    await store.putUnpaid(records);
  };
  for (const cell of cells) {
    if (ctx.opts.signal?.aborted) break;
    const answer = run.answers(cell.subject).get(cell.key);
    if (!answer) continue;
    const passages = contextsOf(cell, answer);
    const identity = run.work.checkIdentities.of(cell.question, answer, passages);
    const key = checkKey(identity);
    const store = run.checks(cell.subject);
    if (store.has(key)) continue;
    const { checks, evidence } = computeAnswerChecks(cell.question, answer.text, passages);
    const records = pending.get(store) ?? [];
    records.push({ kind: 'checks', key, identity, checks, evidence, created_at: new Date().toISOString() });
    pending.set(store, records);
    computed++;
    if (records.length >= CHECKS_PER_WRITE) await write(store, records);
  }
  for (const [store, records] of [...pending]) await write(store, records);
  return computed;
}
