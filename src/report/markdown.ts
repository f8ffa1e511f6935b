/**
 * The run report a reviewer reads: `reports/<run_id>/summary.md` with an SVG chart beside it, and
 * `summary.json` with the same numbers.
 */
import type { Interval, Summary } from './summary.ts';
import { validationMarkdown } from './validation.ts';

const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');
const ci = (i: Interval | null) =>
  i ? `${f3(i.estimate)} [${f3(i.low)}, ${f3(i.high)}]${i.degenerate ? ' (degenerate)' : ''}` : 'n/a';
const pValue = (p: number) => (p < 0.001 ? '<0.001' : p.toFixed(3));

/** A bar chart of primary GFS per model and category with its 95 % interval as an error bar. */
export function gfsChartSvg(summary: Summary): string {
  const cats = [...summary.categories, 'all'];
  const width = 120 + cats.length * (summary.models.length * 28 + 24);
  const height = 260;
  const y = (v: number) => 220 - v * 180;
  const colours = ['#4472c4', '#ed7d31', '#70ad47', '#7f7f7f', '#ffc000', '#5b9bd5'];
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<text x="10" y="16" font-size="13">GFS (primary weighting), mean with BCa 95% interval</text>`,
    `<line x1="60" y1="${y(0)}" x2="${width - 10}" y2="${y(0)}" stroke="#000"/>`,
  ];
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<text x="30" y="${y(t) + 4}">${t.toFixed(2)}</text>`);
    parts.push(`<line x1="60" y1="${y(t)}" x2="${width - 10}" y2="${y(t)}" stroke="#ddd"/>`);
  }
  let x = 70;
  for (const c of cats) {
    for (const [i, m] of summary.models.entries()) {
      const iv = summary.gfs[m]?.[c]?.primary;
      if (iv) {
        parts.push(
          `<rect x="${x}" y="${y(iv.estimate)}" width="22" height="${y(0) - y(iv.estimate)}" fill="${colours[i % colours.length]}"/>`,
        );
        parts.push(
          `<line x1="${x + 11}" y1="${y(iv.low)}" x2="${x + 11}" y2="${y(iv.high)}" stroke="#000"/>`,
        );
      }
      x += 28;
    }
    parts.push(`<text x="${x - summary.models.length * 28}" y="${y(0) + 16}">${c}</text>`);
    x += 24;
  }
  for (const [i, m] of summary.models.entries()) {
    parts.push(
      `<rect x="${70 + i * 140}" y="${height - 14}" width="10" height="10" fill="${colours[i % colours.length]}"/>`,
    );
    parts.push(`<text x="${84 + i * 140}" y="${height - 5}">${m}</text>`);
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

export function renderMarkdown(summary: Summary, opts: { chartFile?: string } = {}): string {
  const out: string[] = [];
  const s = summary;
  out.push(`# rge run ${s.run.runId}`, '');
  out.push(
    `${s.cases.total} cases (${s.models.length} subjects), ${s.cases.scored} scored, ${s.cases.unscored} unscored, ${s.cases.contested} contested.`,
    '',
  );
  out.push('| run | value |', '|---|---|');
  out.push(
    `| run id | \`${s.run.runId}\` |`,
    `| seed | \`${s.run.seed}\` |`,
    `| config hash | \`${s.run.configHash}\` |`,
  );
  out.push(
    `| index checksum | \`${s.run.indexChecksum}\` |`,
    `| questions hash | \`${s.run.questionsHash}\` |`,
  );
  out.push(`| subject prompt | ${s.promptHashes.subject.map((h) => `\`${h.slice(0, 16)}\``).join(', ')} |`);
  out.push(`| judge prompt | ${s.promptHashes.judge.map((h) => `\`${h.slice(0, 16)}\``).join(', ')} |`, '');

  out.push('## Grounding Fidelity Score', '');
  out.push(
    `GFS primary = (0.40 grounding + 0.35 correctness + 0.25 calibration) / 2; equal = (c + g + k) / 6. Mean over scored cases with a BCa 95% interval (${s.run.resamples.toLocaleString('en')} resamples of questions, runs kept together).`,
    '',
  );
  if (opts.chartFile) out.push(`![GFS per model and category](${opts.chartFile})`, '');
  const cats = [...s.categories, 'all'];
  out.push(`| subject | weighting | ${cats.join(' | ')} |`, `|---|---|${cats.map(() => '---').join('|')}|`);
  for (const m of s.models) {
    for (const w of ['primary', 'equal'] as const)
      out.push(`| ${m} | ${w} | ${cats.map((c) => ci(s.gfs[m]?.[c]?.[w] ?? null)).join(' | ')} |`);
  }
  out.push('');
  out.push('## Ranking', '');
  out.push(`Primary: ${s.ranking.primary.join(' > ')}. Equal: ${s.ranking.equal.join(' > ')}.`);
  out.push(`Robust: **${s.ranking.robust ? 'yes' : 'no'}** (${s.ranking.reason}).`, '');
  out.push('## Pairwise comparison (McNemar, Bonferroni-corrected)', '');
  out.push('A question passes for a subject when its mean primary GFS over runs is at least 0.5.', '');
  out.push('| a | b | a only | b only | p | p (Bonferroni) | test |', '|---|---|---|---|---|---|---|');
  for (const p of s.pairwise)
    out.push(
      `| ${p.a} | ${p.b} | ${p.n10} | ${p.n01} | ${pValue(p.pValue)} | ${pValue(p.pBonferroni)} | ${p.method} |`,
    );
  out.push('');
  out.push('## Variance across runs', '');
  out.push('| subject | runs | within-question SD | between-question variance |', '|---|---|---|---|');
  for (const [m, v] of Object.entries(s.variance))
    out.push(`| ${m} | ${v.runs} | ${f3(v.withinQuestionSD)} | ${f3(v.betweenQuestionVariance)} |`);
  out.push('');
  out.push('## Inter-judge agreement', '');
  out.push('| dimension | n | Cohen kappa | quadratic kappa |', '|---|---|---|---|');
  for (const [d, a] of Object.entries(s.judgeAgreement))
    out.push(`| ${d} | ${a.n} | ${f3(a.kappa)} | ${f3(a.quadraticKappa)} |`);
  out.push('');
  out.push('## Deterministic checks (pass rate where applicable)', '');
  const names = [...new Set(Object.values(s.checkPassRates).flatMap((r) => Object.keys(r)))].sort();
  out.push(`| subject | ${names.join(' | ')} |`, `|---|${names.map(() => '---').join('|')}|`);
  for (const m of s.models) {
    out.push(
      `| ${m} | ${names
        .map((n) => {
          const r = s.checkPassRates[m]?.[n];
          return r?.rate === null || r === undefined
            ? 'n/a'
            : `${(100 * r.rate).toFixed(1)}% (${r.applicable})`;
        })
        .join(' | ')} |`,
    );
  }
  out.push('');
  out.push('## Latency and cost', '');
  out.push('| subject | p50 ms | p95 ms | cost USD |', '|---|---|---|---|');
  for (const m of s.models)
    out.push(
      `| ${m} | ${f2(s.latency[m]?.p50 ?? Number.NaN)} | ${f2(s.latency[m]?.p95 ?? Number.NaN)} | ${(s.cost[m] ?? 0).toFixed(4)} |`,
    );
  out.push('');
  out.push('## Cost and prompt caching', '');
  out.push(
    "Cost of each subject's cases (its answers and both judges' verdicts), at the catalogue's prices; 'without caching' prices every cached token at the input price, so the difference is what caching saved.",
    '',
  );
  out.push(
    '| subject | cost USD | without caching | saved | input tokens | cache read | cache write | output tokens | batch |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  const n = (x: number) => x.toLocaleString('en');
  for (const m of s.models) {
    const c = s.caching[m];
    if (!c) continue;
    out.push(
      `| ${m} | ${c.costUsd.toFixed(4)} | ${c.uncachedUsd.toFixed(4)} | ${c.savedUsd.toFixed(4)} | ${n(c.tokens.inputTokens)} | ${n(c.tokens.cacheReadTokens)} | ${n(c.tokens.cacheWriteTokens)} | ${n(c.tokens.outputTokens)} | ${(100 * c.batchShare).toFixed(0)}% |`,
    );
  }
  out.push('');
  if (s.budget) {
    const b = s.budget;
    out.push(`## Budget: the pre-flight estimate against what the run spent (${b.mode} mode)`, '');
    out.push(
      '| role | model | calls estimated | expected USD | worst case USD | calls made | spent USD | spent / expected |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const l of b.lines)
      out.push(
        `| ${l.role} | ${l.provider}/${l.model} | ${l.calls} | ${l.expectedUsd.toFixed(4)} | ${l.worstUsd.toFixed(4)} | ${l.actualCalls} | ${l.actualUsd.toFixed(4)} | ${l.expectedUsd > 0 ? `${(l.actualUsd / l.expectedUsd).toFixed(2)}x` : 'n/a'} |`,
      );
    out.push(
      `| total | | | ${b.totals.expectedUsd.toFixed(4)} | ${b.totals.worstUsd.toFixed(4)} | | ${b.totals.actualUsd.toFixed(4)} | ${b.totals.expectedUsd > 0 ? `${(b.totals.actualUsd / b.totals.expectedUsd).toFixed(2)}x` : 'n/a'} |`,
      '',
    );
    out.push(
      `Naive sync calls without caching were estimated at $${b.totals.naiveUsd.toFixed(4)}.` +
        (b.totals.unaccountedUsd > 0
          ? ` $${b.totals.unaccountedUsd.toFixed(4)} is unaccounted (calls in flight when a process was killed, counted at their worst case).`
          : ''),
      '',
    );
    for (const w of b.warnings) out.push(`- Budget warning: ${w}`);
    if (b.stopped) out.push(`- **The run stopped at the budget cap**: ${b.stopped}`);
    if (b.warnings.length > 0 || b.stopped) out.push('');
  }
  out.push(...validationMarkdown(s.validation));
  return `${out.join('\n')}\n`;
}
