/**
 * Claim faithfulness: the answer split into atomic claims (`splitCitedClaims`), each verified against
 * the retrieved chunks; the score is supported / total, null when there are no claims.
 *
 * The rule. A chunk supports a claim when
 *   1. every quantity of the claim is in that chunk (same quantity within ±1% after scaling), or is a
 *      derived figure (trace.ts: the question's recorded derivation over the chunks' figures, or one
 *      step from the answer's own traced figures); and
 *   2. at least half (MIN_WORD_COVERAGE) of the claim's distinct non-numeric content words occur in the
 *      chunk, read together with its company slug, fiscal year and heading (a chunk about Reliance's
 *      FY24 results often does not repeat "Reliance"); and
 *   3. for a claim without quantities (a name, an auditor, a chairperson), every capitalised word after
 *      the first also occurs in the chunk: "Desai Raval & Associates are the statutory auditors" is not
 *      supported by "Shah Mistry & Co LLP are the statutory auditors", however many other words agree.
 * The chunks the claim cites are tried first, then the other retrieved chunks in retrieval order; the
 * first that supports the claim is its chunkId. A fragment with neither a quantity nor a content word
 * ("Yes.") is not a claim and is left out.
 */
import { splitCitedClaims } from '../analysis/claims.ts';
import type { DerivableGold } from '../analysis/derivation.ts';
import { extractQuantities, sameQuantity } from '../analysis/numbers.ts';
import { contentWords } from '../analysis/tokens.ts';
import type { ContextChunk } from '../providers/types.ts';
import type { ClaimFaithfulness, ClaimVerdict } from './schema.ts';
import { chunkQuantities, TRACE_TOLERANCE, traceQuantities } from './trace.ts';

export const MIN_WORD_COVERAGE = 0.5;

const isNumberToken = (w: string) => /^-?\d/.test(w);

/** Capitalised words after the first, as content-word tokens ("Desai Raval & Associates" -> desai, raval, associate). */
function nameWords(text: string): string[] {
  const words = text.match(/[\p{L}][\p{L}\p{N}'’.-]*/gu) ?? [];
  const capitalised = words.slice(1).filter((w) => /^\p{Lu}/u.test(w));
  return contentWords(capitalised.join(' ')).filter((w) => !isNumberToken(w));
}

export function claimFaithfulness(
  answer: string,
  chunks: readonly ContextChunk[],
  golds: readonly DerivableGold[] = [],
): ClaimFaithfulness {
  const indexed = chunkQuantities(chunks);
  const derived = traceQuantities(answer, chunks, TRACE_TOLERANCE, golds).filter((t) => t.how === 'derived');
  const chunkWords = new Map(
    chunks.map((c) => [
      c.id,
      new Set(contentWords(`${c.company.replace(/-/g, ' ')} ${c.fy ?? ''} ${c.heading ?? ''}\n${c.text}`)),
    ]),
  );

  const claims: ClaimVerdict[] = [];
  for (const claim of splitCitedClaims(answer)) {
    const quantities = extractQuantities(claim.text);
    const words = [...new Set(contentWords(claim.text).filter((w) => !isNumberToken(w)))];
    if (quantities.length === 0 && words.length === 0) continue;
    const names = quantities.length === 0 ? nameWords(claim.text) : [];

    const supports = (chunkId: string): boolean => {
      const held = indexed.find((c) => c.chunkId === chunkId)?.quantities ?? [];
      const vocabulary = chunkWords.get(chunkId) ?? new Set<string>();
      const quantitiesOk = quantities.every(
        (q) =>
          held.some((cq) => sameQuantity(q, cq, TRACE_TOLERANCE)) ||
          derived.some((d) => d.quantity.raw === q.raw && d.quantity.value === q.value),
      );
      if (!quantitiesOk) return false;
      const covered = words.length === 0 ? 1 : words.filter((w) => vocabulary.has(w)).length / words.length;
      return covered >= MIN_WORD_COVERAGE && names.every((w) => vocabulary.has(w));
    };

    const retrieved = chunks.map((c) => c.id);
    const order = [...new Set([...claim.citations.filter((id) => retrieved.includes(id)), ...retrieved])];
    const chunkId = order.find(supports) ?? null;
    claims.push({ text: claim.text, supported: chunkId !== null, chunkId, cited: claim.citations });
  }
  const supported = claims.filter((c) => c.supported).length;
  return {
    claims,
    supported,
    total: claims.length,
    score: claims.length === 0 ? null : supported / claims.length,
  };
}
