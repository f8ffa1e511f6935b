/**
 * The methodology's question set over the real reports (data/questions/questions.jsonl), written from
 * audited figures: the NSE XBRL results filings of seven of the ten companies (FY23 and FY24, standalone
 * and consolidated, quarter and full year), as `rge fixtures facts` read them into fixtures/facts.json.
 * Every gold figure carries its filing, element and context (`gold_source`); every gold evidence is a
 * pattern the report prints (the line label and the figure, `gold_evidence`), resolved to chunk ids on
 * the built index by `rge questions resolve`, never typed.
 *
 * The three companies without a staged XBRL filing (Ola Electric, Nykaa, Paytm) get out-of-domain
 * questions and a few grounded-direct ones whose gold is marked `untraced` with the reason; the run's
 * report counts those apart. Selection is seeded (seedrandom) and recorded in every question's notes.
 */
import seedrandom from 'seedrandom';
import { z } from 'zod';
import { formatInr } from '../analysis/inr.ts';
import { RgeError } from '../util/errors.ts';
import { pickRoundRobin } from '../util/shuffle.ts';
import { CATEGORY_COUNTS, type GoldEvidence, type GoldSource, type QuestionInput } from './schema.ts';

/** What an untraced question's `gold_source` says. */
export const UNTRACED_REASON =
  'no XBRL filing of this company is staged here; the figure is as its annual report publishes it, not checked against a file on this machine (data/questions/untraced-figures.json)';

export const AUTHORING_SEED = 'rge-published-questions-v1';

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

/** data/questions/untraced-figures.json: the figures of companies with no filing here, and why. */
const UntracedFile = z.strictObject({
  note: z.string(),
  figures: z.array(
    z.strictObject({
      company: z.string().min(1),
      fy: z.string().regex(/^FY\d{2}$/),
      metric: z.literal('revenue_from_operations'),
      value: z.number().finite(),
    }),
  ),
});

/** The untraced figures of `text` (the file at `file`), each with the reason it is untraced. */
export function parseUntracedFigures(text: string, file: string): UntracedFigure[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new RgeError(`not JSON: ${(err as Error).message}`, { file });
  }
  const parsed = UntracedFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RgeError(`${issue?.path.join('.') || 'file'}: ${issue?.message}`, { file });
  }
  return parsed.data.figures.map((f) => ({ ...f, reason: UNTRACED_REASON }));
}

type Draft = Omit<QuestionInput, 'id' | 'version'> & { template: string };

