/**
 * `rge traces judge`: the logged cases of one window (DIR/cases.jsonl) judged with a run config's judges,
 * with no call to the application: each case's answer and contexts are the trace's. Every case is judged
 * by the cross-family panel of the config's judges (no judge of the application's `--family`), on
 * grounding against the trace's own contexts and calibration, and checked deterministically (numbers
 * traced, citations resolve, claim faithfulness); correctness only where the question matches a
 * question of the config's golden set (src/traces/golden.ts), whose gold then applies.
 * Writes DIR/judged.jsonl (one `JudgedTraceCase` a line, `--out` to write elsewhere) and
 * DIR/judged.json (`TraceJudgeSummary`), and prints the summary.
 */
import { dirname, join, relative, resolve } from 'node:path';
import { citationsResolve, claimFaithfulness, numbersTraced } from '../checks/index.ts';
import { judgeModelOf } from '../judging/config.ts';
import { crossFamilyPanel } from '../judging/panel.ts';
import type { JudgeOutcome } from '../judging/verdict.ts';
import { isLiveProvider } from '../models/registry.ts';
import { loadQuestions } from '../questions/load.ts';
import { caseScores } from '../scoring/gfs.ts';
import { GOLDEN_MATCH_RULE, GoldenSet } from '../traces/golden.ts';
import { type JudgedTraceCase, traceJudgeInput } from '../traces/judged.ts';
import { type NumberedCase, readTraceCases, sampleCases, type TraceSample } from '../traces/sample.ts';
import { UsageError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/fs.ts';
import { judgeItems } from '../validation/judge-items.ts';
import { whileStoppable } from './interrupt.ts';
import { type CliIO, existingPath } from './io.ts';
import { JUDGED_KEPT, type OpenedJudges, openJudges } from './judge-agree.ts';

export interface TracesJudgeFlags {
  cases: string;
  config?: string;
  family?: string;
  sample?: string;
  stratify?: string;
  seed?: string;
  out?: string;
  resultsDir: string;
}

/** The family of an application whose `--family` is not given: no judge is of it, so none is left out. */
export const UNKNOWN_FAMILY = 'logged-traces';
/** The default seed of `--sample`. */
export const DEFAULT_TRACE_SEED = 'rge-traces';

/** The mean of the non-null values and how many there are. */
const meanOf = (xs: readonly (number | null)[]) => {
  const v = xs.filter((x): x is number => x !== null);
  return { mean: v.length === 0 ? null : v.reduce((s, x) => s + x, 0) / v.length, n: v.length };
};

/** `rge traces judge` (options in traces-commands.ts). */
export async function tracesJudgeAction(flags: TracesJudgeFlags, io: CliIO): Promise<void> {
  const casesFile = existingPath(io.cwd, '--cases', flags.cases);
  if (flags.stratify !== undefined && flags.sample === undefined)
    throw new UsageError('--stratify names the field a sample is stratified by: give --sample N with it');
  const all = await readTraceCases(casesFile);
  const drawn =
    flags.sample === undefined
      ? null
      : sampleCases(all, {
          n: Number(flags.sample),
          stratify: flags.stratify ?? null,
          seed: flags.seed ?? DEFAULT_TRACE_SEED,
        });
  const cases = drawn?.cases ?? all;
  const opened = await openJudges(io, {
    ...(flags.config === undefined ? {} : { config: flags.config }),
    judge: [],
    resultsDir: flags.resultsDir,
  });
  const golden = new GoldenSet(
    (await loadQuestions(resolve(io.cwd, opened.config.questions.file))).map((r) => r.value),
  );
  const family = flags.family ?? UNKNOWN_FAMILY;
  const judged = await whileStoppable({ log: (line) => io.err(`${line}\n`), kept: JUDGED_KEPT }, (signal) =>
    judgeTraceCases(opened, cases, golden, family, signal),
  );
  const out = resolve(io.cwd, flags.out ?? dirname(casesFile));
  const summary = traceJudgeSummary(judged, {
    cases: relative(io.cwd, casesFile) || casesFile,
    inFile: all.length,
    sample: drawn?.sample ?? null,
    opened,
    family,
  });
  await writeFileAtomic(
    join(out, 'judged.jsonl'),
    judged.map((j) => `${JSON.stringify(j)}\n`),
  );
  await writeFileAtomic(join(out, 'judged.json'), `${JSON.stringify(summary, null, 2)}\n`);
  io.out(formatTraceJudgeSummary(summary, relative(io.cwd, join(out, 'judged.jsonl'))));
}

/**
 * Every case judged by the panel of `family` (two judges of other families, src/judging/panel.ts),
 * judge after judge; a live judge's calls are settled in the ledger case by case.
 */
async function judgeTraceCases(
  opened: OpenedJudges,
  cases: readonly NumberedCase[],
  golden: GoldenSet,
  family: string,
  signal: AbortSignal,
): Promise<JudgedTraceCase[]> {
  const panel = crossFamilyPanel(
    family,
    opened.judges.map((j) => ({ ...j, id: j.entry.id, family: j.entry.family })),
  );
  const matches = cases.map((c) => golden.match(c.case.question));
  const items = cases.map((c, i) => ({
    id: c.questionId,
    input: traceJudgeInput(c, matches[i]?.question ?? null),
    // a logged case has no people's label: the agreement fields are unused here
    human: -1,
    subset: '',
  }));
  const byJudge: JudgeOutcome[][] = [];
  const live = panel.some((j) => isLiveProvider(j.entry.provider));
  try {
    for (const { entry, provider } of panel) {
      const metered = isLiveProvider(entry.provider);
      byJudge.push(
        await judgeItems(items, provider, {
          model: judgeModelOf(entry),
          prompt: opened.prompt,
          concurrent: metered,
          signal,
          ...(metered ? { onJudged: (charges) => opened.ledger.settleCharges(charges) } : {}),
        }),
      );
    }
  } finally {
    if (live) await opened.ledger.writeSummary();
  }
  return cases.map((c, i) =>
    judgedRecord(
      c,
      matches[i]?.match ?? null,
      items[i]?.input.numericGold ?? [],
      byJudge.map((o) => o[i] as JudgeOutcome),
    ),
  );
}

/** One judged case from its panel's outcomes and the checks against its own contexts. */
function judgedRecord(
  numbered: NumberedCase,
  match: JudgedTraceCase['golden'],
  numericGold: Parameters<typeof numbersTraced>[2],
  outcomes: readonly JudgeOutcome[],
): JudgedTraceCase {
  const { case: c } = numbered;
  const scores = caseScores(outcomes);
  const gold = match !== null;
  const chunks = traceJudgeInput(numbered, null).chunks;
  const answer = c.answer.answer;
  return {
    trace_id: c.trace_id,
    question_id: numbered.questionId,
    question: c.question,
    started_at: c.started_at,
    fields: c.fields,
    origin: c.origin,
    golden: match,
    scores: {
      grounding: scores.grounding,
      calibration: scores.calibration,
      correctness: gold ? scores.correctness : null,
      gfs_primary: gold ? scores.gfsPrimary : null,
    },
    unscored: scores.unscored,
    contested: scores.contestedDimensions.some((d) => gold || d !== 'correctness'),
    checks: {
      numbers_traced: numbersTraced(answer, chunks, numericGold).passed,
      citations_resolve: citationsResolve(answer, chunks).passed,
      claim_faithfulness: claimFaithfulness(answer, chunks, numericGold).score,
    },
    judges: outcomes.map((o) => ({
      id: o.judgeId,
      family: o.family,
      status: o.status,
      grounding: o.verdict?.grounding.score ?? null,
      calibration: o.verdict?.calibration.score ?? null,
      correctness: gold ? (o.verdict?.correctness.score ?? null) : null,
      error: o.error,
    })),
  };
}

/** DIR/judged.json: what was judged, how it was sampled and matched, and the window's means. */
export interface TraceJudgeSummary {
  cases_file: string;
  cases_in_file: number;
  judged: number;
  sample: TraceSample | null;
  config: string;
  judges: { id: string; family: string }[];
  judge_prompt_sha256: string;
  application_family: string;
  golden_rule: string;
  golden_matched: { exact: number; lexical: number };
  unscored: number;
  means: Record<string, { mean: number | null; n: number }>;
}

function traceJudgeSummary(
  judged: readonly JudgedTraceCase[],
  ctx: { cases: string; inFile: number; sample: TraceSample | null; opened: OpenedJudges; family: string },
): TraceJudgeSummary {
  const scores = (pick: (j: JudgedTraceCase) => number | null) => meanOf(judged.map(pick));
  return {
    cases_file: ctx.cases,
    cases_in_file: ctx.inFile,
    judged: judged.length,
    sample: ctx.sample,
    config: ctx.opened.configName,
    judges: [
      ...new Map(judged.flatMap((j) => j.judges).map((j) => [j.id, { id: j.id, family: j.family }])).values(),
    ],
    judge_prompt_sha256: ctx.opened.prompt.sha256,
    application_family: ctx.family,
    golden_rule: GOLDEN_MATCH_RULE,
    golden_matched: {
      exact: judged.filter((j) => j.golden?.how === 'exact').length,
      lexical: judged.filter((j) => j.golden?.how === 'lexical').length,
    },
    unscored: judged.filter((j) => j.unscored).length,
    means: {
      grounding: scores((j) => j.scores.grounding),
      calibration: scores((j) => j.scores.calibration),
      correctness: scores((j) => j.scores.correctness),
      gfs_primary: scores((j) => j.scores.gfs_primary),
      claim_faithfulness: scores((j) => j.checks.claim_faithfulness),
      numbers_traced: scores((j) =>
        j.checks.numbers_traced === null ? null : Number(j.checks.numbers_traced),
      ),
      citations_resolve: scores((j) =>
        j.checks.citations_resolve === null ? null : Number(j.checks.citations_resolve),
      ),
    },
  };
}

/** The printed summary. */
export function formatTraceJudgeSummary(s: TraceJudgeSummary, written: string): string {
  const f = (x: number | null) => (x === null ? 'n/a' : x.toFixed(3));
  const sample = s.sample
    ? `a sample of ${s.judged} of ${s.cases_in_file} (seed ${s.sample.seed}${s.sample.stratify ? `, stratified by ${s.sample.stratify}: ${s.sample.strata.map((x) => `${x.value} ${x.sampled}/${x.cases}`).join(', ')}` : ''})`
    : `all ${s.judged} cases`;
  return [
    `judged ${sample} of ${s.cases_file} with ${s.judges.map((j) => j.id).join(' and ')} (${s.config}); no call to the application`,
    `golden matches: ${s.golden_matched.exact} exact, ${s.golden_matched.lexical} near-duplicate (rule: ${s.golden_rule}); correctness is judged only for them`,
    ...Object.entries(s.means).map(([d, m]) => `  ${d.padEnd(20)} ${f(m.mean)} (n ${m.n})`),
    `unscored: ${s.unscored}`,
    `wrote ${written} and judged.json`,
    '',
  ].join('\n');
}
