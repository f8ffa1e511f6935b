/**
 * What the review page shows of one generated question (the JSON the page renders): the question as it
 * stands (edited, if it was), its decision, and each gold quote highlighted in its page's text, a window
 * of the page around it. Found by the recorded span when it still holds the quote, else by a search with
 * whitespace normalised; a quote found nowhere is shown as such (that is for the person to judge).
 */
import type { Question } from '../schema.ts';
import { type DocumentReader, findQuote, type ReviewPage } from './documents.ts';
import type { RejectReason, ReviewDecision } from './record.ts';

/** Characters of the page shown either side of a quote. */
export const QUOTE_CONTEXT_CHARS = 400;

/** A gold quote in its page: the text before it, the quote as printed, the text after it (each a window). */
export interface QuoteView {
  quote: string;
  document: string | null;
  page: number | null;
  section: string | null;
  /** how it was found: at its recorded span, by search, or not at all */
  found: 'span' | 'search' | null;
  before: string;
  match: string;
  after: string;
  /** why it is not shown in its page (no document named, the document unreadable, the quote not in it) */
  problem: string | null;
}

/** The decision standing for a question, as the page shows it. */
export interface DecisionView {
  decision: ReviewDecision['decision'];
  reason: RejectReason | null;
  note: string | null;
  at: string;
}

export interface QuestionView {
  index: number;
  id: string;
  /** the question as it stands: the edited one if the standing decision is an edit */
  question: Question;
  /** the question as generated, when it was edited */
  generated: Question | null;
  decision: DecisionView | null;
  quotes: QuoteView[];
}

/** The quote in one page, with its window; null when the page does not hold it. */
function inPage(p: ReviewPage, quote: string, span: readonly [number, number] | undefined) {
  const at = findQuote(p.text, quote, span);
  if (!at) return null;
  const from = Math.max(0, at[0] - QUOTE_CONTEXT_CHARS);
  const to = Math.min(p.text.length, at[1] + QUOTE_CONTEXT_CHARS);
  const viaSpan = span !== undefined && at[0] === span[0] && at[1] === span[1];
  return {
    page: p.page,
    found: viaSpan ? ('span' as const) : ('search' as const),
    before: `${from > 0 ? '…' : ''}${p.text.slice(from, at[0])}`,
    match: p.text.slice(at[0], at[1]),
    after: `${p.text.slice(at[1], to)}${to < p.text.length ? '…' : ''}`,
  };
}

/** One gold quote of a question, found in its document's pages (the recorded page first). */
export async function quoteView(q: Question, i: number, read: DocumentReader | null): Promise<QuoteView> {
  const quote = q.gold_quotes[i] as string;
  const l = q.gold_quote_locations?.[i];
  const base = { quote, document: l?.document ?? null, page: l?.page ?? null, section: l?.section ?? null };
  const missing = (problem: string): QuoteView => ({
    ...base,
    found: null,
    before: '',
    match: '',
    after: '',
    problem,
  });
  if (!l) return missing('the question names no document for this quote');
  if (!read) return missing('no documents folder given (--documents): the quote is not shown in its page');
  const doc = await read(l.document);
  if ('error' in doc) return missing(doc.error);
  const pages = [...doc.pages].sort((a, b) => Number(b.page === l.page) - Number(a.page === l.page));
  for (const p of pages) {
    const shown = inPage(p, quote, p.page === l.page ? l.span : undefined);
    if (shown) return { ...base, ...shown, problem: null };
  }
  return missing(`not found in ${l.document} (whitespace aside)`);
}

/** The page's view of a question and its standing decision. */
export async function questionView(
  index: number,
  generated: Question,
  decision: Pick<ReviewDecision, 'decision' | 'reason' | 'note' | 'question' | 'at'> | undefined,
  read: DocumentReader | null,
): Promise<QuestionView> {
  const question = decision?.decision === 'edited' && decision.question ? decision.question : generated;
  const quotes = await Promise.all(question.gold_quotes.map((_, i) => quoteView(question, i, read)));
  return {
    index,
    id: generated.id,
    question,
    generated: question === generated ? null : generated,
    decision: decision
      ? {
          decision: decision.decision,
          reason: decision.reason ?? null,
          note: decision.note ?? null,
          at: decision.at,
        }
      : null,
    quotes,
  };
}
