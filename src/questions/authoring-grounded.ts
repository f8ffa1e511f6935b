/**
 * The question set's grounded questions over the real reports (authoring.ts): grounded-direct, one
 * audited figure asked (and, for each company with no filing here, its revenue, untraced); and
 * grounded-multihop, two audited figures combined (a year-on-year change, a margin, consolidated less
 * standalone, two companies compared), the arithmetic in the notes.
 */
import { formatInr } from '../analysis/inr.ts';
import {
  type AuditedFact,
  type AuthoringInput,
  answerable,
  BANKS,
  bare,
  type Draft,
  evidence,
  type Facts,
  METRICS,
  metricWords,
  pct,
  shown,
  traced,
  unitOf,
  where,
} from './authoring-drafts.ts';

const DIRECT_METRICS = [
  'revenue_from_operations',
  'profit_for_period',
  'basic_eps',
  'total_income',
  'profit_before_tax',
];

export function direct(facts: Facts, input: AuthoringInput): Draft[] {
  const out: Draft[] = [];
  for (const c of facts.companies)
    for (const fy of ['FY23', 'FY24'])
      for (const metric of DIRECT_METRICS) {
        const f = facts.get(c, fy, metric);
        if (!f) continue;
        const name = input.names[c] ?? c;
        const words = metricWords(c, metric);
        out.push(
          answerable({
            category: 'grounded-direct',
            template: `gd-${metric}`,
            text: `What was ${name}'s consolidated ${words} for ${fy}?`,
            gold_answer: shown(f),
            companies: [c],
            fiscal_years: [fy],
            difficulty: 'easy',
            notes: `gold ${where(f)}`,
            must_include: [bare(f)],
            numeric_gold: [
              {
                label: `${words} ${fy}`,
                value: f.value,
                unit: unitOf(f),
                tolerance: 0.005,
              },
            ],
            gold_evidence: [evidence(f)],
            gold_source: traced(f),
          }),
        );
      }
  for (const u of input.untraced) {
    const name = input.names[u.company] ?? u.company;
    const f: AuditedFact = {
      ...u,
      statement: 'consolidated',
      period: 'full-year',
      unit: 'INR crore',
      source: { kind: 'synthetic', note: u.reason },
    };
    out.push(
      answerable({
        category: 'grounded-direct',
        template: 'gd-untraced-revenue',
        text: `What was ${name}'s consolidated revenue from operations for ${u.fy}?`,
        gold_answer: shown(f),
        companies: [u.company],
        fiscal_years: [u.fy],
        difficulty: 'easy',
        notes: `gold ${u.company} ${u.fy} consolidated revenue from operations = ${u.value}, untraced: ${u.reason}`,
        must_include: [],
        numeric_gold: [
          { label: `revenue from operations ${u.fy}`, value: u.value, unit: 'INR crore', tolerance: 0.01 },
        ],
        gold_evidence: [evidence(f)],
        gold_source: { kind: 'untraced', reason: u.reason },
      }),
    );
  }
  return out;
}

/** A multihop question: two audited figures combined, the arithmetic in the notes. */
function combine(d: {
  template: string;
  text: string;
  gold_answer: string;
  figures: [AuditedFact, AuditedFact];
  fiscal_years: string[];
  difficulty: Draft['difficulty'];
  arithmetic: string;
  must_include: string;
  gold: { label: string; value: number; unit: '%' | 'INR crore'; tolerance: number };
}): Draft {
  const [x, y] = d.figures;
  return answerable({
    category: 'grounded-multihop',
    template: d.template,
    text: d.text,
    gold_answer: d.gold_answer,
    companies: [...new Set([x.company, y.company])],
    fiscal_years: d.fiscal_years,
    difficulty: d.difficulty,
    notes: `${d.arithmetic}; ${where(x)}; ${where(y)}`,
    must_include: [d.must_include],
    numeric_gold: [d.gold],
    gold_evidence: [evidence(x), evidence(y)],
    gold_source: traced(x, y),
  });
}

export function multihop(facts: Facts, input: AuthoringInput): Draft[] {
  const ofOneCompany = facts.companies.flatMap((c) => {
    const name = input.names[c] ?? c;
    return [
      ...['revenue_from_operations', 'profit_for_period'].map((metric) =>
        changeDraft(facts, c, name, metric),
      ),
      ...['FY23', 'FY24'].flatMap((fy) => [
        netMarginDraft(facts, c, name, fy),
        consolidationGapDraft(facts, c, name, fy),
      ]),
    ];
  });
  return [...ofOneCompany, ...revenueComparisons(facts, input)].filter((d): d is Draft => d !== null);
}

