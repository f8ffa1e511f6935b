/**
 * rge's subjects and panel as vitest-evals sees them ("a harness runs the system under test; a judge
 * assesses a run"). The stages have already run the system under test and the panel (answers, then
 * verdicts, in the cell stores), so both sides READ:
 *
 * - A subject is a harness (`subjectHarness`): retrieval plus the subject call. Its run of a case returns
 *   the stored answer as the output, with the question and answer as the transcript, the subject call's
 *   usage and latency, and the retrieval as a span; a cell the stages could not complete fails the run
 *   with the stages' reason.
 * - The subject's cross-family panel is a set of vitest-evals judges (`panelScorers`, each a
 *   `PanelScorer`, not judging's `PanelJudge`): for each panel judge, one scorer per dimension (correctness, grounding, calibration) whose score is the judge's 0-2 score halved, with
 *   the judge's rationale and evidence; and the case's GFS (primary weights, 0-1). An unscored verdict is
 *   a null score (vitest-evals' "intentionally unscored"), never a 0.
 *
 * The rows, scores and statistics stay rge's (run/case/case.ts, scoring, stats, report): this is a view.
 */
import type { Harness, Judge, JudgeContext, JudgeResult } from 'vitest-evals';
import { createHarness } from 'vitest-evals';
import { DIMENSIONS, type Dimension, type JudgeOutcome } from '../judging/verdict.ts';
import { type CaseRow, caseRow } from '../run/case/case.ts';
import type { PlannedSubject } from '../run/plan/index.ts';
import { contextsOf, type RunSession, type SubjectCell } from '../run/session/index.ts';
import type { AnswerRecord } from '../store/cells.ts';
import type { RunState } from '../store/run-state.ts';

/** What a case asks the harness for: one (subject, question, run index) cell. */
export interface RgeCaseInput {
  /** `subject/question/run n` */
  cell: string;
  question_id: string;
  category: string;
  question: string;
  run_index: number;
}

export type SubjectHarness = Harness<RgeCaseInput, string>;
/** A vitest-evals judge that reads one stored score of a case (a panel judge's dimension, or GFS). */
export type PanelScorer = Judge<JudgeContext<RgeCaseInput, string, SubjectHarness>>;

export function caseInput(cell: SubjectCell): RgeCaseInput {
  return {
    cell: cell.id,
    question_id: cell.question.id,
    category: cell.question.category,
    question: cell.question.text,
    run_index: cell.runIndex,
  };
}

/**
 * The cells of a suite and what the stores hold for them: the answer, and the case row (answer, checks,
 * verdicts, scores) assembled once per cell. A missing answer or verdict throws the stages' reason.
 */
export class CaseBook {
  private readonly cells = new Map<string, SubjectCell>();
  private readonly rows = new Map<string, CaseRow>();

  constructor(
    private readonly run: RunSession,
    cells: readonly SubjectCell[],
    private readonly state: () => RunState | null,
  ) {
    for (const cell of cells) this.cells.set(cell.id, cell);
  }

  cell(id: string): SubjectCell {
    const cell = this.cells.get(id);
    if (!cell) throw new Error(`no cell ${id} in this suite`);
    return cell;
  }

  answer(id: string): AnswerRecord {
    const cell = this.cell(id);
    const answer = this.run.answers(cell.subject).get(cell.key);
    if (answer) return answer;
    this.row(id); // throws why the answer is missing
    throw new Error(`${id}: no answer`);
  }

  /** Forgets a cell's row once its case is done (a long run holds no row past its case). */
  release(id: string): void {
    this.rows.delete(id);
  }

  row(id: string): CaseRow {
    let row = this.rows.get(id);
    if (!row) {
      row = caseRow(this.run, this.cell(id), this.state());
      this.rows.set(id, row);
    }
    return row;
  }
}

