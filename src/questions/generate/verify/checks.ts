/**
 * The checks of one candidate against its located quotes (verification checks 3 to 6). Pure: the quotes
 * were found by quote-index.ts; the retrievers and the document search are passed in.
 *
 * 3. Supported: every figure of the gold answer is printed in a quote (as printed: "Rs 9.14 lakh crore"
 *    is "Rs 9,14,472.00 crore"), or is a recorded derivation whose operands the quotes print; every
 *    numeric gold the same. An adversarial answer may also repeat its false premise's figure.
 * 4. No leak: the question states none of the answer's figures (a false premise's own figure aside), no
 *    gold quote whole, no run of LEAK_RUN_WORDS words of one, and not a worded answer whole.
 * 5. Multihop: no one chunk holds every quote.
 * 6. Adversarial: the question makes its false premise, and a quote contradicts it: a premise figure no
 *    quote prints where a quote prints a figure of that kind; or, without a figure, a premise about what
 *    a quote is about (at least PREMISE_TOPIC of its words) naming something the quotes do not; and the
 *    document does not print the premise. Out-of-domain: it names the facts it asks about, and no chunk
 *    any retriever ranks in its top k for the question holds one of them.
 */

import { derivedFromPassages, printedOperands } from '../../../analysis/derivation.ts';
import {
  extractQuantities,
  type Quantity,
  samePrinted,
  sameQuantity,
  unitsCompatible,
} from '../../../analysis/numbers.ts';
import { figureReader } from '../../../analysis/printed-figures.ts';
import { contentWords } from '../../../analysis/tokens.ts';
import { shortQuote } from '../../load.ts';
import type { CandidateBody, RejectionReason } from '../candidate.ts';
import { normaliseQuote } from './normalise.ts';

/** A run of this many consecutive words of a quote in the question gives the passage away. */
export const LEAK_RUN_WORDS = 10;
/** An adversarial premise must share at least this share of its content words with a quote. */
export const PREMISE_TOPIC = 0.4;

export interface Failure {
  reason: RejectionReason;
  message: string;
}

/** A located gold quote: its text as the chunk prints it and the chunks that hold it. */
export interface LocatedQuote {
  text: string;
  chunkIds: readonly string[];
}

const fail = (reason: RejectionReason, message: string): Failure => ({ reason, message });

function printedIn(q: Quantity, quoted: readonly Quantity[]): boolean {
  return quoted.some((x) => samePrinted(q, x) || sameQuantity(q, x, 0.001));
}

/** A figure whose minus sign is a list's dash: "-" first on its line ("\n-100% equity interest"). */
function bulleted(text: string, q: Quantity): boolean {
  return q.value < 0 && q.raw.startsWith('-') && /(?:^|\n)[ \t]*$/.test(text.slice(0, q.start));
}

/** Check 3: the answer's figures and the numeric gold are printed in the quotes or derived from them. */
export function answerSupported(body: CandidateBody, quotes: readonly LocatedQuote[]): Failure | null {
  if (body.category === 'out-of-domain') return null;
  if (quotes.length === 0) return fail('no-gold-quote', 'it gives no gold quote');
  const passages = quotes.map((q, i) => ({ id: `quote ${i + 1}`, text: q.text }));
  const joined = quotes.map((q) => q.text).join('\n');
  const reader = figureReader(joined, 1);
  for (const g of body.numeric_gold) {
    if (g.derivation) {
      if (printedOperands(g.derivation, passages) === null) {
        const missing = g.derivation.operands.find((o) => reader(o.value, o.unit).length === 0);
        return fail(
          'derivation-unsupported',
          `the derivation of "${g.label}" uses ${missing ? `${missing.value} (${missing.label})` : 'an operand'}, which no quote prints`,
        );
      }
    } else if (reader(g.value, g.unit).length === 0)
      return fail(
        'figure-not-in-quotes',
        `numeric gold "${g.label}" (${g.value} ${g.unit}) is printed in no quote`,
      );
  }
  const quoted = extractQuantities(joined);
  const premise = body.false_premise ? extractQuantities(body.false_premise) : [];
  for (const q of extractQuantities(body.gold_answer)) {
    if (printedIn(q, quoted) || printedIn(q, premise)) continue;
    if (bulleted(body.gold_answer, q) && printedIn({ ...q, value: -q.value }, quoted)) continue;
    if (derivedFromPassages(q, body.numeric_gold, passages)) continue;
    return fail('figure-not-in-quotes', `the answer's figure "${q.raw}" is printed in no quote`);
  }
  return null;
}

/** Consecutive-word runs of `n` words of a text's normal form. */
function runs(text: string, n: number): Set<string> {
  const words = text.split(' ');
  const out = new Set<string>();
  for (let i = 0; i + n <= words.length; i++) out.add(words.slice(i, i + n).join(' '));
  return out;
}

