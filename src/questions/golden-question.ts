/**
 * One row of a user's golden set as an rge question, every problem of the row named by its field:
 * - id: the row's own, lowercased with a hyphen before its number (`Q01` is `q-01`), or, when it has
 *   none, derived from the question's text (`g-` and eight digits of the sha256 of the text, lowercased
 *   and whitespace-normalised), so that it survives reordering and edits of other rows;
 * - expected behaviour: answer, answer-with-caveat or refuse (also answerable, caveat, refusal,
 *   abstain, decline, unanswerable);
 * - category: the row's own (the methodology's four, or direct, multihop, ood); else refuse gives
 *   out-of-domain and the two answerable behaviours give grounded-direct;
 * - numeric gold: the row's numeric_value and numeric_unit (label and tolerance optional), else parsed
 *   from a gold answer that is one figure with a unit rge compares (crore, per share, %, tCO2e, USD
 *   million or billion); a bare number or rupees without a scale stay without numeric gold.
 * Companies are slugged (`HDFC Bank` is hdfc-bank) and fiscal years upper-cased (fy24 is FY24).
 * Pure: where its gold quotes are printed is `golden-documents.ts`'s question.
 */
import { createHash } from 'node:crypto';
import { extractQuantities, GOLD_UNITS } from '../analysis/numbers.ts';
import { slugify } from '../corpus/naming.ts';
import type { JsonlIssue } from '../util/jsonl.ts';
import type { GoldenField, GoldenRow } from './golden-rows.ts';
import { normaliseWhitespace } from './load.ts';
import {
  Difficulty,
  DistractorKind,
  type ExpectedBehavior,
  type NumericGold,
  type NumericUnit,
  QUESTION_VERSION,
  type QuestionCategory,
  type QuestionInput,
} from './schema.ts';

/** The gold answer of a refusal that gives none. */
export const REFUSAL_GOLD_ANSWER = 'Not answerable from the documents: a good answer declines.';

/** How a row's expected behaviour may be written (normalised: lowercase, hyphens for spaces). */
const BEHAVIOURS: Record<string, ExpectedBehavior> = {
  answer: 'answer',
  answerable: 'answer',
  'answer-with-caveat': 'answer-with-caveat',
  caveat: 'answer-with-caveat',
  refuse: 'refuse',
  refusal: 'refuse',
  abstain: 'refuse',
  decline: 'refuse',
  unanswerable: 'refuse',
};

/** How a row's category may be written. */
const CATEGORIES: Record<string, QuestionCategory> = {
  'grounded-direct': 'grounded-direct',
  direct: 'grounded-direct',
  'grounded-multihop': 'grounded-multihop',
  multihop: 'grounded-multihop',
  'multi-hop': 'grounded-multihop',
  adversarial: 'adversarial',
  'out-of-domain': 'out-of-domain',
  ood: 'out-of-domain',
};

const keyOf = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-');

/** The document a row names for its gold quotes, and the page given for each quote (null: none). */
export interface QuoteSource {
  document: string;
  pages: (number | null)[];
}

/**
 * What became of a row: the question (before the schema's check; good only when the row has no
 * issues), and how its fields were had.
 */
export interface GoldenDraft {
  line: number;
  question: QuestionInput;
  quoteSource?: QuoteSource;
  derived: { id: boolean; category: boolean; numeric: 'given' | 'parsed' | null };
  issues: JsonlIssue[];
}

/** A row's values as text and lists, and a place for its problems. */
class RowReader {
  readonly issues: JsonlIssue[] = [];
  constructor(private readonly row: GoldenRow) {}

  issue(field: string, message: string): void {
    this.issues.push({ line: this.row.line, field, message });
  }

  has(f: GoldenField): boolean {
    return this.row.values[f] !== undefined;
  }