/** A subject as a vitest-evals harness over the stored answers. */
export function subjectHarness(run: RunSession, subject: PlannedSubject, book: CaseBook): SubjectHarness {
  const { provider, model } = subject.config;
  return createHarness<RgeCaseInput, string>({
    name: `${subject.id} (${provider}/${model})`,
    run: ({ input }) => {
      const cell = book.cell(input.cell);
      const answer = book.answer(input.cell);
      // what the subject answered from: rge's top-k, or a system's own contexts
      const retrieved = contextsOf(cell, answer).map((c) => ({
        id: c.id,
        heading: c.heading,
        pages: c.pages,
        ...(c.source !== undefined ? { source: c.source } : {}),
      }));
      const usage = answer.usage;
      return {
        output: answer.text,
        events: [
          { type: 'message', role: 'user', content: input.question },
          { type: 'message', role: 'assistant', content: answer.text },
        ],
        usage: {
          provider,
          model,
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          totalTokens: usage.inputTokens + usage.outputTokens,
          metadata: { cacheReadTokens: usage.cacheReadTokens, cacheWriteTokens: usage.cacheWriteTokens },
        },
        timings: { totalMs: answer.latency_ms, metadata: { batch: answer.batch } },
        artifacts: {
          answer_key: answer.key,
          reply_model: answer.reply_model,
          cost_usd: answer.cost_usd,
          answered_at: answer.created_at,
        },
        traces: [
          {
            id: answer.key.slice(0, 16),
            name: subject.id,
            spans: [
              {
                name: 'retrieve',
                kind: 'custom',
                status: 'ok',
                attributes: {
                  'rge.retrieval.k': run.plan.config.retrieval.k,
                  'rge.retrieval.chunks': retrieved,
                },
              },
              {
                name: `answer ${provider}/${model}`,
                kind: 'model',
                status: 'ok',
                durationMs: answer.latency_ms,
                attributes: {
                  'gen_ai.operation.name': 'chat',
                  'gen_ai.provider.name': provider,
                  'gen_ai.request.model': model,
                  'gen_ai.response.model': answer.reply_model,
                  'gen_ai.usage.input_tokens': usage.inputTokens,
                  'gen_ai.usage.output_tokens': usage.outputTokens,
                },
              },
            ],
          },
        ],
      };
    },
  });
}

/** One dimension of one panel judge's verdict, on vitest-evals' 0-1 scale. */
export function dimensionScore(outcome: JudgeOutcome, dimension: Dimension): JudgeResult {
  if (outcome.status !== 'scored' || outcome.verdict === null)
    return {
      score: null,
      metadata: {
        rationale: `unscored: ${outcome.error ?? 'the reply could not be parsed'}`,
        judge: outcome.judgeId,
        attempts: outcome.attempts,
        output: outcome.raw,
      },
    };
  const v = outcome.verdict[dimension];
  return {
    score: v.score / 2,
    metadata: {
      rationale: v.rationale,
      judge: outcome.judgeId,
      family: outcome.family,
      rubricScore: v.score,
      evidence: v.evidence,
    },
  };
}

/**
 * A panel judge's score of a case whose answer was not judged: the subject's reply did not end on its
 * own (cut at the output limit, a refusal, a safety stop), so no judge was asked and nothing is scored.
 */
export function notJudged(row: CaseRow, judgeId: string): JudgeResult {
  const stop = row.answer_stop;
  return {
    score: null,
    metadata: {
      rationale: `unscored: the answer was not judged (its reply ended ${stop ? `${stop.kind}: ${stop.reason}` : 'without a verdict'})`,
      judge: judgeId,
    },
  };
}

/**
 * The case's GFS (primary weights), already on 0-1. Its rationale, which vitest-evals' report UI shows in
 * full beside the judges' ("Judge evidence"), says whether the score gates the case or is only recorded
 * (every threshold null), and gives the question's gold answer and quotes to read the answer against;
 * the metadata carries the same as data (`gated`, `gold_answer`, `gold_quotes`).
 */
