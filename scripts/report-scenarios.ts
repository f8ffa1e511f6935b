/**
 * The report of five made-up runs, from the code of a checkout: a sha256 of each one's summary.json,
 * summary.md (with and without the chart's link) and gfs.svg, one line a run. The runs reach what the
 * fixture run does not: over 100 errors, a subject's own failures, other errors, a budget with warnings
 * and a stop, a partial report, people's labels and reviews, unscored, contested and truncated cases,
 * untraced gold, a system subject, one subject, no rows. scripts/same-fixture-run.mjs runs it in the
 * clones of both revisions and compares the lines; it imports nothing of this checkout, so it runs
 * against an older revision too (the report's entry points: src/report/summary.ts `summarise`,
 * src/report/markdown.ts `renderMarkdown`, `gfsChartSvg` from src/report/chart-svg.ts or, before issue 54,
 * markdown.ts).
 *
 *   npx tsx scripts/report-scenarios.ts [CHECKOUT]     (default: this checkout)
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
const imp = (p: string) => import(pathToFileURL(join(dir, p)).href);
const { summarise } = await imp('src/report/summary.ts');
const { renderMarkdown } = await imp('src/report/markdown.ts');
const { gfsChartSvg } = existsSync(join(dir, 'src/report/chart-svg.ts'))
  ? await imp('src/report/chart-svg.ts')
  : await imp('src/report/markdown.ts');

const CATS = ['grounded-direct', 'grounded-multihop', 'adversarial', 'out-of-domain'];
const sha = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);
const v = (c: number, g: number, k: number) => ({
  correctness: { score: c },
  grounding: { score: g },
  calibration: { score: k },
});

function row(subject: string, q: number, run: number, seed: number) {
  const x = (q * 7 + run * 3 + seed) % 11;
  const c = x % 3;
  const g = (x + 1) % 3;
  const k = (x + 2) % 3;
  const c2 = x === 4 ? Math.max(0, c - 2) : c;
  const unscored = x === 9;
  const contested = x === 4;
  const tokens = {
    inputTokens: 1000 + x,
    outputTokens: 50 + x,
    cacheReadTokens: x * 10,
    cacheWriteTokens: x,
  };
  return {
    question_id: `q-${String(q).padStart(2, '0')}`,
    category: CATS[q % 4],
    expected_behavior: q % 4 === 3 ? 'refuse' : 'answer',
    question: {
      text: `What was | figure ${q}?\nSecond line`,
      gold_answer: `Rs ${q} crore`,
      gold_quotes: q % 2 ? [`quote ${q}`] : [],
    },
    ...(q % 5 === 0 ? { gold_untraced: true as const } : {}),
    subject_id: subject,
    model: subject,
    run_index: run,
    subject_prompt_hash: seed % 2 ? 'sp1'.repeat(8) : 'sp2'.repeat(8),
    judge_prompt_hash: 'jp'.repeat(10),
    ...(x === 7 ? { answer_stop: { kind: 'truncated' as const } } : {}),
    latency_ms: 10 + x * 3 + run,
    cost_usd: 0.001 * (x + 1),
    answer_key: `${subject}/${q}/${run}`,
    uncached_cost_usd: 0.0015 * (x + 1),
    usage: tokens,
    judge_usage: tokens,
    verdicts: [
      {
        judgeId: 'j1',
        family: 'f1',
        status: unscored ? 'unscored' : 'scored',
        verdict: unscored ? null : v(c, g, k),
        ...(x === 2 ? { stop: { kind: 'refusal' as const } } : {}),
      },
      {
        judgeId: 'j2',
        family: 'f2',
        status: unscored ? 'unscored' : 'scored',
        verdict: unscored ? null : v(c2, g, k),
      },
    ],
    scores: unscored
      ? {
          correctness: null,
          grounding: null,
          calibration: null,
          gfsPrimary: null,
          gfsEqual: null,
          unscored: true,
          contested: false,
          contestedDimensions: [],
        }
      : {
          correctness: (c + c2) / 2,
          grounding: g,
          calibration: k,
          gfsPrimary: (0.4 * g + 0.35 * ((c + c2) / 2) + 0.25 * k) / 2,
          gfsEqual: ((c + c2) / 2 + g + k) / 6,
          unscored: false,
          contested,
          contestedDimensions: contested ? ['correctness'] : [],
        },
    checks: {
      refusalAccuracy: { passed: x === 5 ? false : x === 6 ? null : true, detail: 'missed refusal' },
      mustNotInclude: { passed: x !== 8, detail: 'stated FY22 | figure' },
      numbersTraced: { passed: x % 2 === 0 },
    },
    answer: x === 3 ? '' : `Answer with | pipe\nand newline ${x}`,
    retrieval_hit: q % 4 === 3 ? null : x % 4 !== 0,
    evidence: q % 4 === 3 ? { recall: null } : { recall: [0, 0.5, 1][x % 3] as number, missing: [] },
  };
}

const rowsOf = (subjects: string[], questions: number, runs: number) =>
  subjects.flatMap((m, i) =>
    Array.from({ length: questions }, (_, q) => Array.from({ length: runs }, (_, r) => row(m, q, r, i))).flat(
      2,
    ),
  );

const run = {
  runId: 'diff-run',
  configHash: 'c'.repeat(12),
  indexChecksum: 'i'.repeat(64),
  questionsHash: 'q'.repeat(64),
};
const describe = {
  config: 'configs/fixture.yaml',
  subjects: [
    {
      id: 'a',
      provider: 'offline',
      model: 'echo',
      family: 'offline',
      sent: 'temperature 0',
      maxTokens: 512,
      deviation: null,
    },
    {
      id: 'b',
      provider: 'openai',
      model: 'gpt-5',
      family: 'openai',
      sent: 'nothing',
      maxTokens: 256,
      deviation: 'temperature 1 (the model fixes it)',
    },
    {
      id: 'c',
      provider: 'system',
      model: 'rag-app',
      family: 'system',
      sent: 'x',
      maxTokens: 0,
      deviation: null,
      version: 'abcdef0123456789abcdef',
    },
  ],
  judges: [
    {
      id: 'j1',
      provider: 'heuristic',
      model: 'numeric',
      family: 'f1',
      sent: 'temperature 0',
      maxTokens: 512,
      deviation: null,
    },
    {
      id: 'j2',
      provider: 'anthropic',
      model: 'claude',
      family: 'f2',
      sent: 'temperature 0',
      maxTokens: 512,
      deviation: null,
    },
  ],
  corpus: { embedder: 'bm25', chunkTokens: 800, overlapTokens: 100, k: 5, index: 'data/index' },
  questions: {
    file: 'q.jsonl',
    version: 3,
    n: 16,
    slice: 'first 16',
    gold: { xbrl: 10, untraced: 4, absent: 2, unstated: 1 },
  },
  runs: 3,
  mode: 'batch',
  thresholds: { correctness: 0.8, grounding: null, calibration: 0.6, gfs: 0.7 },
  subjectPrompt: { version: 'v2', sha256: 'a'.repeat(64), file: 'prompts/subject.md' },
  judgePrompt: { version: 'v2', sha256: 'b'.repeat(64) },
};
const budget = {
  mode: 'batch',
  stopped: 'the budget cap of $1.00 was reached',
  budget_warnings: ['judge j2 has no price', 'another warning'],
  estimate: {
    lines: [
      {
        provider: 'openai',
        model: 'gpt-5',
        role: 'subject',
        batch: true,
        calls: 48,
        expectedUsd: 0.5,
        naiveUsd: 1,
        worstUsd: 2,
      },
      {
        provider: 'anthropic',
        model: 'claude',
        role: 'judge',
        batch: false,
        calls: 96,
        expectedUsd: 0,
        naiveUsd: 0.2,
        worstUsd: 0.4,
      },
    ],
    totals: { calls: 144, expectedUsd: 0.5, naiveUsd: 1.2, worstUsd: 2.4 },
  },
  spend: {
    usd: 0.61,
    unknown_usd: 0.05,
    by_payer: [{ provider: 'openai', model: 'gpt-5', role: 'subject', usd: 0.6, calls: 40 }],
  },
};
const subjectFailure = (i: number) => ({
  name: `c › ${CATS[i % 4]} › q-${String(i % 16).padStart(2, '0')} › run ${i % 3}`,
  message: `the system timed out | after ${i} s\nsecond line`,
  subject_id: 'c',
  question_id: `q-${String(20 + i).padStart(2, '0')}`,
  run_index: i % 3,
  category: CATS[i % 4],
  by: 'subject' as const,
});
const runError = (i: number) => ({
  name: `run error ${i}`,
  message: 'a judge call failed',
  subject_id: 'b',
  by: 'run' as const,
});
const errors = [
  ...Array.from({ length: 60 }, (_, i) => subjectFailure(i)),
  ...Array.from({ length: 50 }, (_, i) => runError(i)),
];
const rows = rowsOf(['a', 'b', 'c'], 16, 3);
const labels = rows
  .filter((_r, i) => i % 3 === 0)
  .flatMap((r, i) => [
    { answer_key: r.answer_key, labeller: 'p1', correctness: i % 3, grounding: (i + 1) % 3, calibration: 2 },
    ...(i % 2
      ? [
          {
            answer_key: r.answer_key,
            labeller: 'p2',
            correctness: (i + 2) % 3,
            grounding: 2,
            calibration: i % 3,
          },
        ]
      : []),
  ]);
const reviews = rows
  .filter((r) => r.scores.contested)
  .slice(0, 3)
  .map((r) => ({
    answer_key: r.answer_key,
    reviewer: 'rev',
    outcome: { correctness: 1, grounding: 2, calibration: 2 },
    note: 'a | note',
  }));

const scenarios: Record<string, [unknown[], Record<string, unknown>]> = {
  rich: [
    rows,
    {
      seed: 's1',
      resamples: 300,
      run,
      budget,
      describe,
      cells: 400,
      errors,
      validation: { labels, reviews, minKappa: 0.6, limitation: 'judged on few labels' },
      gfsWeights: { correctness: 0.3, grounding: 0.5, calibration: 0.2 },
    },
  ],
  richNoLimitation: [
    rows,
    {
      seed: 's2',
      resamples: 300,
      run,
      describe,
      errors: errors.slice(0, 3),
      validation: { labels, reviews: [], minKappa: 0.9 },
    },
  ],
  oneSubject: [rowsOf(['solo'], 8, 2), { seed: 's3', resamples: 200, run }],
  noRows: [[], { seed: 's4', resamples: 200, run, errors: errors.slice(0, 2) }],
  twoNoExtras: [
    rowsOf(['x', 'y'], 12, 1).map((r) => ({
      ...r,
      evidence: undefined,
      retrieval_hit: undefined,
      answer_stop: undefined,
    })),
    { seed: 's5', resamples: 200, run, cells: 24 },
  ],
};
for (const [name, [r, opts]] of Object.entries(scenarios)) {
  const s = summarise(r, opts);
  const json = `${JSON.stringify(s, null, 2)}\n`;
  const md = renderMarkdown(s, { chartFile: 'gfs.svg' });
  const mdPlain = renderMarkdown(s);
  const svg = gfsChartSvg(s);
  console.log(
    `${name}: summary.json ${sha(json)} (${json.length} bytes), summary.md ${sha(md)} (${md.length}), without chart ${sha(mdPlain)}, gfs.svg ${sha(svg)} (${svg.length})`,
  );
}
