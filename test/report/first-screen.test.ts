/**
 * The report's first section answers the question a run is for: the subjects ranked with their GFS and
 * interval and the probability of ranking first, each pair's difference (better-ranked first) with its
 * significance at the Bonferroni level and its MDD, all the summary's own figures, before any provenance.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { answerSection } from '../../src/report/sections/answer.ts';
import { type Summary, summarise } from '../../src/report/summary.ts';
import type { CaseRowView, RunDescription } from '../../src/report/views.ts';
import { scoredCell } from './scored-cell.ts';

/** A subject's rows: 30 questions, 3 runs; wrong (correctness 0) on the questions below `wrongBelow`. */
function subject(id: string, wrongBelow: number): CaseRowView[] {
  const out: CaseRowView[] = [];
  for (let q = 0; q < 30; q++)
    for (let run = 0; run < 3; run++) {
      const c = q < wrongBelow ? 0 : 2;
      const g = q % 5 === run ? 1 : 2;
      const verdict = { correctness: { score: c }, grounding: { score: g }, calibration: { score: 2 } };
      out.push({
        question_id: `q-${String(q).padStart(2, '0')}`,
        category: q % 2 === 0 ? 'grounded-direct' : 'adversarial',
        subject_id: id,
        model: id,
        run_index: run,
        subject_prompt_hash: 'sp',
        judge_prompt_hash: 'jp',
        latency_ms: 1,
        cost_usd: 0,
        verdicts: [
          { judgeId: 'j1', family: 'f1', status: 'scored', verdict },
          { judgeId: 'j2', family: 'f2', status: 'scored', verdict },
        ],
        scores: {
          correctness: c,
          grounding: g,
          calibration: 2,
          gfsPrimary: (0.4 * g + 0.35 * c + 0.25 * 2) / 2,
          gfsEqual: (c + g + 2) / 6,
          unscored: false,
          contested: false,
          contestedDimensions: [],
        },
        checks: {},
      });
    }
  return out;
}

const run = { runId: 'r', configHash: 'c', indexChecksum: 'i', questionsHash: 'q' };
const f3 = (x: number) => x.toFixed(3);
const gfsOf = (s: Summary, m: string) => {
  const i = s.gfs[m]?.all?.primary;
  return `${f3(i?.estimate ?? Number.NaN)} [${f3(i?.low ?? Number.NaN)}, ${f3(i?.high ?? Number.NaN)}]`;
};

