/**
 * The run report a reviewer reads: `reports/<run_id>/summary.md` with an SVG chart beside it
 * (src/report/chart-svg.ts), and `summary.json` with the same numbers.
 */

import { figureText } from '../util/figure.ts';
import { formatKappa, formatOrdinal, type KappaShown, kappaFootnote } from '../validation/kappa-format.ts';
import { validationMarkdown } from '../validation/summary.ts';
import type { KappaCell as KappaCellView } from './diagnostics.ts';
import { evidenceMarkdown } from './evidence.ts';
import { failureKindsMarkdown, oneLine, questionLines } from './failures.ts';
import { answerSection } from './first-screen.ts';
import {
  consistencySection,
  correctedSection,
  pairwiseSection,
  rankProbabilitiesLines,
} from './markdown-stats.ts';
import { tableHead } from './markdown-table.ts';
import { FAILURE_RULE } from './outcomes.ts';
import type { Interval } from './scores.ts';
import { stopSection } from './stops.ts';
import type { Summary } from './summary.ts';
import type { DescribedModelView, RunDescription } from './views.ts';

const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const f3 = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : 'n/a');
const ci = (i: Interval | null) =>
  i ? `${f3(i.estimate)} [${f3(i.low)}, ${f3(i.high)}]${i.degenerate ? ' (degenerate)' : ''}` : 'n/a';

/**
 * The report in the order a reader needs it: the answer first (ranking, intervals, significance, MDD),
 * then the failing cases by kind, then the detail per category and per concern, and what was run (the
 * provenance: config, models, hashes) last.
 */
export function renderMarkdown(summary: Summary, opts: { chartFile?: string } = {}): string {
  const s = summary;
  const out: string[] = [
    ...runHeader(s),
    ...answerSection(s),
    ...failureKindsMarkdown(s.failures),
    ...noAnswerLines(s),
    ...gfsSection(s, opts.chartFile),
    ...correctedSection(s),
    ...rankingSection(s),
    ...pairwiseSection(s),
    ...varianceSection(s),
    ...consistencySection(s),
    ...agreementSection(s),
    ...retrievalSection(s),
    ...evidenceMarkdown(s.evidence),
    ...checksSection(s),
    ...stopSection(s.stops),
    ...latencySection(s),
    ...cachingSection(s),
    ...budgetSection(s),
    ...validationMarkdown(s.validation),
    ...drilldownSection(s),
    ...errorsSection(s),
    ...describeRun(s),
  ];
  return `${out.join('\n')}\n`;
}

/**
 * Under the failing cases by kind, the cases the subjects gave no answer for: not among the kinds (there
 * is no answer to classify), scored 0 in the ranking, their reasons under Errors.
 */
function noAnswerLines(s: Summary): string[] {
  const failed = s.models.filter((m) => (s.outcomes[m]?.failed ?? 0) > 0);
  if (failed.length === 0) return [];
  return [
    `Besides these, the subjects gave no answer for ${s.cases.failed.toLocaleString('en')} case${s.cases.failed === 1 ? '' : 's'}, their own failure${s.cases.failed === 1 ? '' : 's'} (a crash, a timeout, a non-zero exit, a malformed reply, an HTTP error, a contract violation), scored 0 in the ranking, each listed under Errors with its reason: ${failed.map((m) => `${m} ${(s.outcomes[m]?.failed ?? 0).toLocaleString('en')}`).join(', ')}.`,
    '',
  ];
}

/** The title, a partial report's note, and the counts of cases. */
function runHeader(s: Summary): string[] {
  const out: string[] = [`# rge run ${s.run.runId}`, ''];
  if (s.partial)
    out.push(
      `**Partial report**: ${s.partial.cases} of the run's ${s.partial.cells} cases (a filtered run, e.g. \`-t\`); the full report of this run is not overwritten.`,
      '',
    );
  const failed = s.cases.failed;
  out.push(
    `${s.cases.total} cases (${s.models.length} subjects), ${s.cases.scored} scored, ${s.cases.unscored} unscored, ${s.cases.contested} contested, ${s.diagnostics.errors.count} errors (cases without a result${failed > 0 ? `: ${failed} the subject gave no answer for, scored 0 in the ranking` : ''}).`,
    '',
  );
  return out;
}

