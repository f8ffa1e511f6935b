/**
 * The agreement of judges with people as `rge judge agree` prints it: one report's header line and
 * confusion matrix (`formatAgreement`), and a dataset's table whose rows are judge x subset (each judge's
 * pooled row first), then every confusion matrix, then a footer saying how the kappa intervals were
 * computed and seeded (`formatAgreementTable`).
 */

import { KAPPA_MIN_N } from '../stats/index.ts';
import { AGREEMENT_SEED_RULE, type AgreementReport, POOLED } from './agreement.ts';
import { type AgreementFormat, FORMAT_DIMENSION, FORMAT_SUBSET } from './datasets.ts';
import { FEW_MARK, formatKappa as formatKappaShown } from './kappa-format.ts';

const fixed = (x: number, d: number) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');

/**
 * Kappa and its interval as every rge table prints them (`formatKappa` of src/validation/kappa-format.ts):
 * `0.412 [0.310, 0.508]`, `n/a (one score only)`, with `⚠ few` below KAPPA_MIN_N items.
 */
export function formatKappa(
  report: Pick<AgreementReport, 'n' | 'kappa' | 'kappaCi'>,
  intervalMark = '',
): string {
  return formatKappaShown(
    {
      n: report.n,
      kappa: report.kappa,
      low: report.kappaCi?.low ?? null,
      high: report.kappaCi?.high ?? null,
    },
    intervalMark,
  );
}

/** `pooled`, or the subset named with what it is (`setting gpt3`). */
export function subsetLabel(report: Pick<AgreementReport, 'format' | 'subset'>): string {
  return report.subset === null ? POOLED : `${FORMAT_SUBSET[report.format]} ${report.subset}`;
}

/** The report as the CLI prints it: a header line and the confusion matrix (people x judge). */
export function formatAgreement(report: AgreementReport): string {
  const width = Math.max(...report.labels.map((l) => l.length), 'people \\ judge'.length);
  const colWidth = Math.max(...report.labels.map((l) => l.length), 6);
  const head = ['people \\ judge'.padEnd(width), ...report.labels.map((l) => l.padStart(colWidth))].join(
    '  ',
  );
  const rows = report.confusion.map((row, i) =>
    [(report.labels[i] ?? '').padEnd(width), ...row.map((c) => String(c).padStart(colWidth))].join('  '),
  );
  return (
    `${report.format} (${report.dimension}), judge ${report.judge}, ${subsetLabel(report)}: ` +
    `n ${report.n}, kappa ${formatKappa(report)}, accuracy ${fixed(report.accuracy, 3)}` +
    `${report.unscored > 0 ? `, unscored ${report.unscored}` : ''}\n${head}\n${rows.join('\n')}\n`
  );
}

const ms = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));

/** Text columns padded to their widest cell; `right` columns are right-aligned. */
function columns(rows: readonly string[][], right: readonly boolean[]): string[] {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) =>
    r
      .map((cell, c) => (right[c] ? cell.padStart(widths[c] ?? 0) : cell.padEnd(widths[c] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/**
 * The reports of one dataset (every judge's `agreementBySubset` rows, pooled first) as a readable
 * table, the confusion matrices below it (unless `matrices` is false) and the footer.
 */
export function formatAgreementTable(
  format: AgreementFormat,
  reports: readonly AgreementReport[],
  opts: { matrices?: boolean } = {},
): string {
  const pooled = reports.filter((r) => r.subset === null);
  const subsets = new Set(reports.filter((r) => r.subset !== null).map((r) => r.subset));
  const judges = [...new Set(reports.map((r) => r.judge))];
  const items = Math.max(0, ...pooled.map((r) => r.n + r.unscored));
  const confidence = reports.find((r) => r.kappaCi)?.kappaCi?.confidence ?? 0.95;
  const resamples = reports.find((r) => r.kappaCi)?.kappaCi?.resamples;
  const method = reports.find((r) => r.kappaCi)?.kappaCi?.method ?? 'bca';
  const mark = (r: AgreementReport) =>
    `${r.kappaCi && r.kappaCi.undefinedResamples > 0 ? '*' : ''}${r.kappaCi?.degenerate ? '^' : ''}`;
  const pct = `${Math.round(confidence * 100)}% CI`;
  const rows = [
    [
      'judge',
      FORMAT_SUBSET[format],
      'n',
      'unscored',
      `kappa [${pct}]`,
      `quadratic kappa [${pct}]`,
      `alpha [${pct}]`,
      'accuracy',
      'cost USD',
      'p50/p95 ms',
    ],
    ...reports.map((r) => [
      r.judge,
      r.subset ?? POOLED,
      String(r.n),
      String(r.unscored),
      formatKappa(r, mark(r)),
      r.ordered
        ? formatKappa({ n: r.n, kappa: r.quadraticKappa, kappaCi: r.quadraticKappaCi })
        : 'n/a (labels not ordered)',
      `${formatKappa({ n: r.n, kappa: r.alpha, kappaCi: r.alphaCi })}${r.alphaLevel === 'nominal' ? ' (nominal)' : ''}`,
      fixed(r.accuracy, 3),
      r.costUsd.toFixed(4),
      r.latencyMs ? `${ms(r.latencyMs.p50)}/${ms(r.latencyMs.p95)}` : 'n/a',
    ]),
  ];
  const table = columns(rows, [false, false, true, true, false, false, false, true, true, true]);
  const sections = [
    `${format} (${FORMAT_DIMENSION[format]}) against people: ${items} items, ` +
      `${subsets.size} ${FORMAT_SUBSET[format]}${subsets.size === 1 ? '' : 's'}; ` +
      `judge${judges.length === 1 ? '' : 's'} ${judges.join(', ')}; ` +
      `"${POOLED}" is every ${FORMAT_SUBSET[format]} together`,
    '',
    ...table,
    '',
    ...(opts.matrices === false
      ? []
      : ['confusion matrices (rows: people, columns: judge):', '', reports.map(formatAgreement).join('\n')]),
  ];
  const footer = [
    "kappa: Cohen's (the pre-registered figure, every disagreement alike); quadratic kappa and alpha " +
      "(Krippendorff's, ordinal) weigh a disagreement by its distance on the ordered scale, so a 0-vs-2 " +
      'miss counts more than a 1-vs-2 one (on two labels quadratic kappa is kappa); where the labels are ' +
      'not ordered, alpha is nominal and there is no quadratic kappa',
    `intervals: ${method === 'bca' ? 'BCa' : method} bootstrap over the items of each row, ` +
      `${resamples ?? 'n/a'} resamples, seed ${AGREEMENT_SEED_RULE}` +
      (pooled[0]
        ? ` (e.g. ${pooled[0].kappaCi?.seed ?? `agree:${pooled[0].judge}:${format}:${POOLED}`})`
        : ''),
  ];
  if (reports.some((r) => r.kappaCi && r.kappaCi.undefinedResamples > 0))
    footer.push(
      "* some resamples had one label only on both sides (kappa undefined); each counts as the row's " +
        'kappa (see undefinedResamples in --json)',
    );
  if (reports.some((r) => r.kappaCi?.degenerate))
    footer.push('^ BCa undefined on this row: the percentile interval (or a point) is given instead');
  if (reports.some((r) => r.kappaCi === null))
    footer.push('n/a: kappa is undefined (no scored items, or one label only on both sides)');
  if (reports.some((r) => r.n < KAPPA_MIN_N))
    footer.push(`${FEW_MARK}: fewer than ${KAPPA_MIN_N} items, too few to tell (the interval is wide)`);
  return `${sections.join('\n')}\n${footer.join('\n')}\n`;
}
