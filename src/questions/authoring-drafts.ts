/**
 * What every template of the question set over the real reports (authoring.ts) is written with: the
 * figures it reads (the facts file's audited ones, the untraced ones of companies with no filing here),
 * a draft question (a question less its id and version, with the template that wrote it), how a metric
 * is labelled in a report and named in a question (a bank's revenue is its interest earned), how a
 * figure is shown, and the gold evidence and source of a figure.
 */
import { formatInr } from '../analysis/inr.ts';
import type { GoldEvidence, GoldSource, QuestionInput } from './schema.ts';

/** One figure of the facts file (fixtures/facts.json `numeric`), as far as authoring reads it. */
export interface AuditedFact {
  company: string;
  fy: string;
  statement: 'standalone' | 'consolidated';
  period: 'quarter' | 'full-year';
  metric: string;
  value: number;
  unit: string;
  source:
    | { kind: 'xbrl'; filing: string; concept: string; context: string; reported: string }
    | { kind: 'synthetic'; note: string };
}

export interface AuthoringInput {
  /** slug -> the name questions use */
  names: Readonly<Record<string, string>>;
  facts: readonly AuditedFact[];
  /** companies with no audited source here: only untraced and out-of-domain questions */
  untraced: readonly UntracedFigure[];
}

/** A figure of a company with no filing staged here, as its annual report publishes it (to be confirmed). */
export interface UntracedFigure {
  company: string;
  fy: string;
  metric: 'revenue_from_operations';
  value: number;
  reason: string;
}

export type Draft = Omit<QuestionInput, 'id' | 'version'> & { template: string };

export const METRICS: Record<
  string,
  { label: string; aliases: string[]; bankLabel?: string; words: string }
> = {
  revenue_from_operations: {
    label: 'Revenue from operations',
    aliases: ['Total revenue from operations', 'Income from operations'],
    bankLabel: 'Interest earned',
    words: 'revenue from operations',
  },
  total_income: { label: 'Total income', aliases: ['Total Income'], words: 'total income' },
  profit_before_tax: {
    label: 'Profit before tax',
    aliases: ['Profit before exceptional items and tax', 'Profit/(loss) before tax'],
    bankLabel: 'Profit from ordinary activities before tax',
    words: 'profit before tax',
  },
  profit_for_period: {
    label: 'Profit for the year',
    aliases: ['Net profit for the period', 'Profit for the period', 'Profit/(loss) for the year'],
    words: 'profit for the year',
  },
  basic_eps: {
    label: 'Basic',
    aliases: ['Basic earnings per share', 'Basic EPS', 'Earnings per equity share'],
    words: 'basic earnings per share',
  },
};

export const BANKS = new Set(['hdfc-bank']);

export const shown = (f: AuditedFact) =>
  f.unit === 'INR per share' ? `Rs ${f.value.toFixed(2)}` : `Rs ${formatInr(f.value)} crore`;
export const bare = (f: AuditedFact) =>
  f.unit === 'INR per share' ? f.value.toFixed(2) : formatInr(f.value);
export const unitOf = (f: AuditedFact) =>
  f.unit === 'INR per share' ? ('INR per share' as const) : ('INR crore' as const);
export const pct = (v: number) => `${v.toFixed(1)}%`;

export class Facts {
  private readonly byKey = new Map<string, AuditedFact>();
  constructor(facts: readonly AuditedFact[]) {
    for (const f of facts)
      if (f.source.kind === 'xbrl')
        this.byKey.set(`${f.company}/${f.fy}/${f.statement}/${f.period}/${f.metric}`, f);
  }
  get(company: string, fy: string, metric: string, statement = 'consolidated', period = 'full-year') {
    return this.byKey.get(`${company}/${fy}/${statement}/${period}/${metric}`);
  }
  get companies(): string[] {
    return [...new Set([...this.byKey.values()].map((f) => f.company))].sort();
  }
}

function label(company: string, metric: string): { label: string; aliases: string[] } {
  const m = METRICS[metric];
  if (!m) throw new Error(`no label for metric ${metric}`);
  if (BANKS.has(company) && m.bankLabel) return { label: m.bankLabel, aliases: [m.label, ...m.aliases] };
  return { label: m.label, aliases: m.aliases };
}

/** How a question names a metric (a bank's revenue from operations is its interest earned). */
export function metricWords(company: string, metric: string): string {
  if (BANKS.has(company) && metric === 'revenue_from_operations') return 'interest earned';
  return METRICS[metric]?.words ?? metric;
}

/** The report a figure is printed in: its own year's, or (`inReport`) the next year's comparatives. */
export function evidence(f: AuditedFact, inReport = f.fy): GoldEvidence {
  return {
    kind: 'figure',
    company: f.company,
    fy: inReport,
    ...label(f.company, f.metric),
    value: f.value,
    unit: unitOf(f),
    statement: f.statement,
    period: f.period,
  };
}

export function traced(...facts: AuditedFact[]): GoldSource {
  return {
    kind: 'xbrl',
    facts: facts.map((f) => {
      if (f.source.kind !== 'xbrl') throw new Error('only audited figures are traced');
      return {
        filing: f.source.filing,
        element: f.source.concept,
        context: f.source.context,
        reported: f.source.reported,
      };
    }),
  };
}

export const where = (f: AuditedFact) =>
  `${f.company} ${f.fy} ${f.statement} ${f.period} ${f.metric} = ${f.value} (${f.source.kind === 'xbrl' ? `${f.source.filing} ${f.source.concept} ${f.source.context}` : 'untraced'})`;

export function answerable(d: {
  category: Draft['category'];
  template: string;
  text: string;
  gold_answer: string;
  companies: string[];
  fiscal_years: string[];
  difficulty: Draft['difficulty'];
  notes: string;
  must_include: string[];
  numeric_gold: Draft['numeric_gold'];
  gold_evidence: GoldEvidence[];
  gold_source: GoldSource;
  distractor?: Draft['distractor'];
  must_not_include?: string[];
}): Draft {
  return {
    category: d.category,
    template: d.template,
    text: d.text,
    gold_answer: d.gold_answer,
    gold_chunk_ids: [],
    gold_quotes: [],
    expected_behavior: 'answer',
    companies: d.companies,
    fiscal_years: d.fiscal_years,
    difficulty: d.difficulty,
    authoring_notes: `template ${d.template}; ${d.notes}`,
    must_include: d.must_include,
    must_not_include: d.must_not_include ?? [],
    numeric_gold: d.numeric_gold,
    distractor: d.distractor ?? null,
    gold_evidence: d.gold_evidence,
    gold_source: d.gold_source,
    resolved_on: null,
  };
}