/** Primary and equal-weight GFS per subject and category, with their intervals (and the chart). */
function gfsSection(s: Summary, chartFile: string | undefined): string[] {
  // `traced`: every question whose gold is traced to a source here, when some are not
  const cats = [...s.categories, 'all', ...(s.models.some((m) => s.gfs[m]?.traced) ? ['traced'] : [])];
  return [
    '## Grounding Fidelity Score',
    '',
    `GFS primary = (0.40 grounding + 0.35 correctness + 0.25 calibration) / 2; equal = (c + g + k) / 6. Mean over scored cases with a BCa 95% interval (${s.run.resamples.toLocaleString('en')} resamples of questions, runs kept together).`,
    '',
    FAILURE_RULE,
    '',
    ...(chartFile ? [`![GFS per model and category](${chartFile})`, ''] : []),
    ...tableHead(['subject', 'weighting', ...cats]),
    ...s.models.flatMap((m) =>
      (['primary', 'equal'] as const).map(
        (w) => `| ${m} | ${w} | ${cats.map((c) => ci(s.gfs[m]?.[c]?.[w] ?? null)).join(' | ')} |`,
      ),
    ),
    '',
  ];
}

function rankingSection(s: Summary): string[] {
  return [
    '## Ranking',
    '',
    `Primary: ${s.ranking.primary.join(' > ')}. Equal: ${s.ranking.equal.join(' > ')}.`,
    `Robust: **${s.ranking.robust ? 'yes' : 'no'}** (${s.ranking.reason}).`,
    '',
    ...rankProbabilitiesLines(s),
  ];
}

function varianceSection(s: Summary): string[] {
  return [
    '## Variance across runs',
    '',
    ...tableHead(['subject', 'runs', 'within-question SD', 'between-question variance']),
    ...Object.entries(s.variance).map(
      ([m, v]) => `| ${m} | ${v.runs} | ${f3(v.withinQuestionSD)} | ${f3(v.betweenQuestionVariance)} |`,
    ),
    '',
  ];
}

function checksSection(s: Summary): string[] {
  const names = [...new Set(Object.values(s.checkPassRates).flatMap((r) => Object.keys(r)))].sort();
  const passRate = (m: string, name: string) => {
    const r = s.checkPassRates[m]?.[name];
    return r?.rate === null || r === undefined ? 'n/a' : `${(100 * r.rate).toFixed(1)}% (${r.applicable})`;
  };
  return [
    '## Deterministic checks (pass rate where applicable)',
    '',
    // no tableHead: with no check, the header keeps an empty column
    `| subject | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---').join('|')}|`,
    ...s.models.map((m) => `| ${m} | ${names.map((n) => passRate(m, n)).join(' | ')} |`),
    '',
  ];
}

function latencySection(s: Summary): string[] {
  return [
    '## Latency and cost',
    '',
    ...tableHead(['subject', 'p50 ms', 'p95 ms', 'cost USD']),
    ...s.models.map(
      (m) =>
        `| ${m} | ${f2(s.latency[m]?.p50 ?? Number.NaN)} | ${f2(s.latency[m]?.p95 ?? Number.NaN)} | ${(s.cost[m] ?? 0).toFixed(4)} |`,
    ),
    '',
  ];
}

function cachingSection(s: Summary): string[] {
  const n = (x: number) => x.toLocaleString('en');
  const rows = s.models.flatMap((m) => {
    const c = s.caching[m];
    return c
      ? [
          `| ${m} | ${c.costUsd.toFixed(4)} | ${c.uncachedUsd.toFixed(4)} | ${c.savedUsd.toFixed(4)} | ${n(c.tokens.inputTokens)} | ${n(c.tokens.cacheReadTokens)} | ${n(c.tokens.cacheWriteTokens)} | ${n(c.tokens.outputTokens)} | ${(100 * c.batchShare).toFixed(0)}% |`,
        ]
      : [];
  });
  return [
    '## Cost and prompt caching',
    '',
    "Cost of each subject's cases (its answers and both judges' verdicts), at the catalogue's prices; 'without caching' prices every cached token at the input price, so the difference is what caching saved.",
    '',
    ...tableHead([
      'subject',
      'cost USD',
      'without caching',
      'saved',
      'input tokens',
      'cache read',
      'cache write',
      'output tokens',
      'batch',
    ]),
    ...rows,
    '',
  ];
}