const METRICS: Record<string, { label: string; aliases: string[]; bankLabel?: string; words: string }> = {
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

const BANKS = new Set(['hdfc-bank']);

const shown = (f: AuditedFact) =>
  f.unit === 'INR per share' ? `Rs ${f.value.toFixed(2)}` : `Rs ${formatInr(f.value)} crore`;
const bare = (f: AuditedFact) => (f.unit === 'INR per share' ? f.value.toFixed(2) : formatInr(f.value));
const unitOf = (f: AuditedFact) =>
  f.unit === 'INR per share' ? ('INR per share' as const) : ('INR crore' as const);
const pct = (v: number) => `${v.toFixed(1)}%`;

class Facts {
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
function metricWords(company: string, metric: string): string {
  if (BANKS.has(company) && metric === 'revenue_from_operations') return 'interest earned';
  return METRICS[metric]?.words ?? metric;
}

/** The report a figure is printed in: its own year's, or (`inReport`) the next year's comparatives. */
function evidence(f: AuditedFact, inReport = f.fy): GoldEvidence {
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

function traced(...facts: AuditedFact[]): GoldSource {
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

const where = (f: AuditedFact) =>
  `${f.company} ${f.fy} ${f.statement} ${f.period} ${f.metric} = ${f.value} (${f.source.kind === 'xbrl' ? `${f.source.filing} ${f.source.concept} ${f.source.context}` : 'untraced'})`;

function answerable(d: {
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

const DIRECT_METRICS = [
  'revenue_from_operations',
  'profit_for_period',
  'basic_eps',
  'total_income',
  'profit_before_tax',
];

function direct(facts: Facts, input: AuthoringInput): Draft[] {
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

function multihop(facts: Facts, input: AuthoringInput): Draft[] {
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

/** An adversarial question: the gold figure asked, the distractor printed beside it. */
function trap(d: {
  template: string;
  text: string;
  gold: AuditedFact;
  distractor: AuditedFact;
  kind: NonNullable<Draft['distractor']>['kind'];
  description: string;
  fiscal_years: string[];
  label: string;
  tolerance: number;
  /** the report that prints the gold figure (default: its own year's) */
  inReport?: string;
  caveat?: string;
}): Draft {
  const { gold, distractor } = d;
  return answerable({
    category: 'adversarial',
    template: d.template,
    text: d.text,
    gold_answer: shown(gold),
    companies: [gold.company],
    fiscal_years: d.fiscal_years,
    difficulty: 'hard',
    notes: `gold ${where(gold)}; distractor ${where(distractor)}${d.caveat ? `; ${d.caveat}` : ''}`,
    must_include: [bare(gold)],
    must_not_include: [bare(distractor)],
    numeric_gold: [{ label: d.label, value: gold.value, unit: unitOf(gold), tolerance: d.tolerance }],
    gold_evidence: [evidence(gold, d.inReport)],
    gold_source: traced(gold, distractor),
    distractor: { kind: d.kind, description: d.description, value: distractor.value },
  });
}

function adversarial(facts: Facts, input: AuthoringInput): Draft[] {
  const out: Draft[] = [];
  for (const c of facts.companies) {
    const name = input.names[c] ?? c;
    for (const fy of ['FY23', 'FY24'])
      for (const metric of ['revenue_from_operations', 'profit_for_period', 'basic_eps']) {
        const words = metricWords(c, metric);
        const cons = facts.get(c, fy, metric);
        const sa = facts.get(c, fy, metric, 'standalone');
        if (cons && sa && cons.value !== sa.value)
          out.push(
            trap({
              template: `adv-standalone-${metric}`,
              text: `What was ${name}'s standalone (not consolidated) ${words} for ${fy}?`,
              gold: sa,
              distractor: cons,
              kind: 'consolidated-vs-standalone',
              description: 'the consolidated figure is printed beside the standalone one and retrieved first',
              fiscal_years: [fy],
              label: `standalone ${words} ${fy}`,
              tolerance: 0.005,
            }),
          );
        const q4 = facts.get(c, fy, metric, 'consolidated', 'quarter');
        if (cons && q4 && metric === 'revenue_from_operations')
          out.push(
            trap({
              template: 'adv-quarter',
              text: `What was ${name}'s consolidated ${words} in the fourth quarter (January to March) of ${fy}, not the full year?`,
              gold: q4,
              distractor: cons,
              kind: 'quarter-vs-full-year',
              description: 'the full-year figure dominates the report; the quarter is asked',
              fiscal_years: [fy],
              label: `Q4 ${words} ${fy}`,
              tolerance: 0.005,
              caveat:
                'annual reports seldom print the quarter: unresolved on an index of annual reports alone',
            }),
          );
        const now = facts.get(c, 'FY24', metric);
        if (fy === 'FY23' && metric !== 'basic_eps' && cons && now && now.value !== cons.value)
          out.push(
            trap({
              template: `adv-prior-year-${metric}`,
              text: `According to ${name}'s FY24 annual report, what was its consolidated ${words} in the previous year, FY23?`,
              gold: cons,
              distractor: now,
              kind: 'other-fiscal-year',
              description: "the FY24 figure stands in the column beside FY23's",
              fiscal_years: ['FY23', 'FY24'],
              label: `${words} FY23`,
              tolerance: 0.01,
              inReport: 'FY24',
              caveat: "the FY24 report's comparative: a restated comparative would differ",
            }),
          );
      }
  }
  return out;
}

/** The methodology's three kinds of unanswerable question. */
const OOD: { template: string; kind: string; ask: (name: string) => string; absent: string[] }[] = [
  {
    template: 'ood-future-revenue',
    kind: 'outside the temporal scope',
    ask: (n) => `What was ${n}'s consolidated revenue from operations for FY26?`,
    absent: ['FY26', '2025-26'],
  },
  {
    template: 'ood-market-share-2026',
    kind: 'outside the temporal scope',
    ask: (n) => `What is ${n}'s market share in Tier-3 Indian cities as of April 2026?`,
    absent: ['April 2026', 'Tier-3'],
  },
  {
    template: 'ood-quantum-rnd',
    kind: 'absent disclosure',
    ask: (n) => `How much did ${n} spend on quantum computing research in FY24?`,
    absent: ['quantum computing'],
  },
  {
    template: 'ood-nps',
    kind: 'absent disclosure',
    ask: (n) => `What Net Promoter Score did ${n} report for its customers in FY24?`,
    absent: ['Net Promoter Score', 'NPS'],
  },
  {
    template: 'ood-drone-exit',
    kind: 'undisclosed event',
    ask: (n) =>
      `At what valuation did ${n} sell its stake in a Singapore drone-delivery start-up during FY24?`,
    absent: ['drone', 'Singapore drone'],
  },
];

function outOfDomain(names: Readonly<Record<string, string>>): Draft[] {
  const out: Draft[] = [];
  for (const [c, name] of Object.entries(names))
    for (const t of OOD)
      out.push({
        category: 'out-of-domain',
        template: t.template,
        text: t.ask(name),
        gold_answer: `The reports do not disclose this (${t.kind}); the question should be declined.`,
        gold_chunk_ids: [],
        gold_quotes: [],
        expected_behavior: 'refuse',
        companies: [c],
        fiscal_years: ['FY24'],
        difficulty: 'medium',
        authoring_notes: `template ${t.template}; ${t.kind}; absent: ${t.absent.join('; ')}`,
        must_include: [],
        must_not_include: [],
        numeric_gold: [],
        distractor: null,
        absent_facts: t.absent,
        gold_source: { kind: 'absent' },
      });
  return out;
}

/** Takes `n` drafts, round-robin over templates, so that every template is represented. */
function pick(drafts: readonly Draft[], n: number, random: () => number, category: string): Draft[] {
  const out = pickRoundRobin(drafts, n, random, (d) => d.template);
  if (out.length < n)
    throw new Error(`only ${out.length} ${category} questions could be written, ${n} needed`);
  return out;
}

/** The question set: 45/45/65/45, unresolved (`rge questions resolve` fills gold chunk ids on an index). */
export function authorQuestions(input: AuthoringInput, seed = AUTHORING_SEED): QuestionInput[] {
  const facts = new Facts(input.facts);
  const random = seedrandom(seed);
  const sets: [keyof typeof CATEGORY_COUNTS, string, Draft[]][] = [
    ['grounded-direct', 'gd', direct(facts, input)],
    ['grounded-multihop', 'gm', multihop(facts, input)],
    ['adversarial', 'adv', adversarial(facts, input)],
    ['out-of-domain', 'ood', outOfDomain(input.names)],
  ];
  const questions: QuestionInput[] = [];
  for (const [category, prefix, drafts] of sets) {
    // the untraced questions are all kept: they are few, and the report counts them apart
    const kept = drafts.filter((d) => d.gold_source?.kind === 'untraced');
    const chosen = [
      ...kept,
      ...pick(
        drafts.filter((d) => !kept.includes(d)),
        CATEGORY_COUNTS[category] - kept.length,
        random,
        category,
      ),
    ];
    for (const [i, { template: _template, ...d }] of chosen.entries())
      questions.push({
        version: 1,
        id: `${prefix}-${String(i + 1).padStart(3, '0')}`,
        ...d,
        authoring_notes: `${d.authoring_notes}; selected with seed ${seed}`,
      });
  }
  return questions;
}
