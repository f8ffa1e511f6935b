/**
 * The rge question: one line of a questions JSONL file. Every loader (the fixture set, FinanceBench,
 * the Enterprise RAG Challenge, a user's own golden set) produces this record, and the validator checks it. Field names are
 * snake_case as they appear in the JSON; the TypeScript types are inferred from the schemas.
 *
 * The cross-field rules that need no index live here (superRefine); the ones that need the built
 * index (gold chunk ids exist, gold quotes appear in them) are in `validate.ts`.
 */
import { z } from 'zod';
import { DERIVATION_OPS, derivationReproduces, operandCount } from '../analysis/derivation.ts';
import { GOLD_UNITS } from '../analysis/numbers.ts';
import { FiscalYear } from '../corpus/schema.ts';

/** The current question-set format version. */
export const QUESTION_VERSION = 1;

/** The methodology's four categories, in report order. */
export const QUESTION_CATEGORIES = [
  'grounded-direct',
  'grounded-multihop',
  'adversarial',
  'out-of-domain',
] as const;
export const QuestionCategory = z.enum(QUESTION_CATEGORIES);

/** The methodology's 200 questions by category (section 3): adversarial ones over-sampled. */
export const CATEGORY_COUNTS = {
  'grounded-direct': 45,
  'grounded-multihop': 45,
  adversarial: 65,
  'out-of-domain': 45,
} as const satisfies Record<(typeof QUESTION_CATEGORIES)[number], number>;
export type QuestionCategory = z.infer<typeof QuestionCategory>;

/** What a good subject does: answer, answer but flag a trap or ambiguity, or decline. */
export const ExpectedBehavior = z.enum(['answer', 'answer-with-caveat', 'refuse']);
export type ExpectedBehavior = z.infer<typeof ExpectedBehavior>;

export const Difficulty = z.enum(['easy', 'medium', 'hard']);
export type Difficulty = z.infer<typeof Difficulty>;

/** Units a numeric gold value is stated in (analysis' GOLD_UNITS, which the checks compare against). */
export const NumericUnit = z.enum(GOLD_UNITS);
export type NumericUnit = z.infer<typeof NumericUnit>;

/** A figure a derivation is computed from: what it is, its value and unit, as the passage prints it. */
export const DerivationOperand = z.strictObject({
  /** what the figure is, e.g. "consolidated revenue from operations FY24, Reliance Industries Limited" */
  label: z.string().min(1),
  value: z.number().finite(),
  unit: NumericUnit,
});
export type DerivationOperand = z.infer<typeof DerivationOperand>;

/**
 * How a gold figure is computed from printed figures (analysis/derivation.ts): `sum` a + b (+ ...),
 * `difference` a - b, `ratio` a / b, `growth` (a - b) / |b|; a ratio or growth in per cent when the
 * figure's unit is '%'. A sum or difference takes operands in the figure's unit; a ratio or growth two
 * operands of one unit. The question's validation checks that the operands give the figure.
 */
export const Derivation = z
  .strictObject({
    op: z.enum(DERIVATION_OPS),
    operands: z.array(DerivationOperand).min(2),
  })
  .superRefine((d, ctx) => {
    const { max } = operandCount(d.op);
    if (d.operands.length > max)
      ctx.addIssue({
        code: 'custom',
        path: ['operands'],
        message: `a ${d.op} takes ${max} operands, not ${d.operands.length}`,
      });
    if ((d.op === 'ratio' || d.op === 'growth') && d.operands[1]?.value === 0)
      ctx.addIssue({ code: 'custom', path: ['operands', 1, 'value'], message: `a ${d.op} divides by zero` });
  });
export type Derivation = z.infer<typeof Derivation>;

/** A figure the answer must state, compared with a relative tolerance. */
export const NumericGold = z.strictObject({
  /** what the figure is, e.g. "consolidated revenue FY24" */
  label: z.string().min(1),
  value: z.number().finite(),
  unit: NumericUnit,
  /** relative tolerance: |answer - value| <= tolerance * |value| (default 1%) */
  tolerance: z.number().nonnegative().default(0.01),
  /** how the figure is computed from figures the reports print, when no report prints it */
  derivation: Derivation.optional(),
});
export type NumericGold = z.infer<typeof NumericGold>;

/**
 * Why a numeric gold's derivation does not hold, or null when it does (or there is none): a sum or a
 * difference whose operands are not in the figure's unit, a ratio or growth whose operands differ in
 * unit, or operands that do not give the figure's value within its tolerance.
 */