export function gfsScore(row: CaseRow, thresholds?: Record<string, number | null>): JudgeResult {
  const s = row.scores;
  const panel = `${s.scoredJudges} of ${row.verdicts.length} panel judges scored`;
  const gated = thresholds === undefined ? undefined : isGated(thresholds);
  const gold = row.question;
  const rationale =
    s.gfsPrimary === null
      ? `unscored: ${panel}`
      : `GFS ${s.gfsPrimary.toFixed(3)}${gated === false ? ', recorded, not gated (every threshold is null)' : ''}; ${panel}` +
        (s.contested ? `; contested on ${s.contestedDimensions.join(', ')}` : '');
  return {
    score: s.gfsPrimary,
    metadata: {
      rationale: gold ? `${rationale}. ${goldText(gold)}` : rationale,
      gfsEqual: s.gfsEqual,
      contested: s.contested,
      partial: s.partial,
      ...(thresholds ? { gating: gatingNote(thresholds), gated: gated === true } : {}),
      ...(gold ? { gold_answer: gold.gold_answer, gold_quotes: [...gold.gold_quotes] } : {}),
    },
  };
}

/** "Gold answer: ... Gold quotes: “...” “...”" (a question without quotes, e.g. out of domain, says so). */
function goldText(gold: { gold_answer: string; gold_quotes: readonly string[] }): string {
  const quotes =
    gold.gold_quotes.length > 0 ? gold.gold_quotes.map((q) => `\u201c${q}\u201d`).join(' ') : 'none';
  const answer = gold.gold_answer.trim();
  return `Gold answer: ${answer}${/[.!?]$/.test(answer) ? '' : '.'} Gold quotes: ${quotes}`;
}

/**
 * The subject's cross-family panel as vitest-evals judges: `<judge> <dimension>` for each panel judge and
 * dimension, then `GFS`.
 */
export function panelScorers(run: RunSession, subject: PlannedSubject, book: CaseBook): PanelScorer[] {
  const judges: PanelScorer[] = [];
  for (const [at, judge] of run.work.panel(subject).entries())
    for (const dimension of DIMENSIONS)
      judges.push({
        name: `${judge.id} ${dimension}`,
        assess: ({ input }) => {
          const row = book.row(input.cell);
          const outcome = row.verdicts[at];
          return outcome ? dimensionScore(outcome, dimension) : notJudged(row, judge.id);
        },
      });
  // the pass or fail vitest-evals shows is rge's matchers': say what gates it, or that nothing does
  const thresholds = run.plan.config.thresholds;
  judges.push({ name: 'GFS', assess: ({ input }) => gfsScore(book.row(input.cell), thresholds) });
  return judges;
}

interface EvalMetaHolder {
  meta: { eval?: { scores: { name?: string; score: number | null }[]; avgScore: number } };
}

/**
 * The case's headline score in vitest-evals is its GFS (the `GFS` scorer), not vitest-evals' plain mean
 * of the judges' dimension scores and GFS. An unscored GFS leaves the mean of the scores there are
 * (vitest-evals would count an unscored one as 0; rge never scores a failure as a zero).
 */
export function headlineGfs(task: EvalMetaHolder): void {
  const meta = task.meta.eval;
  if (!meta) return;
  const gfs = meta.scores.find((s) => s.name === 'GFS')?.score;
  if (gfs !== undefined && gfs !== null) {
    meta.avgScore = gfs;
    return;
  }
  const scored = meta.scores.flatMap((s) => (s.score === null ? [] : [s.score]));
  if (scored.length > 0) meta.avgScore = scored.reduce((a, b) => a + b, 0) / scored.length;
}

/** Whether any threshold gates the cases (else every case passes and its scores are a record). */
export function isGated(thresholds: Record<string, number | null>): boolean {
  return Object.values(thresholds).some((v) => v !== null);
}

/** What the case's pass or fail means: which thresholds gate it, or that none does. */
export function gatingNote(thresholds: Record<string, number | null>): string {
  const gated = Object.entries(thresholds).filter(([, v]) => v !== null);
  return gated.length === 0
    ? 'not gated: every threshold is null, so every case passes; the scores are a record'
    : `gated: ${gated.map(([k, v]) => `${k} >= ${v}`).join(', ')}`;
}