describe('the first screen', () => {
  // good is right everywhere; mid wrong on 12 questions, close on 13 (names sort close < good < mid, so
  // the pairwise table holds close-good, close-mid, good-mid: the first screen turns them better-first)
  const s = summarise([...subject('good', 0), ...subject('mid', 12), ...subject('close', 13)], {
    seed: 'fs',
    resamples: 1000,
    run,
  });
  const md = answerSection(s);
  const text = md.join('\n');

  it('ranks the subjects with GFS, interval, the probability of ranking first, the rank interval, and the failed and unscored cases', () => {
    expect(s.ranking.primary).toEqual(['good', 'mid', 'close']);
    const rows = md.filter((l) => /^\| \d \|/.test(l));
    expect(rows).toHaveLength(3);
    for (const [i, m] of s.ranking.primary.entries()) {
      const g = s.ranks?.primary.find((x) => x.group === m);
      const interval = g?.rankLow === g?.rankHigh ? `${g?.rankLow}` : `${g?.rankLow}\u2013${g?.rankHigh}`;
      expect(rows[i]).toBe(
        `| ${i + 1} | ${m} | ${gfsOf(s, m)} | ${(100 * (g?.probabilityFirst ?? Number.NaN)).toFixed(1)}% | ${interval} | 0 | 0 |`,
      );
    }
  });

  it("gives each pair's difference better-ranked first, whether it is significant, and its MDD", () => {
    const pair = (a: string, b: string) =>
      s.pairwise.find((p) => (p.a === a && p.b === b) || (p.a === b && p.b === a));
    const power = (a: string, b: string) =>
      s.power.comparisons.find((c) => (c.a === a && c.b === b) || (c.a === b && c.b === a));
    for (const [hi, lo] of [
      ['good', 'mid'],
      ['good', 'close'],
      ['mid', 'close'],
    ] as const) {
      const p = pair(hi, lo);
      const c = power(hi, lo);
      const diff = c?.a === hi ? c.difference : -(c?.difference ?? Number.NaN);
      expect(diff, `${hi} over ${lo}`).toBeGreaterThan(0);
      const significant = (p?.gfs?.pBonferroni ?? 1) < 0.05 ? '**yes**' : 'no';
      const line = md.find((l) => l.startsWith(`| ${hi} \u2212 ${lo} |`));
      expect(line).toMatch(
        new RegExp(
          `^\\| ${hi} \u2212 ${lo} \\| \\+${f3(diff).replace('.', '\\.')} \\| ${significant.replace(/\*/g, '\\*')} \\| [<\\d.]+ \\| ${f3(c?.mdd ?? Number.NaN).replace('.', '\\.')} \\|$`,
        ),
      );
    }
    // good's lead is real; mid's over close (one question apart) is not
    expect(md.find((l) => l.startsWith('| good \u2212 mid |'))).toContain('**yes**');
    expect(md.find((l) => l.startsWith('| mid \u2212 close |'))).toContain('| no |');
    expect(text).toContain('after Bonferroni over 3 pairs');
  });

  it('leads with one sentence: who ranks first, how likely, and whether its lead is real', () => {
    const p = s.ranks?.primary.find((g) => g.group === 'good')?.probabilityFirst ?? Number.NaN;
    expect(md[2]).toMatch(
      new RegExp(
        `^\\*\\*good\\*\\* ranks first, GFS ${gfsOf(s, 'good').replace(/[.[\]]/g, '\\$&')}, with probability ${(100 * p).toFixed(1)}%; its lead over mid \\(\\+\\d\\.\\d{3}\\) is significant\\.$`,
      ),
    );
    // two close subjects: the lead is not significant, and smaller than what the run could see
    const two = summarise([...subject('mid', 12), ...subject('close', 13)], {
      seed: 'fs',
      resamples: 1000,
      run,
    });
    const [c] = two.power.comparisons;
    expect(Math.abs(c?.difference ?? 1)).toBeLessThan(c?.mdd ?? 0);
    expect(answerSection(two)[2]).toMatch(
      /its lead over close \(\+\d\.\d{3}\) is not significant, and smaller than the \d\.\d{3} this run could detect\.$/,
    );
    // one subject: nothing to compare, and no table of pairs
    const one = answerSection(summarise(subject('good', 0), { seed: 'fs', resamples: 200, run }));
    expect(one[2]).toMatch(/; one subject: nothing to compare\.$/);
    expect(one.some((l) => l.startsWith('| difference |'))).toBe(false);
  });

  it('comes before everything else in the report, and the provenance after everything', () => {
    const report = renderMarkdown(s);
    const headings = report.match(/^## .*/gm) ?? [];
    expect(headings[0]).toBe('## The answer: who is best, by how much, and is it real');
    expect(headings.at(-1)).toBe('## What was run');
    expect(report.indexOf(text)).toBeGreaterThan(0);
  });
});

describe('the first screen says what the judges are', () => {
  const described = (judges: { id: string; provider: string; model: string }[]): RunDescription => ({
    config: 'fixture',
    subjects: [],
    judges: judges.map((j) => ({
      ...j,
      family: j.provider,
      sent: 'temperature 0',
      maxTokens: 512,
      deviation: null,
    })),
    corpus: { embedder: 'use-lite', chunkTokens: 800, overlapTokens: 100, k: 5, index: 'i' },
    questions: { file: 'q.jsonl', version: 1, n: 30 },
    runs: 1,
    mode: 'sync',
    thresholds: { correctness: null, grounding: null, calibration: null, gfs: null },
    subjectPrompt: { version: 'v1', sha256: 'a'.repeat(64) },
    judgePrompt: { version: 'v1', sha256: 'b'.repeat(64) },
  });
  // 30 questions judged across the rubric (each dimension takes 0, 1 and 2), by judges j1 and j2
  const rows = [0, 1].flatMap((i) =>
    Array.from({ length: 30 }, (_, q) =>
      scoredCell(`s${i}`, q, 0, [(q + i) % 3, (q + 1) % 3, (q + 2) % 3] as [number, number, number]),
    ),
  );
  const firstScreen = (judges: Parameters<typeof described>[0], labelled = false) =>
    answerSection(
      summarise(rows, {
        seed: 'j',
        resamples: 200,
        run,
        describe: described(judges),
        // people agree with the judges on every response: a kappa for every judge and dimension
        validation: labelled
          ? {
              labels: rows.map((r) => ({
                answer_key: r.answer_key as string,
                labeller: 'ana',
                correctness: r.scores.correctness as number,
                grounding: r.scores.grounding as number,
                calibration: r.scores.calibration as number,
              })),
              reviews: [],
              minKappa: 0.75,
            }
          : null,
      }),
    ).join('\n');
  const heuristic = [
    { id: 'j1', provider: 'heuristic', model: 'numeric' },
    { id: 'j2', provider: 'heuristic', model: 'lexical' },
  ];
  const live = [
    { id: 'j1', provider: 'anthropic', model: 'claude-sonnet-4-6' },
    { id: 'j2', provider: 'openai', model: 'gpt-5.4' },
  ];

  it('offline heuristic judges: the scores exercise the pipeline and are not a measurement', () => {
    const text = firstScreen(heuristic);
    expect(text).toContain(
      '\n**Judges:** the scores come from offline heuristic judges (j1, j2), not validated against people: they exercise the pipeline and are not a measurement.\n',
    );
    // beside the ranking: after its table, before the pairs'
    expect(text.indexOf('**Judges:**')).toBeGreaterThan(text.indexOf('| rank | subject |'));
    expect(text.indexOf('**Judges:**')).toBeLessThan(text.indexOf('| difference | GFS |'));
  });

  it('judges without a kappa against people in this run say so; judges with one need no sentence', () => {
    expect(firstScreen(live)).toContain(
      "**Judges:** the judges j1, j2 have no kappa against people in this run's validation section (judges against people, below): the scores are the judges' own, not validated against people, so they are not a measurement.",
    );
    expect(firstScreen(live, true)).not.toContain('**Judges:**');
    // heuristic judges are said to be offline heuristics, labelled or not
    expect(firstScreen(heuristic, true)).toContain(
      "**Judges:** the scores come from offline heuristic judges (j1, j2), checked against people in this run's validation section",
    );
  });
});
