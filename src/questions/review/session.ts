/**
 * A review of generated questions apart from HTTP: the questions in review order, the decisions read
 * back from the review file on every request (so a reload, a second tab or a restarted server sees
 * everything), and how a submission becomes a validated record appended to the file. An edit is
 * re-verified (`Reverify`) before it is recorded; a failed re-verification is a `ReviewRefusal` (HTTP
 * 422) whose message the page shows, and the question stays as it was. Nothing is written for a refusal.
 */
import { z } from 'zod';
import type { Question } from '../schema.ts';
import type { DocumentReader } from './documents.ts';
import { appendReviewRecord, currentDecisions, type LedgerDecision, readReviewLedger } from './ledger.ts';
import { reviewOrder } from './order.ts';
import { questionHash, REJECT_REASONS, RejectReason, ReviewDecision, type ReviewOrder } from './record.ts';
import type { Reverify } from './reverify.ts';
import { formatReviewSummary, type ReviewSummary, reviewSummary } from './summary.ts';
import { type QuestionView, questionView } from './view.ts';

/** A submission the server refuses (HTTP 400 unless `status` says otherwise); nothing is written. */
export class ReviewRefusal extends Error {
  constructor(
    message: string,
    readonly status = 400,
    /** a failed re-verification's reason code */
    readonly reason: string | null = null,
  ) {
    super(message);
    this.name = 'ReviewRefusal';
  }
}

/** What the page posts to decide about a question (the edited fields, for an edit). */
export const ReviewSubmission = z.discriminatedUnion('decision', [
  z.strictObject({ decision: z.literal('accepted'), question_id: z.string().min(1) }),
  z.strictObject({
    decision: z.literal('rejected'),
    question_id: z.string().min(1),
    reason: RejectReason,
    note: z.string().max(2000).optional(),
  }),
  z.strictObject({
    decision: z.literal('edited'),
    question_id: z.string().min(1),
    edits: z.strictObject({
      text: z.string(),
      gold_answer: z.string(),
      gold_quotes: z.array(z.string()),
    }),
  }),
]);
export type ReviewSubmission = z.infer<typeof ReviewSubmission>;

/** What the page needs to resume: the order, what is decided, where to start, the summary. */
export interface ReviewState {
  title: string;
  total: number;
  /** question ids in review order */
  ids: string[];
  decided: Record<string, { decision: ReviewDecision['decision']; reason: string | null }>;
  /** the first question in review order not decided (0 when all are) */
  start: number;
  order: Pick<ReviewOrder, 'order' | 'seed'>;
  reasons: readonly string[];
  summary: ReviewSummary;
  summary_lines: string[];
}

export interface QuestionReviewSession {
  /** the review file decisions go to */
  readonly file: string;
  state(): Promise<ReviewState>;
  view(index: number): Promise<QuestionView>;
  submit(body: unknown): Promise<LedgerDecision | ReviewDecision>;
  /** takes back the latest standing decision; the question id it was about (null: nothing to undo) */
  undo(): Promise<string | null>;
}

export interface QuestionReviewOptions {
  questions: readonly Question[];
  /** the review file (`reviewFileOf(questions file)`), whose order record is already written */
  file: string;
  order: Pick<ReviewOrder, 'order' | 'seed'>;
  /** reads the documents the gold quotes are in; null: no documents folder (quotes shown without their page) */
  read: DocumentReader | null;
  reverify: Reverify;
  title?: string;
  now?: () => Date;
}

