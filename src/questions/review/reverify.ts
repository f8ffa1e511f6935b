/**
 * Re-verification of an edited question before the edit is accepted: the review page's server calls a
 * `Reverify` on every saved edit and records the edit only when it passes; a failure is shown to the
 * person and the question stays pending. The generator's verification can be injected here; until then
 * `quotesInDocuments` checks what an edit can break without an index: every gold quote is still printed
 * in its document (whitespace aside), its location (page, span) is brought up to date, and the question
 * parses against the Question schema.
 */
import { shortQuote } from '../load.ts';
import { type GoldQuoteLocation, Question } from '../schema.ts';
import { type DocumentReader, findInDocument } from './documents.ts';

/** What re-verification says of an edited question: the question to record (locations updated), or why not. */
export type ReverifyResult =
  | { ok: true; question: Question }
  | {
      ok: false;
      /** a stable code: `schema`, `quote-not-found`, `no-document`, or the injected verification's own */
      reason: string;
      /** what to fix, for the person */
      message: string;
    };

/** Re-verifies an edited question (the review page's injection point; see `quotesInDocuments`). */
export type Reverify = (question: Question) => Promise<ReverifyResult>;

/** The first schema problem of a question, as `field: message`, or null when it parses. */
function schemaProblem(q: unknown): { question: Question } | { message: string } {
  const parsed = Question.safeParse(q);
  if (parsed.success) return { question: parsed.data };
  const first = parsed.error.issues[0];
  return { message: `${first?.path.map(String).join('.') || 'question'}: ${first?.message ?? 'invalid'}` };
}

/** One gold quote's location, found again in its document; or why it cannot be. */
async function relocate(
  quote: string,
  location: GoldQuoteLocation | undefined,
  read: DocumentReader,
): Promise<GoldQuoteLocation | { reason: string; message: string }> {
  if (!location)
    return {
      reason: 'no-document',
      message: `quote "${shortQuote(quote)}" names no document to check it in`,
    };
  const doc = await read(location.document);
  if ('error' in doc) return { reason: 'no-document', message: doc.error };
  const found = findInDocument(doc, quote, { page: location.page });
  if (!found)
    return {
      reason: 'quote-not-found',
      message: `quote "${shortQuote(quote)}" is not in ${location.document} (whitespace aside); quote it verbatim`,
    };
  return { ...location, page: found.page, resolved: true, span: found.span };
}

/**
 * The default re-verification: the question parses, and each gold quote is printed in the document its
 * location names (read through `read`), its page and span updated to where it is now.
 */
export function quotesInDocuments(read: DocumentReader): Reverify {
  return async (edited) => {
    const before = schemaProblem(edited);
    if ('message' in before) return { ok: false, reason: 'schema', message: before.message };
    const q = before.question;
    const locations: GoldQuoteLocation[] = [];
    for (const [i, quote] of q.gold_quotes.entries()) {
      const l = await relocate(quote, q.gold_quote_locations?.[i], read);
      if ('reason' in l) return { ok: false, ...l };
      locations.push(l);
    }
    const after = schemaProblem({
      ...q,
      ...(q.gold_quote_locations ? { gold_quote_locations: locations } : {}),
    });
    if ('message' in after) return { ok: false, reason: 'schema', message: after.message };
    return { ok: true, question: after.question };
  };
}