  /** One text value; a list where one value is wanted is an error. */
  one(f: GoldenField): string | undefined {
    const v = this.row.values[f];
    if (!Array.isArray(v)) return v;
    this.issue(f, 'one value, not a list');
    return undefined;
  }

  /** A list: a JSON array, or text with items separated by `|` or line breaks. */
  list(f: GoldenField): string[] {
    const v = this.row.values[f];
    if (v === undefined) return [];
    return (Array.isArray(v) ? v : v.split(/\r?\n|\|/)).map((s) => s.trim()).filter((s) => s !== '');
  }
}

/** The id derived from a question's text: `g-` and eight digits of the sha256 of its normalised text. */
export function derivedId(text: string): string {
  const digest = createHash('sha256').update(normaliseWhitespace(text).toLowerCase()).digest('hex');
  return `g-${(BigInt(`0x${digest.slice(0, 13)}`) % 100_000_000n).toString().padStart(8, '0')}`;
}

/**
 * The row's id (lowercased, a hyphen before its number), or one derived from the question's text (also
 * for an id that cannot be read, after its error, so that it is never taken for another row's).
 */
function idOf(r: RowReader, text: string): { id: string; given?: string } {
  const given = r.one('id');
  if (given === undefined) return { id: derivedId(text) };
  const m = /^([a-z]+)[-_ ]?(\d+)$/.exec(given.toLowerCase());
  if (m) return { id: `${m[1]}-${m[2]}`, given };
  r.issue(
    'id',
    `"${given}" cannot be an rge id: letters, then a number (q-001; Q01 and q_1 are read as q-01 and q-1); leave it empty to have one derived`,
  );
  return { id: derivedId(text), given };
}

function behaviourOf(r: RowReader): ExpectedBehavior | undefined {
  const written = r.one('expected_behavior');
  if (written === undefined) {
    r.issue('expected_behavior', 'missing: answer, answer-with-caveat or refuse');
    return undefined;
  }
  const b = BEHAVIOURS[keyOf(written)];
  if (!b)
    r.issue(
      'expected_behavior',
      `"${written}" is not an expected behaviour: answer, answer-with-caveat or refuse (also ${Object.keys(
        BEHAVIOURS,
      )
        .filter((k) => !['answer', 'answer-with-caveat', 'refuse'].includes(k))
        .join(', ')})`,
    );
  return b;
}

/** The row's category, or the one its expected behaviour gives; a refusal is out-of-domain either way. */
function categoryOf(
  r: RowReader,
  behaviour: ExpectedBehavior | undefined,
): { category: QuestionCategory; derived: boolean } {
  const written = r.one('category');
  const refuse = behaviour === 'refuse';
  if (written === undefined) return { category: refuse ? 'out-of-domain' : 'grounded-direct', derived: true };
  const category = CATEGORIES[keyOf(written)];
  if (!category) {
    r.issue(
      'category',
      `"${written}" is not a category: grounded-direct, grounded-multihop, adversarial or out-of-domain (also direct, multihop, ood); leave it empty to derive it from the expected behaviour`,
    );
    return { category: refuse ? 'out-of-domain' : 'grounded-direct', derived: false };
  }
  // a conflict is one error; the rest of the row is read as the expected behaviour says
  if (refuse && category !== 'out-of-domain') {
    r.issue(
      'category',
      `${category}, but the question is expected to be refused: refusals are out-of-domain`,
    );
    return { category: 'out-of-domain', derived: false };
  }
  if (behaviour !== undefined && !refuse && category === 'out-of-domain') {
    r.issue('expected_behavior', `${behaviour}, but an out-of-domain question is expected to be refused`);
    return { category: 'grounded-direct', derived: false };
  }
  return { category, derived: false };
}

/** A figure as a number: "4,512", "-12.5", "1e3". */
function numberOf(text: string): number | null {
  const n = Number(text.replace(/,/g, ''));
  return text.trim() !== '' && Number.isFinite(n) ? n : null;
}