function issuesText(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || 'body'}: ${i.message}`).join('; ');
}

/** The edited question: the fields the page edits replaced, `provenance.review` 'edited'; a refusal if nothing changed. */
export function appliedEdits(
  current: Question,
  edits: Extract<ReviewSubmission, { decision: 'edited' }>['edits'],
): Question {
  if (edits.gold_quotes.length !== current.gold_quotes.length)
    throw new ReviewRefusal(
      `an edit keeps the number of gold quotes (${current.gold_quotes.length}); reject the question (bad-quote) to drop one`,
    );
  const edited: Question = {
    ...current,
    text: edits.text.trim(),
    gold_answer: edits.gold_answer.trim(),
    gold_quotes: edits.gold_quotes.map((q) => q.trim()),
  };
  const same = (['text', 'gold_answer', 'gold_quotes'] as const).every(
    (k) => JSON.stringify(edited[k]) === JSON.stringify(current[k]),
  );
  if (same) throw new ReviewRefusal('nothing changed: accept it (a) instead, or change a field');
  return current.provenance ? { ...edited, provenance: { ...current.provenance, review: 'edited' } } : edited;
}

/** What the page needs to resume, from the standing decisions. */
function reviewState(
  ids: string[],
  decided: ReadonlyMap<string, LedgerDecision>,
  stale: number,
  opts: Pick<QuestionReviewOptions, 'order' | 'title'>,
): ReviewState {
  const summary = reviewSummary({ order: ids, decided, reviewOrder: opts.order, stale });
  const first = ids.findIndex((id) => !decided.has(id));
  return {
    title: opts.title ?? 'generated questions',
    total: ids.length,
    ids,
    decided: Object.fromEntries(
      [...decided].map(([id, d]) => [id, { decision: d.decision, reason: d.reason ?? null }]),
    ),
    start: Math.max(first, 0),
    order: opts.order,
    reasons: REJECT_REASONS,
    summary,
    summary_lines: formatReviewSummary(summary),
  };
}

/** A review session over questions whose ids are unique (the caller checks). */
export function questionReviewSession(opts: QuestionReviewOptions): QuestionReviewSession {
  const byId = new Map(opts.questions.map((q) => [q.id, q]));
  const ids = reviewOrder(opts.questions, opts.order);
  const now = opts.now ?? (() => new Date());
  const decisions = async () => currentDecisions(await readReviewLedger(opts.file), opts.questions);
  const questionOf = (id: string) => {
    const q = byId.get(id);
    if (!q) throw new ReviewRefusal(`no question ${id} in this file`, 404);
    return q;
  };

  async function record(body: ReviewSubmission): Promise<ReviewDecision> {
    const q = questionOf(body.question_id);
    const base = {
      kind: 'decision',
      question_id: q.id,
      question_hash: questionHash(q),
      at: now().toISOString(),
    };
    if (body.decision === 'accepted') return { ...base, kind: 'decision', decision: 'accepted' };
    if (body.decision === 'rejected') {
      const parsed = ReviewDecision.safeParse({
        ...base,
        decision: 'rejected',
        reason: body.reason,
        note: body.note,
      });
      if (!parsed.success) throw new ReviewRefusal(issuesText(parsed.error));
      return parsed.data;
    }
    const standing = (await decisions()).decided.get(q.id);
    const current = standing?.decision === 'edited' && standing.question ? standing.question : q;
    const verdict = await opts.reverify(appliedEdits(current, body.edits));
    if (!verdict.ok)
      throw new ReviewRefusal(`not saved: re-verification failed: ${verdict.message}`, 422, verdict.reason);
    return { ...base, kind: 'decision', decision: 'edited', question: verdict.question };
  }

  return {
    file: opts.file,
    async state() {
      const { decided, stale } = await decisions();
      return reviewState(ids, decided, stale.length, opts);
    },
    async view(index) {
      const id = Number.isInteger(index) ? ids[index] : undefined;
      if (id === undefined) throw new ReviewRefusal(`no question ${index} (there are ${ids.length})`, 404);
      return questionView(index, questionOf(id), (await decisions()).decided.get(id), opts.read);
    },
    async submit(body) {
      const parsed = ReviewSubmission.safeParse(body);
      if (!parsed.success) throw new ReviewRefusal(issuesText(parsed.error));
      const decision = await record(parsed.data);
      await appendReviewRecord(opts.file, decision);
      return decision;
    },
    async undo() {
      const { decided } = await decisions();
      const last = [...decided.values()].sort((a, b) => a.line - b.line).at(-1);
      if (!last) return null;
      await appendReviewRecord(opts.file, {
        kind: 'undo',
        question_id: last.question_id,
        at: now().toISOString(),
      });
      return last.question_id;
    },
  };
}