export function derivationProblem(g: NumericGold): string | null {
  const d = g.derivation;
  if (!d) return null;
  const units = [...new Set(d.operands.map((o) => o.unit))];
  if ((d.op === 'sum' || d.op === 'difference') && units.some((u) => u !== g.unit))
    return `a ${d.op} of ${units.join(', ')} operands cannot give a figure in ${g.unit}`;
  if ((d.op === 'ratio' || d.op === 'growth') && units.length > 1)
    return `a ${d.op} needs two operands of one unit, not ${units.join(' and ')}`;
  const { ok, computed } = derivationReproduces(g);
  if (ok) return null;
  const values = d.operands.map((o) => o.value).join(', ');
  return `its derivation (${d.op} of ${values}) gives ${Number(computed.toPrecision(12))}, not ${g.value} (tolerance ${g.tolerance})`;
}

/** The trap an adversarial question plants, in the methodology's failure buckets. */
export const DistractorKind = z.enum([
  'consolidated-vs-standalone',
  'other-fiscal-year',
  'quarter-vs-full-year',
  'interim-vs-final-dividend',
  'parent-vs-subsidiary',
  'unit-or-period-near-duplicate',
  'other-company-same-page',
]);
export type DistractorKind = z.infer<typeof DistractorKind>;

export const Distractor = z.strictObject({
  kind: DistractorKind,
  /** what the trap is and why a careless answer falls into it */
  description: z.string().min(1),
  /** the wrong figure a careless answer would give */
  value: z.number().finite().optional(),
  /** the passage that carries the wrong figure */
  quote: z.string().min(1).optional(),
});
export type Distractor = z.infer<typeof Distractor>;

/**
 * Where an imported question came from: the dataset and its own id for the question. `golden` is a
 * user's own question set (`rge questions import --format golden`): its ref is the row's id as given,
 * else the id rge derived. `logged` is a question a user asked the application, as its traces logged it
 * (`rge traces questions`): its ref is the trace id; it has gold only where it matched a golden question
 * (then that question's gold), else an empty gold answer and no correctness (`hasGold`).
 */
export const QuestionSource = z.strictObject({
  dataset: z.enum(['rge-fixture', 'financebench', 'erc', 'golden', 'generated', 'logged']),
  ref: z.string().min(1),
});
export type QuestionSource = z.infer<typeof QuestionSource>;

/**
 * Gold evidence as a pattern a report really prints, never a typed chunk id: a figure with its line
 * label (found in any printed form: Indian or western grouping, crore, lakh or million, brackets for a
 * negative) or a short verbatim quote for a text fact, in the report of `company` for `fy`.
 * `rge questions resolve` finds the chunks that hold it and writes `gold_chunk_ids` and `resolved_on`.
 */
export const GoldEvidence = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('figure'),
    company: z.string().min(1),
    fy: FiscalYear,
    /** the line label as the statement prints it, e.g. "Revenue from operations" */
    label: z.string().min(1),
    /** other labels the same line is printed under (a bank's "Interest earned", "Total revenue") */
    aliases: z.array(z.string().min(1)).default([]),
    value: z.number().finite(),
    unit: NumericUnit,
    /** which statement prints it, so a resolver can prefer the right table */
    statement: z.enum(['standalone', 'consolidated']),
    period: z.enum(['quarter', 'full-year']),
  }),
  z.strictObject({
    kind: z.literal('quote'),
    company: z.string().min(1),
    fy: FiscalYear,
    text: z.string().min(1),
  }),
]);
export type GoldEvidence = z.infer<typeof GoldEvidence>;

/**
 * Where a gold answer comes from, so anyone can audit it: the NSE XBRL results filings (file, element,
 * context of every figure used), nothing to trace (an out-of-domain question, answered by declining),
 * or not traced here (the reason says why; the report counts such questions apart).
 */
export const GoldSource = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('xbrl'),
    facts: z
      .array(
        z.strictObject({
          /** file name under ../shared/corpus/xbrl_nse/<company folder>/ */
          filing: z.string().regex(/\.xml$/),
          element: z.string().min(1),
          /** OneD = the quarter, FourD = the full year */
          context: z.string().min(1),
          /** the value as filed (INR or INR per share), before conversion to crore */
          reported: z.string().min(1),
        }),
      )
      .min(1),
  }),
  z.strictObject({ kind: z.literal('absent') }),
  z.strictObject({ kind: z.literal('untraced'), reason: z.string().min(1) }),
]);
export type GoldSource = z.infer<typeof GoldSource>;

/**
 * Where a gold quote of a user's golden set is printed: the document its row names and the page, and
 * whether the import found it there (`--documents`) or kept it as given. One per gold quote, in order.
 */