/** A consolidated metric's change from FY23 to FY24, in rupees and per cent. */
function changeDraft(facts: Facts, c: string, name: string, metric: string): Draft | null {
  const now = facts.get(c, 'FY24', metric);
  const before = facts.get(c, 'FY23', metric);
  if (!now || !before || before.value === 0) return null;
  const change = ((now.value - before.value) / Math.abs(before.value)) * 100;
  const words = METRICS[metric]?.words ?? metric;
  return combine({
    template: `gm-yoy-${metric}`,
    text: `By how much did ${name}'s consolidated ${words} change from FY23 to FY24, in rupees and in per cent?`,
    gold_answer: `It ${change >= 0 ? 'rose' : 'fell'} by Rs ${formatInr(Math.abs(now.value - before.value))} crore, from ${shown(before)} in FY23 to ${shown(now)} in FY24, a change of ${pct(change)}.`,
    figures: [now, before],
    fiscal_years: ['FY23', 'FY24'],
    difficulty: 'medium',
    arithmetic: `(${now.value} - ${before.value}) / |${before.value}| x 100 = ${change.toFixed(4)}%`,
    must_include: pct(change).replace('%', ''),
    gold: { label: `change in ${words}`, value: Number(change.toFixed(4)), unit: '%', tolerance: 0.02 },
  });
}

/** Consolidated profit as a share of revenue from operations in one year. */
function netMarginDraft(facts: Facts, c: string, name: string, fy: string): Draft | null {
  const pat = facts.get(c, fy, 'profit_for_period');
  const rev = facts.get(c, fy, 'revenue_from_operations');
  if (!pat || !rev || rev.value <= 0) return null;
  const margin = (pat.value / rev.value) * 100;
  return combine({
    template: 'gm-net-margin',
    text: `What was ${name}'s consolidated profit for the year as a share of its revenue from operations in ${fy}?`,
    gold_answer: `${pct(margin)}: a profit of ${shown(pat)} on revenue from operations of ${shown(rev)}.`,
    figures: [pat, rev],
    fiscal_years: [fy],
    difficulty: 'medium',
    arithmetic: `${pat.value} / ${rev.value} x 100 = ${margin.toFixed(4)}%`,
    must_include: pct(margin).replace('%', ''),
    gold: {
      label: 'profit as a share of revenue',
      value: Number(margin.toFixed(4)),
      unit: '%',
      tolerance: 0.02,
    },
  });
}

/** Consolidated less standalone revenue from operations in one year. */
function consolidationGapDraft(facts: Facts, c: string, name: string, fy: string): Draft | null {
  const rev = facts.get(c, fy, 'revenue_from_operations');
  const sa = facts.get(c, fy, 'revenue_from_operations', 'standalone');
  if (!rev || !sa || rev.value === sa.value) return null;
  const gap = rev.value - sa.value;
  return combine({
    template: 'gm-consolidation-gap',
    text: `How much more (or less) revenue from operations did ${name} report consolidated than standalone for ${fy}?`,
    gold_answer: `Rs ${formatInr(Math.abs(gap))} crore ${gap >= 0 ? 'more' : 'less'}: ${shown(rev)} consolidated against ${shown(sa)} standalone.`,
    figures: [rev, sa],
    fiscal_years: [fy],
    difficulty: 'medium',
    arithmetic: `${rev.value} - ${sa.value} = ${gap.toFixed(2)}`,
    must_include: formatInr(Math.abs(gap)),
    gold: {
      label: 'consolidated less standalone revenue',
      value: Number(gap.toFixed(2)),
      unit: 'INR crore',
      tolerance: 0.01,
    },
  });
}

/** Every pair of companies (banks aside), FY24 then FY23: which reported the higher revenue, by how much. */
function revenueComparisons(facts: Facts, input: AuthoringInput): Draft[] {
  const out: Draft[] = [];
  const cs = facts.companies;
  for (const [i, a] of cs.entries())
    for (const b of cs.slice(i + 1))
      for (const fy of ['FY24', 'FY23']) {
        const fa = facts.get(a, fy, 'revenue_from_operations');
        const fb = facts.get(b, fy, 'revenue_from_operations');
        if (!fa || !fb || BANKS.has(a) || BANKS.has(b)) continue;
        const [hi, lo] = fa.value >= fb.value ? [fa, fb] : [fb, fa];
        const nHi = input.names[hi.company] ?? hi.company;
        out.push(
          combine({
            template: 'gm-compare-revenue',
            text: `Which reported the higher consolidated revenue from operations for ${fy}, ${input.names[a] ?? a} or ${input.names[b] ?? b}, and by how much?`,
            gold_answer: `${nHi}, by Rs ${formatInr(hi.value - lo.value)} crore (${shown(hi)} against ${shown(lo)}).`,
            figures: [fa, fb],
            fiscal_years: [fy],
            difficulty: 'hard',
            arithmetic: `${hi.value} - ${lo.value} = ${(hi.value - lo.value).toFixed(2)}`,
            must_include: nHi.split(' ')[0] ?? nHi,
            gold: {
              label: 'revenue difference',
              value: Number((hi.value - lo.value).toFixed(2)),
              unit: 'INR crore',
              tolerance: 0.01,
            },
          }),
        );
      }
  return out;
}