/** Rounds away the binary noise of a unit conversion (7,959.98 crore stays 7959.98). */
const tidy = (x: number) => Number(x.toPrecision(12));

/**
 * A gold answer that is one figure with a unit rge's numeric gold states, as that figure: nothing else
 * in the answer but punctuation, and the unit explicit (a bare number is a count or a figure in an
 * unstated unit; rupees without a scale are a price or a per-share figure: neither is guessed).
 */
export function parseGoldFigure(answer: string): { value: number; unit: NumericUnit } | null {
  const quantities = extractQuantities(answer);
  const q = quantities[0];
  if (quantities.length !== 1 || !q) return null;
  if (/[\p{L}\p{N}]/u.test(answer.slice(0, q.start) + answer.slice(q.end))) return null;
  if (q.unit === '%') return { value: q.value, unit: '%' };
  if (q.unit === 'tCO2e') return { value: q.value, unit: 'tCO2e' };
  if (q.unit === 'per-share') return { value: q.value, unit: 'INR per share' };
  if (q.unit === 'INR' && q.scale >= 1e5) return { value: tidy(q.value / 1e7), unit: 'INR crore' };
  if (q.unit === 'USD' && q.scale >= 1e6) return { value: tidy(q.value / 1e6), unit: 'USD million' };
  return null;
}

/** The numeric gold the row gives (numeric_value and numeric_unit), else the figure of its gold answer. */
function numericGoldOf(
  r: RowReader,
  goldAnswer: string | undefined,
): { gold: NumericGold[]; how: 'given' | 'parsed' | null } {
  const value = r.one('numeric_value');
  const unit = r.one('numeric_unit');
  const label = r.one('numeric_label') ?? 'gold answer';
  const toleranceText = r.one('tolerance');
  if (value === undefined && unit === undefined) {
    for (const f of ['numeric_label', 'tolerance'] as const)
      if (r.has(f)) r.issue(f, 'goes with numeric_value and numeric_unit, which the row does not give');
    const figure = goldAnswer === undefined ? null : parseGoldFigure(goldAnswer);
    return figure
      ? { gold: [{ label, ...figure, tolerance: 0.01 }], how: 'parsed' }
      : { gold: [], how: null };
  }
  const n = value === undefined ? null : numberOf(value);
  if (value === undefined) r.issue('numeric_value', 'missing: numeric_unit is given, so is the figure');
  else if (n === null) r.issue('numeric_value', `"${value}" is not a number`);
  if (unit === undefined) r.issue('numeric_unit', `missing: one of ${GOLD_UNITS.join(', ')}`);
  else if (!(GOLD_UNITS as readonly string[]).includes(unit))
    r.issue('numeric_unit', `"${unit}" is not a unit rge compares: one of ${GOLD_UNITS.join(', ')}`);
  const tolerance = toleranceText === undefined ? 0.01 : numberOf(toleranceText);
  if (tolerance === null || tolerance < 0)
    r.issue('tolerance', `"${toleranceText}" is not a relative tolerance (a number such as 0.01)`);
  if (n === null || unit === undefined || tolerance === null) return { gold: [], how: 'given' };
  return { gold: [{ label, value: n, unit: unit as NumericUnit, tolerance }], how: 'given' };
}

/** An adversarial row's trap (distractor_kind and distractor); an error on any other row that has one. */
function distractorOf(r: RowReader, category: QuestionCategory): QuestionInput['distractor'] {
  const kind = r.one('distractor_kind');
  const description = r.one('distractor');
  if (category !== 'adversarial') {
    for (const f of ['distractor', 'distractor_kind'] as const)
      if (r.has(f)) r.issue(f, `only an adversarial question plants a distractor (this one is ${category})`);
    return null;
  }
  if (kind === undefined)
    r.issue(
      'distractor_kind',
      `missing: an adversarial question names its trap, one of ${DistractorKind.options.join(', ')}`,
    );
  else if (!DistractorKind.safeParse(kind).success)
    r.issue(
      'distractor_kind',
      `"${kind}" is not a distractor kind: one of ${DistractorKind.options.join(', ')}`,
    );
  if (description === undefined)
    r.issue(
      'distractor',
      'missing: an adversarial question says what its trap is and why a careless answer falls in',
    );
  if (kind === undefined || description === undefined) return null;
  return { kind: kind as DistractorKind, description };
}