/** The pre-flight estimate against what the run spent, line by line; nothing when the run has no budget. */
function budgetSection(s: Summary): string[] {
  if (!s.budget) return [];
  const b = s.budget;
  const ratio = (actual: number, expected: number) =>
    expected > 0 ? `${(actual / expected).toFixed(2)}x` : 'n/a';
  const out: string[] = [
    `## Budget: the pre-flight estimate against what the run spent (${b.mode} mode)`,
    '',
  ];
  out.push(
    ...tableHead([
      'role',
      'model',
      'calls estimated',
      'expected USD',
      'worst case USD',
      'calls made',
      'spent USD',
      'spent / expected',
    ]),
  );
  for (const l of b.lines)
    out.push(
      `| ${l.role} | ${l.provider}/${l.model} | ${l.calls} | ${l.expectedUsd.toFixed(4)} | ${l.worstUsd.toFixed(4)} | ${l.actualCalls} | ${l.actualUsd.toFixed(4)} | ${ratio(l.actualUsd, l.expectedUsd)} |`,
    );
  out.push(
    `| total | | | ${b.totals.expectedUsd.toFixed(4)} | ${b.totals.worstUsd.toFixed(4)} | | ${b.totals.actualUsd.toFixed(4)} | ${ratio(b.totals.actualUsd, b.totals.expectedUsd)} |`,
    '',
  );
  out.push(
    `Naive sync calls without caching were estimated at $${b.totals.naiveUsd.toFixed(4)}.` +
      (b.totals.unknownUsd > 0
        ? ` Unknown, not spent: up to $${b.totals.unknownUsd.toFixed(4)} for calls in flight when a process of the run was killed, whose replies never reached rge (possibly billed, at most their worst case; counted against the cap, not in the spent column).`
        : ''),
    '',
  );
  for (const w of b.warnings) out.push(`- Budget warning: ${w}`);
  if (b.stopped) out.push(`- **The run stopped before every cell was asked**: ${b.stopped}`);
  if (b.warnings.length > 0 || b.stopped) out.push('');
  return out;
}

const DIMS = ['correctness', 'grounding', 'calibration'] as const;
const threshold = (x: number | null) => (x === null ? 'not gated' : figureText(x));

/**
 * What a run used, in one line for a terminal (the end of `rge eval run`, the rge vitest reporter):
 * "judges j1 (anthropic/m1), j2 (openai/m2); embedder use-lite, k 5, 800/100-token chunks;
 * thresholds correctness 0.8, grounding not gated, calibration 0.6, GFS 0.7".
 */
export function whatWasUsedLine(d: RunDescription): string {
  const judges = d.judges.map((j) => `${j.id} (${j.provider}/${j.model})`).join(', ');
  const thresholds = [
    ...DIMS.map((x) => `${x} ${threshold(d.thresholds[x])}`),
    `GFS ${threshold(d.thresholds.gfs)}`,
  ];
  return (
    `judges ${judges || 'none'}; ` +
    (d.corpus
      ? `embedder ${d.corpus.embedder}, k ${d.corpus.k}, ${d.corpus.chunkTokens}/${d.corpus.overlapTokens}-token chunks`
      : "no index of rge's (the subjects are systems)") +
    `; thresholds ${thresholds.join(', ')}`
  );
}

/** What a subject or judge was sent; a user's system is sent the question and a seed, and has a version. */
function sentRow(x: DescribedModelView, role: string): string {
  if (x.version !== undefined)
    return `| sent to ${x.id} (${role}, a system) | the question, its run index and a seed (it samples as it does; rge's retrieval and subject prompt are not used); version \`${x.version === '' ? 'undeclared' : x.version.slice(0, 16)}\` |`;
  return `| sent to ${x.id} (${role}) | ${x.sent}; output limit ${x.maxTokens} tokens; ${x.deviation === null ? 'temperature 0 as the methodology fixes it' : `deviation from temperature 0: ${x.deviation}`} |`;
}

