/**
 * Evidence recall: whether the passages a subject answered from hold the question's gold evidence: its
 * gold quotes, and the gold figures those quotes print. A quote is held when a passage contains it
 * (case, Unicode forms and whitespace aside); a figure when a passage prints it in any of the forms a
 * report prints it (`figureReader`, the resolver of printed figures). A gold figure that no gold quote
 * prints is not evidence: a multihop answer's difference, ratio or growth is computed from the quoted
 * figures, and no passage can hold it (issue 51). Recall is the share of the evidence items held; a
 * question without gold evidence (out of domain) has none (null, never 0).
 *
 * It tells a retrieval miss (the evidence never reached the model: recall 0) from a generation failure
 * (it did, and the answer is still wrong or ungrounded). For rge's pipeline the passages are rge's
 * top-k; for a user's system, the contexts it returned. Pure.
 */
import { figureReader } from '../analysis/printed-figures.ts';
import type { ContextChunk } from '../providers/types.ts';
import type { Question } from '../questions/schema.ts';
import { figureText } from '../util/figure.ts';
import { normaliseText } from './deterministic.ts';
import type { EvidenceRecall } from './schema.ts';

const QUOTE_SHOWN = 60;

/** How much of the question's gold evidence the passages hold. */
export function evidenceRecall(
  question: Pick<Question, 'gold_quotes' | 'numeric_gold'>,
  passages: readonly ContextChunk[],
): EvidenceRecall {
  const texts = passages.map((p) => normaliseText(p.text));
  const readers = passages.map((p) => figureReader(p.text));
  const missing: string[] = [];
  let found = 0;
  for (const quote of question.gold_quotes) {
    const needle = normaliseText(quote);
    if (needle !== '' && texts.some((t) => t.includes(needle))) found++;
    else missing.push(`quote "${quote.length > QUOTE_SHOWN ? `${quote.slice(0, QUOTE_SHOWN)}...` : quote}"`);
  }
  const quoted = question.gold_quotes.map((quote) => figureReader(quote));
  const printed = question.numeric_gold.filter((figure) =>
    quoted.some((read) => read(figure.value, figure.unit).length > 0),
  );
  for (const figure of printed) {
    if (readers.some((read) => read(figure.value, figure.unit).length > 0)) found++;
    else missing.push(`figure ${figure.label} ${figureText(figure.value)} ${figure.unit}`);
  }
  const items = question.gold_quotes.length + printed.length;
  return { items, found, recall: items === 0 ? null : found / items, missing };
}
