/**
 * The question set's questions that an answer must not take at face value (authoring.ts): adversarial,
 * the gold figure asked with a distractor printed beside it (consolidated for standalone, the full
 * year for the quarter, the next year for the previous); and out-of-domain, the methodology's three
 * kinds of question the reports cannot answer, to be declined.
 */
import {
  type AuditedFact,
  type AuthoringInput,
  answerable,
  bare,
  type Draft,
  evidence,
  type Facts,
  metricWords,
  shown,
  traced,
  unitOf,
  where,
} from './authoring-drafts.ts';

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

export function adversarial(facts: Facts, input: AuthoringInput): Draft[] {
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

export function outOfDomain(names: Readonly<Record<string, string>>): Draft[] {
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