export const GoldQuoteLocation = z.strictObject({
  /** the document as the row names it: a file of the folder given to `--documents` */
  document: z.string().min(1),
  /**
   * the 1-based PDF page the quote is printed on (where it begins, if it runs onto the next); null in
   * a text or markdown file, and for an unresolved quote whose row names no page
   */
  page: z.number().int().positive().nullable(),
  /** true: found in the document at import; false: kept as given (imported without `--documents`) */
  resolved: z.boolean(),
  /** the heading the quote is printed under (a Markdown or HTML section, a report's heading), when known */
  section: z.string().nullable().optional(),
  /**
   * where the quote is in the text rge extracted: character offsets [start, end) of the page's text
   * (of the whole file for a text, Markdown or HTML document), when it was located (generated questions)
   */
  span: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]).optional(),
});
export type GoldQuoteLocation = z.infer<typeof GoldQuoteLocation>;

/** How a generated question was made: enough to make it again, and to tell a seed set from a model's. */
export const GeneratorRef = z.strictObject({
  /** `offline/extractive`, the registry model's `provider/model`, or `logged-traces/<file>` */
  id: z.string().min(1),
  /** the model family (self-preference: a subject of this family is warned about in the report) */
  family: z.string().min(1),
  /** offline: rge's templates (a seed set); model: a model of the registry; logged: a logged trace's question and answer */
  kind: z.enum(['offline', 'model', 'logged']),
  /** the generator's prompt (model) or template version (offline), hashed */
  prompt_hash: z.string().min(1),
  seed: z.string().min(1),
});
export type GeneratorRef = z.infer<typeof GeneratorRef>;

/**
 * A generated question's provenance (`rge questions generate`): its generator, the candidate it was,
 * the checks it passed, what verification flagged, and whether a person reviewed it. A question of the
 * offline generator is a seed set's (`seed_set`): extractive and templated, never a person's judgement.
 */
export const QuestionProvenance = z.strictObject({
  generator: GeneratorRef,
  candidate: z.string().min(1),
  seed_set: z.boolean(),
  /** the verification checks it passed, in order */
  checks: z.array(z.string().min(1)),
  /** what verification noted without rejecting it */
  flags: z.array(z.string().min(1)),
  /** unreviewed until a person accepted it (as generated) or edited it (re-verified on save) */
  review: z.enum(['unreviewed', 'accepted', 'edited']),
  /** adversarial: the false premise the question makes (verification checks a quote contradicts it) */
  false_premise: z.string().min(1).optional(),
});
export type QuestionProvenance = z.infer<typeof QuestionProvenance>;

const Slug = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'company must be a lowercase slug such as hdfc-bank');