/** The document the row names for its gold quotes, with a page per quote (one page given: all on it). */
function quoteSourceOf(r: RowReader, quotes: readonly string[]): QuoteSource | undefined {
  const document = r.one('source');
  const written = r.list('page');
  if (written.length > 0 && (document === undefined || quotes.length === 0)) {
    r.issue(
      'page',
      document === undefined
        ? 'a page needs the source document it is a page of'
        : 'a page says where the gold quotes are printed, and the row has none',
    );
    return undefined;
  }
  if (document === undefined || quotes.length === 0) return undefined;
  const pages = written.map((p) => {
    if (/^\d+$/.test(p) && Number(p) > 0) return Number(p);
    r.issue('page', `"${p}" is not a page number (1 is the PDF's first page)`);
    return null;
  });
  if (pages.length === 0) return { document, pages: quotes.map(() => null) };
  if (pages.length === 1) return { document, pages: quotes.map(() => pages[0] ?? null) };
  if (pages.length !== quotes.length)
    r.issue(
      'page',
      `${pages.length} pages for ${quotes.length} gold quote(s): one page for all, or one per quote`,
    );
  return { document, pages };
}

/** A row as a question, with every problem of the row (the schema's own check comes after). */
export function goldenQuestion(row: GoldenRow): GoldenDraft {
  const r = new RowReader(row);
  const text = r.one('question');
  if (text === undefined) r.issue('question', 'missing: every row asks a question');
  const behaviour = behaviourOf(r);
  const { category, derived: categoryDerived } = categoryOf(r, behaviour);
  const refuse = category === 'out-of-domain';
  const goldAnswer = r.one('gold_answer') ?? (refuse ? REFUSAL_GOLD_ANSWER : undefined);
  if (goldAnswer === undefined) r.issue('gold_answer', 'missing: a question to answer needs its gold answer');
  const quotes = r.list('gold_quotes');
  if (refuse && quotes.length > 0)
    r.issue('gold_quotes', 'a question to refuse has no gold quotes: its answer is not in the documents');
  const numeric = refuse ? { gold: [], how: null } : numericGoldOf(r, goldAnswer);
  const { id, given } = idOf(r, text ?? '');
  const difficulty = r.one('difficulty') ?? 'medium';
  if (!Difficulty.safeParse(difficulty).success)
    r.issue('difficulty', `"${difficulty}" is not a difficulty: easy, medium or hard`);
  const question: QuestionInput = {
    version: QUESTION_VERSION,
    id,
    category,
    text: text ?? '',
    gold_answer: goldAnswer ?? '',
    gold_chunk_ids: [],
    gold_quotes: quotes,
    expected_behavior: behaviour ?? 'answer',
    companies: r.list('companies').map(slugify),
    fiscal_years: r.list('fiscal_years').map((fy) => fy.toUpperCase()),
    difficulty: difficulty as Difficulty,
    authoring_notes: r.one('notes') ?? '',
    must_include: r.list('must_include'),
    must_not_include: r.list('must_not_include'),
    numeric_gold: numeric.gold,
    distractor: distractorOf(r, category),
    source: { dataset: 'golden', ref: given ?? id },
  };
  const quoteSource = quoteSourceOf(r, quotes);
  return {
    line: row.line,
    question,
    ...(quoteSource ? { quoteSource } : {}),
    derived: { id: given === undefined, category: categoryDerived, numeric: numeric.how },
    issues: r.issues,
  };
}
