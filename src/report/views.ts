/**
 * What the report reads: the case rows, the run state's budget and the run's description, as views
 * (the fields the report uses; the stored rows and src/run's values have more). The report's modules
 * import these; nothing here imports them back.
 */
import type { StopKindName } from './stops.ts';

export interface JudgeScoreView {
  judgeId: string;
  family: string;
  status: 'scored' | 'unscored';
  /** why the judge's last reply ended (absent: complete) */
  stop?: { kind: StopKindName } | undefined;
  verdict: {
    correctness: { score: number };
    grounding: { score: number };
    calibration: { score: number };
  } | null;
}

export interface TokenView {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** The run's GFS weights (the run config's gfs_weights; src/scoring's GfsWeights). */
export interface GfsWeightsView {
  correctness: number;
  grounding: number;
  calibration: number;
}

/** What the stages of the run recorded (the run state file): the pre-flight estimate and the spend. */
export interface RunBudgetView {
  mode: string;
  stopped: string | null;
  budget_warnings: readonly string[];
  estimate: {
    lines: readonly {
      provider: string;
      model: string;
      role: string;
      batch: boolean;
      calls: number;
      expectedUsd: number;
      naiveUsd: number;
      worstUsd: number;
    }[];
    totals: { calls: number; expectedUsd: number; naiveUsd: number; worstUsd: number };
  } | null;
  spend: {
    usd: number;
    /** calls of killed processes with no reply on record: possibly billed, at most this; not spend */
    unknown_usd: number;
    by_payer: readonly { provider: string; model: string; role: string; usd: number; calls: number }[];
  };
}

/** What the summary needs of a case row (the stored row has more). */
export interface CaseRowView {
  question_id: string;
  category: string;
  expected_behavior?: string;
  question?: { text: string; gold_answer: string; gold_quotes: readonly string[] } | undefined;
  /** the question's gold is not traced to a source here: such questions are also scored apart */
  gold_untraced?: true | undefined;
  subject_id: string;
  model: string;
  run_index: number;
  /** hash of the subject prompt template (version), not of one request */
  subject_prompt_hash: string;
  judge_prompt_hash: string;
  /** why the subject's reply ended (absent: complete) */
  answer_stop?: { kind: StopKindName } | undefined;
  latency_ms: number;
  cost_usd: number;
  /** the answer's identity in the cell store: what human labels and reviews join on */
  answer_key?: string;
  /** what the case's calls would have cost without prompt caching (absent in older rows) */
  uncached_cost_usd?: number;
  usage?: TokenView;
  judge_usage?: TokenView;
  verdicts: readonly JudgeScoreView[];
  /** as `caseScores` (src/scoring) returns them: null values and `unscored` when no judge scored */
  scores: {
    correctness: number | null;
    grounding: number | null;
    calibration: number | null;
    gfsPrimary: number | null;
    gfsEqual: number | null;
    unscored: boolean;
    contested: boolean;
    contestedDimensions: readonly string[];
  };
  checks: Record<string, { passed: boolean | null } | unknown>;
  /** the subject's answer (absent in older rows) */
  answer?: string;
  /** whether a gold chunk was in rge's top k (null: no gold chunk, or a system's own contexts) */
  retrieval_hit?: boolean | null;
  /** how much of the gold evidence the passages the subject answered from held (absent in older rows) */
  evidence?: { recall: number | null; missing?: readonly string[] };
  /**
   * a case the subject gave no answer for, as the ranking scores it (0 everywhere: src/report/outcomes.ts);
   * never a stored row
   */
  no_answer?: true;
}

/**
 * A case without a result, as the report lists it under Errors: its test name and error and, when the
 * case said (absent in older runs), its cell and whose failure it was: `subject` when the subject gave
 * no answer, its own failure (a user's system crashed, timed out, exited non-zero, replied malformed or
 * with an HTTP error, broke the contract), scored 0 in the ranking and the gate; `run` when the case
 * could not be completed for another reason (a judge's call, the run stopped, rge's own error), left out.
 */
export interface CaseErrorView {
  name: string;
  message: string;
  subject_id?: string;
  question_id?: string;
  run_index?: number;
  category?: string;
  by?: 'subject' | 'run';
  gold_untraced?: true;
}

/** A subject or judge as the report shows it: its model, what its requests sent, the deviation from T = 0. */
export interface DescribedModelView {
  id: string;
  provider: string;
  model: string;
  family: string;
  /** the sampling and reasoning parameters sent, in words (`temperature 0, reasoning_effort none, seed`) */
  sent: string;
  /** the output token limit sent */
  maxTokens: number;
  /** how `sent` departs from the methodology's temperature 0, and why; null when 0 is sent */
  deviation: string | null;
  /** a system subject's version (declared, or the hash of its files); absent for a model */
  version?: string;
}

/**
 * What was run, as the report's provenance table (its last section) shows it. The one definition: src/run/prepare.ts fills it
 * with its DescribedModel (this view and the parameters sent), which it cannot name here.
 */
export interface RunDescription<Model extends DescribedModelView = DescribedModelView> {
  config: string;
  /** the config file, relative to the folder rge ran in (absent in older summaries) */
  configFile?: string;
  /** the GFS weights the run scored with (absent in older summaries): a gate compares runs of equal weights */
  gfsWeights?: GfsWeightsView;
  subjects: readonly Model[];
  judges: readonly Model[];
  /** rge's corpus and retrieval; absent for a run of systems only, which retrieve for themselves */
  corpus?: { embedder: string; chunkTokens: number; overlapTokens: number; k: number; index: string };
  questions: {
    file: string;
    version: number;
    n: number;
    /** where the questions' gold comes from, when the set says (absent for sets that do not) */
    gold?: { xbrl: number; untraced: number; absent: number; unstated: number };
    /** what a narrowed run covers per category (absent for the whole set) */
    slice?: string;
  };
  runs: number;
  mode: string;
  thresholds: {
    correctness: number | null;
    grounding: number | null;
    calibration: number | null;
    gfs: number | null;
  };
  subjectPrompt: { version: string; sha256: string; file?: string | null };
  judgePrompt: { version: string; sha256: string };
}

/**
 * A row the report reads in its compact form (the numbers, flags and ids every statistic needs; no
 * answer, question, rationale or check detail) carries, under this key, how to read its whole stored row
 * again: the few cases the report shows in full (drill-downs, failure examples) are read back one by one,
 * so a run of a hundred thousand cases is reported without holding their texts (issue 41).
 */
export const FULL_ROW: unique symbol = Symbol('rge.fullRow');

export interface StoredRowRef {
  read(): CaseRowView;
}

/** The row in full: itself, or read back from where its compact form says it is. */
export function fullRow(r: CaseRowView): CaseRowView {
  const ref = (r as CaseRowView & { [FULL_ROW]?: StoredRowRef })[FULL_ROW];
  return ref ? ref.read() : r;
}