/** What was run: config, subjects and judges with their models, corpus and retrieval, questions, prompts. */
function describeRun(s: Summary): string[] {
  const out: string[] = ['## What was run', '', '| | |', '|---|---|'];
  const d = s.describe;
  if (d) {
    out.push(
      `| config | \`${d.config}\`, mode ${d.mode}, ${d.runs} run(s) per question |`,
      `| subjects | ${d.subjects.map((x) => `${x.id}: ${x.provider}/${x.model} (${x.family})`).join('; ')} |`,
      `| judges | ${d.judges.map((x) => `${x.id}: ${x.provider}/${x.model} (${x.family})`).join('; ')}; each subject judged by two of other families |`,
      ...[
        ...d.subjects.map((x) => ({ x, role: 'subject' })),
        ...d.judges.map((x) => ({ x, role: 'judge' })),
      ].map(({ x, role }) => sentRow(x, role)),
      d.corpus
        ? `| corpus | embedder ${d.corpus.embedder}, ${d.corpus.chunkTokens}-token chunks (${d.corpus.overlapTokens} overlap), top-${d.corpus.k} retrieval |`
        : "| corpus | none of rge's: every subject is a system, which retrieves for itself |",
      `| questions | ${d.questions.n} from \`${d.questions.file}\` (version ${d.questions.version})${d.questions.slice ? `; a slice, ${d.questions.slice}` : ''}${d.questions.gold ? `; gold traced to XBRL ${d.questions.gold.xbrl}, untraced ${d.questions.gold.untraced} (not checked against a source here; the traced column of the GFS table leaves them out), out-of-domain ${d.questions.gold.absent}${d.questions.gold.unstated > 0 ? `, unstated ${d.questions.gold.unstated}` : ''}` : ''} |`,
      `| subject prompt | ${d.subjectPrompt.file ? `${d.subjectPrompt.file} ` : 'built-in '}${d.subjectPrompt.version} \`${d.subjectPrompt.sha256.slice(0, 16)}\` |`,
      `| judge prompt | ${d.judgePrompt.version} \`${d.judgePrompt.sha256.slice(0, 16)}\` |`,
      `| thresholds | ${DIMS.map((x) => `${x} ${threshold(d.thresholds[x])}`).join(', ')}, GFS ${threshold(d.thresholds.gfs)} |`,
    );
  }
  out.push(
    `| run id | \`${s.run.runId}\` |`,
    `| seed | \`${s.run.seed}\` |`,
    `| config hash | \`${s.run.configHash}\` |`,
    `| index checksum | \`${s.run.indexChecksum}\` |`,
    `| questions hash | \`${s.run.questionsHash}\` |`,
    `| prompt hashes seen | subject ${s.promptHashes.subject.map((h) => `\`${h.slice(0, 16)}\``).join(', ')}; judge ${s.promptHashes.judge.map((h) => `\`${h.slice(0, 16)}\``).join(', ')} |`,
    '',
  );
  return out;
}

function agreementSection(s: Summary): string[] {
  const a = s.judgeAgreement;
  const out: string[] = ['## Inter-judge agreement', ''];
  out.push(
    "Per subject, Cohen's kappa between its two judges (its cross-family panel) over its responses, and the mean over subjects (methodology 8.4's figure). Then per pair of judges, pooled over the subjects it judged: on the whole run, and on the responses people labelled (the same figure `rge judge audit` prints); a difference above 0.15 between the two is flagged.",
    '',
  );
  out.push(...tableHead(['figure', 'judges', ...DIMS, 'n']));
  const row = (what: string, judges: string, cells: Record<string, KappaShown>, note = (_d: string) => '') =>
    `| ${what} | ${judges} | ${DIMS.map((d) => `${formatKappa(cells[d] as KappaShown)}${note(d)}`).join(' | ')} | ${cells.correctness?.n ?? 0} |`;
  for (const [subject, x] of Object.entries(a.bySubject))
    out.push(row(`subject ${subject}`, x.judges.join(' / '), x.dimensions));
  out.push(row('**mean over subjects**', '', a.mean));
  for (const p of a.byPair) {
    out.push(row(`pair, whole run (${p.subjects.join(', ')})`, p.judges.join(' / '), p.main));
    if (p.labelled)
      out.push(
        row('pair, labelled responses', p.judges.join(' / '), p.labelled, (d) =>
          p.divergent.includes(d as never) ? ' ⚠ diverges' : '',
        ),
      );
  }
  out.push(
    '',
    `${kappaFootnote('n the responses both judges scored')} The mean's interval comes from the same resamples of questions, each subject's kappa recomputed on them.`,
    '',
  );
  out.push(...ordinalAgreementTable(a));
  return out;
}

/** The same rows on the ordinal scale: quadratic-weighted kappa / ordinal alpha (recorded beside kappa). */
function ordinalAgreementTable(a: Summary['judgeAgreement']): string[] {
  const out = [
    "The same figures on the ordinal scale, where a 0-vs-2 disagreement costs more than a 1-vs-2 one: quadratic-weighted kappa / Krippendorff's ordinal alpha, each with its BCa 95% interval (same resamples and seed). Recorded beside Cohen's kappa, which stays the pre-registered figure.",
    '',
    ...tableHead(['figure', 'judges', ...DIMS]),
  ];
  type Cells = Record<string, KappaCellView>;
  const row = (what: string, judges: string, cells: Cells) =>
    `| ${what} | ${judges} | ${DIMS.map((d) => {
      const c = cells[d];
      return c ? `${formatOrdinal(c.n, c.quadraticKappa)} / ${formatOrdinal(c.n, c.alpha)}` : 'n/a';
    }).join(' | ')} |`;
  for (const [subject, x] of Object.entries(a.bySubject))
    out.push(row(`subject ${subject}`, x.judges.join(' / '), x.dimensions));
  out.push(row('**mean over subjects**', '', a.mean));
  for (const p of a.byPair) {
    out.push(row(`pair, whole run (${p.subjects.join(', ')})`, p.judges.join(' / '), p.main));
    if (p.labelled) out.push(row('pair, labelled responses', p.judges.join(' / '), p.labelled));
  }
  out.push('');
  return out;
}

function retrievalSection(s: Summary): string[] {
  const r = s.diagnostics.retrieval;
  const cats = Object.keys(r).sort();
  if (cats.length === 0) return [];
  const out = ['## Retrieval: a gold chunk in the top k', ''];
  out.push(
    'Per question (the same chunks for every subject and run); out-of-domain questions have no gold chunk.',
    '',
  );
  out.push(...tableHead(['category', 'questions', 'gold in top k', 'hit rate']));
  for (const c of cats) {
    const x = r[c] as { questions: number; hits: number; rate: number | null };
    out.push(
      `| ${c} | ${x.questions} | ${x.hits} | ${x.rate === null ? 'n/a' : `${(100 * x.rate).toFixed(1)}%`} |`,
    );
  }
  out.push('');
  return out;
}

const cell = oneLine;

function drilldownSection(s: Summary): string[] {
  const cases = s.diagnostics.drilldown;
  if (cases.length === 0) return [];
  const out = ['## Where the models fail: the worst and the contested cases', ''];
  for (const c of cases) {
    out.push(
      `### ${c.cell} (${c.category}, ${c.why}, GFS ${c.gfs === null ? 'unscored' : c.gfs.toFixed(3)}${c.kind ? `, ${c.kind}` : ''}${c.cause ? `, ${c.cause}` : ''})`,
      '',
      ...(c.question ? [...questionLines(c.question), 'Answer:', ''] : []),
      `> ${cell(c.answer) || '(empty answer)'}`,
      '',
      `Cited: ${c.cited.length > 0 ? c.cited.join(', ') : 'nothing'}. Retrieved: ${c.retrieved.join(', ') || 'nothing'}.`,
      '',
    );
    out.push(...tableHead(['judge', 'dimension', 'score', 'evidence (quoted first)', 'rationale']));
    for (const v of c.verdicts) {
      if (!v.scores) {
        out.push(`| ${v.judge} | all | ${v.status} | | |`);
        continue;
      }
      for (const d of DIMS)
        out.push(
          `| ${v.judge} | ${d} | ${figureText(v.scores[d])} | ${cell((v.evidence?.[d] ?? []).map((e) => `"${e}"`).join(' '))} | ${cell(v.rationale?.[d] ?? '')} |`,
        );
      if (v.unsupported.length > 0)
        out.push(`| ${v.judge} | unsupported claims | | ${cell(v.unsupported.join(' / '))} | |`);
    }
    out.push('');
    if (c.failedChecks.length > 0)
      out.push(
        `Checks failed: ${c.failedChecks.map((f) => `${f.name} (${cell(f.detail)})`).join('; ')}.`,
        '',
      );
  }
  return out;
}

function errorsSection(s: Summary): string[] {
  const e = s.diagnostics.errors;
  const out = [`## Errors: ${e.count}`, ''];
  if (e.count === 0) out.push('Every case of the report produced a result.', '');
  else {
    out.push(
      "A case the subject gave no answer for (its own failure, marked so) is scored 0 in the ranking, the pairwise tests and the gate, and its subject's answered-only GFS is on the first screen. Every other case without a result (the run stopped, a judge's call failed, an error) is not scored as zero: it is listed here and left out of every figure above.",
      '',
    );
    for (const x of e.list.slice(0, 100))
      out.push(
        `- ${cell(x.name)}${x.by === 'subject' ? " (the subject's failure: no answer, scored 0)" : ''}: ${cell(x.message)}`,
      );
    if (e.count > 100) out.push(`- ... ${e.count - 100} more in summary.json`);
    out.push('');
  }
  return out;
}