/** Check 4: the question gives away none of its answer. */
export function noLeak(body: CandidateBody, quotes: readonly LocatedQuote[]): Failure | null {
  if (body.category === 'out-of-domain') return null;
  const asked = extractQuantities(body.text);
  const premise = body.false_premise ? extractQuantities(body.false_premise) : [];
  const answerFigures = extractQuantities(body.gold_answer).filter((q) => !printedIn(q, premise));
  for (const q of answerFigures)
    if (printedIn(q, asked))
      return fail('answer-leaked', `the question states the answer's figure "${q.raw}"`);
  for (const g of body.numeric_gold) {
    const hit = figureReader(body.text)(g.value, g.unit)[0];
    if (hit && !premise.some((p) => p.raw === hit.raw))
      return fail('answer-leaked', `the question states the gold figure "${g.label}" (${hit.raw})`);
  }
  const question = normaliseQuote(body.text);
  const questionRuns = runs(question, LEAK_RUN_WORDS);
  for (const q of quotes) {
    const quote = normaliseQuote(q.text);
    if (quote.split(' ').length >= 4 && question.includes(quote))
      return fail('answer-leaked', `the question contains its gold quote "${shortQuote(q.text)}"`);
    for (const r of runs(quote, LEAK_RUN_WORDS))
      if (questionRuns.has(r)) return fail('answer-leaked', `the question repeats "${r}" of its gold quote`);
  }
  const answer = normaliseQuote(body.gold_answer);
  if (answerFigures.length === 0 && contentWords(body.gold_answer).length >= 3 && question.includes(answer))
    return fail('answer-leaked', 'the question contains its gold answer');
  return null;
}

/** Check 5: a multihop question needs quotes of two chunks at least (no one chunk holds them all). */
export function multihopChunks(body: CandidateBody, quotes: readonly LocatedQuote[]): Failure | null {
  if (body.category !== 'grounded-multihop') return null;
  const [first, ...rest] = quotes;
  if (!first) return fail('multihop-one-chunk', 'a multihop question with no quote');
  const common = first.chunkIds.filter((id) => rest.every((q) => q.chunkIds.includes(id)));
  if (common.length > 0)
    return fail('multihop-one-chunk', `chunk ${common[0]} holds every quote: one hop, not two`);
  return null;
}

/** Check 6, adversarial: the question makes a false premise a quote contradicts. `printed`: whether the document prints a text. */
export function premiseContradicted(
  body: CandidateBody,
  quotes: readonly LocatedQuote[],
  printed: (text: string) => boolean,
): Failure | null {
  if (body.category !== 'adversarial') return null;
  const premise = body.false_premise;
  if (!premise) return fail('premise-not-contradicted', 'an adversarial candidate states no false premise');
  if (quotes.length === 0) return fail('premise-not-contradicted', 'no quote to contradict the premise');
  if (printed(premise))
    return fail('premise-not-contradicted', `the document prints the premise "${shortQuote(premise)}"`);
  const joined = quotes.map((q) => q.text).join('\n');
  const claimed = extractQuantities(premise);
  if (claimed.length > 0) return figurePremise(body, claimed, extractQuantities(joined));
  const said = new Set(contentWords(joined));
  const words = [...new Set(contentWords(premise))];
  const distinct = words.filter((w) => !said.has(w));
  if (distinct.length === 0)
    return fail(
      'premise-not-contradicted',
      `the quotes say every word of the premise "${shortQuote(premise)}"`,
    );
  if ((words.length - distinct.length) / words.length < PREMISE_TOPIC)
    return fail('premise-not-contradicted', `no quote is about the premise "${shortQuote(premise)}"`);
  const asked = new Set(contentWords(body.text));
  if (!distinct.some((w) => asked.has(w)))
    return fail(
      'premise-not-contradicted',
      `the question does not make its premise "${shortQuote(premise)}"`,
    );
  return null;
}

/** A premise with figures: the question states one, no quote prints it, a quote prints one of its kind. */
function figurePremise(
  body: CandidateBody,
  claimed: readonly Quantity[],
  quoted: readonly Quantity[],
): Failure | null {
  const asked = extractQuantities(body.text);
  if (!claimed.some((c) => printedIn(c, asked)))
    return fail(
      'premise-not-contradicted',
      `the question does not state the premise's figure "${claimed[0]?.raw}"`,
    );
  const true_ = claimed.find((c) => printedIn(c, quoted));
  if (true_)
    return fail(
      'premise-not-contradicted',
      `a quote prints the premise's figure "${true_.raw}": the premise is true`,
    );
  if (
    !claimed.some((c) =>
      quoted.some((q) => unitsCompatible(c.unit, q.unit) && (c.unit !== null || q.unit === null)),
    )
  )
    return fail(
      'premise-not-contradicted',
      "no quote prints a figure of the premise's kind to contradict it",
    );
  return null;
}

/** A retriever of the config, as verification asks it: the top k chunks for a question. */
export interface TopK {
  name: string;
  top(
    question: string,
  ): Promise<readonly { id: string; text: string }[]> | readonly { id: string; text: string }[];
}

/** Check 6, out-of-domain: no top-k chunk of any retriever holds a fact the question asks about. */
export async function outOfDomainAbsent(
  body: CandidateBody,
  retrievers: readonly TopK[],
): Promise<Failure | null> {
  if (body.category !== 'out-of-domain') return null;
  const terms = (body.absent_terms ?? []).map(normaliseQuote).filter((t) => t !== '');
  if (terms.length === 0)
    return fail(
      'out-of-domain-answerable',
      'it names no absent terms (the facts the documents must not hold)',
    );
  for (const r of retrievers)
    for (const chunk of await r.top(body.text)) {
      const text = normaliseQuote(chunk.text);
      const held = terms.find((t) => text.includes(t));
      if (held)
        return fail('out-of-domain-answerable', `${r.name} retrieves ${chunk.id}, which holds "${held}"`);
    }
  return null;
}
