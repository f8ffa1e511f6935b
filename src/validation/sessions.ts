/**
 * What a labelling or review session holds and does, apart from HTTP: the items, who is labelling, what
 * they have done so far (read back from the labels file each time, so a reload or a second tab sees
 * everything), where the page resumes, and how a submission becomes a validated record appended to its
 * file. Submissions are validated with zod; a bad one is a `SubmissionError` (an HTTP 400) and nothing
 * is written.
 */
import type { Dimension, JudgeOutcome } from '../judging/verdict.ts';
import { type CaseView, type ContestedCaseView, caseView, reviewView } from './case-view.ts';
import {
  appendRecord,
  judgeOutcomesHash,
  labelsFile,
  readLabelsFile,
  readReviews,
  reviewsFile,
} from './labels.ts';
import { type Rubric, rubricFromPrompt } from './rubric.ts';
import {
  ContestedReview,
  HumanLabel,
  LabelSubmission,
  ReviewSubmission,
  type ValidationItem,
  type ValidationSample,
} from './schema.ts';

/** A submission the server refuses (HTTP 400, or 403/404 with `status`); nothing is written. */
export class SubmissionError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = 'SubmissionError';
  }
}

/** What a person has given for an item, as the page shows it. */
export interface GivenOutcome {
  correctness: number;
  grounding: number;
  calibration: number;
  text: string;
  at: string;
}

export interface SessionState {
  mode: 'label' | 'review';
  title: string;
  person: string;
  total: number;
  item_ids: string[];
  /** by item id: what this person last gave */
  done: Record<string, GivenOutcome>;
  /** the first item this person has not done (0 when all are done) */
  start: number;
  rubric: Rubric;
}

/** A contested response for review: the item and the dimensions on which its judges differ by > 1. */
export interface ContestedItem {
  item: ValidationItem;
  contestedDimensions: Dimension[];
}

export interface ValidationSession {
  readonly mode: 'label' | 'review';
  readonly file: string;
  state(): Promise<SessionState>;
  view(index: number): CaseView | ContestedCaseView;
  /** the judges' verdicts of an item; a label session refuses them until this person has labelled it */
  verdicts(index: number): Promise<JudgeOutcome[]>;
  submit(body: unknown): Promise<HumanLabel | ContestedReview>;
}

function issuesText(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || 'body'}: ${i.message}`).join('; ');
}

/** What the page shows of a session: its items, what this person has done, where to start. */
function stateOf(
  mode: SessionState['mode'],
  title: string,
  person: string,
  itemIds: string[],
  done: Record<string, GivenOutcome>,
): SessionState {
  const first = itemIds.findIndex((id) => !(id in done));
  return {
    mode,
    title,
    person,
    total: itemIds.length,
    item_ids: itemIds,
    done,
    start: Math.max(first, 0),
    rubric: rubricFromPrompt(),
  };
}

function itemAt<T>(items: readonly T[], index: number): T {
  const item = Number.isInteger(index) ? items[index] : undefined;
  if (item === undefined) throw new SubmissionError(`no item ${index} (there are ${items.length})`, 404);
  return item;
}

/** Labelling a validation sample (methodology 5.4): verdicts hidden until the item is labelled. */
export function labelSession(
  sample: ValidationSample,
  labeller: string,
  labelsDir: string,
): ValidationSession {
  const file = labelsFile(labelsDir, sample.sample_id);
  const itemIds = sample.items.map((i) => i.item_id);
  const mine = async () =>
    (await readLabelsFile(file)).filter((l) => l.labeller === labeller && l.sample_id === sample.sample_id);
  const given = async (): Promise<Record<string, GivenOutcome>> =>
    Object.fromEntries(
      (await mine()).map((l) => [
        l.item_id,
        {
          correctness: l.correctness,
          grounding: l.grounding,
          calibration: l.calibration,
          text: l.rationale,
          at: l.labelled_at,
        },
      ]),
    );
  return {
    mode: 'label',
    file,
    async state() {
      return stateOf('label', `validation sample ${sample.sample_id}`, labeller, itemIds, await given());
    },
    view: (index) => caseView(itemAt(sample.items, index), index),
    async verdicts(index) {
      const item = itemAt(sample.items, index);
      if (!(item.item_id in (await given())))
        throw new SubmissionError(
          `label ${item.item_id} first: the judges' verdicts are shown only after`,
          403,
        );
      return item.verdicts;
    },
    async submit(body) {
      const parsed = LabelSubmission.safeParse(body);
      if (!parsed.success) throw new SubmissionError(issuesText(parsed.error));
      const item = sample.items.find((i) => i.item_id === parsed.data.item_id);
      if (!item) throw new SubmissionError(`no item ${parsed.data.item_id} in sample ${sample.sample_id}`);
      const label = HumanLabel.safeParse({
        kind: 'label',
        sample_id: sample.sample_id,
        item_id: item.item_id,
        answer_key: item.answer_key,
        labeller,
        correctness: parsed.data.correctness,
        grounding: parsed.data.grounding,
        calibration: parsed.data.calibration,
        rationale: parsed.data.rationale,
        labelled_at: new Date().toISOString(),
      } satisfies HumanLabel);
      if (!label.success) throw new SubmissionError(issuesText(label.error));
      await appendRecord(file, label.data);
      return label.data;
    },
  };
}

/** Hand-review of contested responses (methodology 5.3): both verdicts shown from the start. */
export function reviewSession(
  runId: string,
  items: readonly ContestedItem[],
  reviewer: string,
  labelsDir: string,
): ValidationSession {
  const file = reviewsFile(labelsDir);
  const itemIds = items.map((c) => c.item.item_id);
  const hashes = new Map(items.map((c) => [c.item.answer_key, judgeOutcomesHash(c.item.verdicts)]));
  // a review counts for this item when it reviewed the same answer and the same judge outputs
  const given = async (): Promise<Record<string, GivenOutcome>> =>
    Object.fromEntries(
      (await readReviews(labelsDir))
        .filter((r) => r.reviewer === reviewer && hashes.get(r.answer_key) === r.judge_outcomes_hash)
        .map((r) => [r.item_id, { ...r.outcome, text: r.note, at: r.reviewed_at }]),
    );
  return {
    mode: 'review',
    file,
    async state() {
      return stateOf('review', `contested responses of run ${runId}`, reviewer, itemIds, await given());
    },
    view(index) {
      const c = itemAt(items, index);
      return reviewView(c.item, index, c.contestedDimensions);
    },
    verdicts: async (index) => itemAt(items, index).item.verdicts,
    async submit(body) {
      const parsed = ReviewSubmission.safeParse(body);
      if (!parsed.success) throw new SubmissionError(issuesText(parsed.error));
      const c = items.find((i) => i.item.item_id === parsed.data.item_id);
      if (!c) throw new SubmissionError(`no contested item ${parsed.data.item_id} in run ${runId}`);
      const review = ContestedReview.safeParse({
        kind: 'review',
        item_id: c.item.item_id,
        answer_key: c.item.answer_key,
        reviewer,
        outcome: parsed.data.outcome,
        note: parsed.data.note,
        judge_outcomes_hash: judgeOutcomesHash(c.item.verdicts),
        reviewed_at: new Date().toISOString(),
      } satisfies ContestedReview);
      if (!review.success) throw new SubmissionError(issuesText(review.error));
      await appendRecord(file, review.data);
      return review.data;
    },
  };
}