export const Question = z
  .strictObject({
    /** question-set version; all questions of a file share it (the validator checks) */
    version: z.literal(QUESTION_VERSION),
    /** unique within the file: a category prefix and a number, e.g. gd-001, gm-014, adv-033, ood-007, fb-00499 */
    id: z
      .string()
      .regex(/^[a-z]+-\d+$/, 'id must be a lowercase prefix, a hyphen and a number, such as gd-001'),
    category: QuestionCategory,
    /** the question as the subject sees it */
    text: z.string().min(1),
    /**
     * the reference answer; for out-of-domain questions, why the corpus cannot answer it; empty only for a
     * logged question no golden question matched (source.dataset 'logged'), whose correctness is not judged
     */
    gold_answer: z.string(),
    /** ids of the chunks that hold the answer ({company}-{fy}-{sha1[:8]}); empty for out-of-domain */
    gold_chunk_ids: z.array(z.string().min(1)),
    /** verbatim passages (whitespace aside) of the gold chunks that support the answer */
    gold_quotes: z.array(z.string().min(1)),
    expected_behavior: ExpectedBehavior,
    /** company slugs the question is about; at least one unless out-of-domain */
    companies: z.array(Slug),
    /** fiscal years the question is about, FYxx */
    fiscal_years: z.array(FiscalYear),
    difficulty: Difficulty,
    /** private: how the question was written and what it tests; never shown to a subject */
    authoring_notes: z.string(),
    /** strings a correct answer must contain (checked case-insensitively by the checks) */
    must_include: z.array(z.string().min(1)),
    /** strings a correct answer must not contain, e.g. the distractor's figure */
    must_not_include: z.array(z.string().min(1)),
    /** figures the answer must state, with unit and tolerance */
    numeric_gold: z.array(NumericGold),
    /** the planted trap: required for adversarial questions, null for the others */
    distractor: Distractor.nullable(),
    /** where an imported question came from */
    source: QuestionSource.optional(),
    /** the patterns `rge questions resolve` looks for; questions authored on real reports have them */
    gold_evidence: z.array(GoldEvidence).optional(),
    /** where the gold answer comes from (file, element, context), or why it is not traced */
    gold_source: GoldSource.optional(),
    /**
     * the checksum of the index `gold_chunk_ids` were resolved on, or null while unresolved; a question
     * with gold evidence is only scored on the index it was resolved on
     */
    resolved_on: z.string().min(1).nullable().optional(),
    /**
     * out-of-domain only: the key facts (phrases) the question asks about that no chunk of the corpus
     * contains, so that a test can prove the question is unanswerable from the corpus
     */
    absent_facts: z.array(z.string().min(1)).optional(),
    /** a golden set's gold quotes: where each is printed in the user's documents (one per quote) */
    gold_quote_locations: z.array(GoldQuoteLocation).optional(),
    /** a generated question's provenance (source.dataset 'generated') */
    provenance: QuestionProvenance.optional(),
  })
  .superRefine((q, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (q.category === 'out-of-domain') {
      if (q.gold_chunk_ids.length > 0)
        issue('gold_chunk_ids', 'out-of-domain questions must have no gold chunk ids');
      if (q.expected_behavior !== 'refuse')
        issue('expected_behavior', "out-of-domain questions must expect 'refuse'");
      if ((q.gold_evidence ?? []).length > 0)
        issue('gold_evidence', 'out-of-domain questions have no gold evidence');
    } else if (q.gold_evidence !== undefined) {
      // gold resolved from evidence patterns: unresolved (resolved_on null) until `rge questions resolve`
      if (q.gold_evidence.length === 0) issue('gold_evidence', `${q.category} needs at least one pattern`);
      if (q.resolved_on === undefined)
        issue('resolved_on', 'a question with gold evidence states resolved_on (null while unresolved)');
      else if (q.resolved_on === null && q.gold_chunk_ids.length > 0)
        issue('gold_chunk_ids', 'an unresolved question (resolved_on null) has no gold chunk ids');
      else if (q.resolved_on !== null && q.gold_chunk_ids.length === 0)
        issue('gold_chunk_ids', `resolved on ${q.resolved_on} but no gold chunk ids`);
      if (q.companies.length === 0) issue('companies', `${q.category} needs at least one company`);
    } else if (q.source?.dataset !== 'golden' && q.source?.dataset !== 'logged') {
      // (a user's golden set, and a logged question, is scored on the contexts the user's system returns, not on rge's index:
      // it needs no gold chunk, quote or company; its gold quotes are located in the user's documents)
      if (q.gold_chunk_ids.length === 0)
        issue('gold_chunk_ids', `${q.category} needs at least one gold chunk id`);
      if (q.gold_quotes.length === 0) issue('gold_quotes', `${q.category} needs at least one gold quote`);
      if (q.companies.length === 0) issue('companies', `${q.category} needs at least one company`);
    }
    if (q.gold_answer === '' && q.source?.dataset !== 'logged')
      issue(
        'gold_answer',
        'a gold answer is required (only a logged question with no golden match has none)',
      );
    if (
      q.gold_answer === '' &&
      (q.gold_quotes.length > 0 || q.numeric_gold.length > 0 || q.must_include.length > 0)
    )
      issue('gold_answer', 'a question with no gold answer has no gold quotes, figures or required strings');
    if (q.category === 'adversarial' && q.distractor === null)
      issue('distractor', 'adversarial questions must name the distractor they plant');
    if (q.category !== 'out-of-domain' && q.absent_facts !== undefined)
      issue('absent_facts', 'only out-of-domain questions list absent facts');
    if (q.category !== 'adversarial' && q.distractor !== null)
      issue('distractor', 'only adversarial questions have a distractor (use null)');
    q.numeric_gold.forEach((g, i) => {
      const problem = derivationProblem(g);
      if (problem)
        ctx.addIssue({
          code: 'custom',
          path: ['numeric_gold', i, 'derivation'],
          message: `${q.id}: numeric_gold "${g.label}": ${problem}`,
        });
    });
    if (q.gold_quote_locations !== undefined && q.gold_quote_locations.length !== q.gold_quotes.length)
      issue(
        'gold_quote_locations',
        `${q.gold_quote_locations.length} location(s) for ${q.gold_quotes.length} gold quote(s): one per quote`,
      );
  });
export type Question = z.infer<typeof Question>;

/**
 * Whether a question has gold, so that its correctness (and the GFS, which weighs it) can be judged: all
 * but a logged question no golden question matched. Without gold, correctness is null, never 0.
 */
export const hasGold = (q: Pick<Question, 'gold_answer'>): boolean => q.gold_answer !== '';
/** A question as written in JSON (tolerance may be omitted). */
export type QuestionInput = z.input<typeof Question>;
