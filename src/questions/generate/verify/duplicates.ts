/**
 * Near-duplicate questions (verification check 7): of two questions about one document that ask the
 * same thing, the first kept (generation order) stays and the other is rejected, naming it.
 *
 * Two rules, thresholds measured in docs/guides/question-generation.md:
 * - lexical: the Jaccard similarity of the two questions' content-word sets (analysis/tokens.ts:
 *   stop-words dropped, numbers normalised) is at least LEXICAL_DUPLICATE. Questions that differ in a
 *   figure, a year or a name differ in a content word, so "revenue in FY24" and "revenue in FY23"
 *   (Jaccard 0.33 on three words) stay apart;
 * - embedding: the cosine of their sentence embeddings is at least EMBEDDING_DUPLICATE AND they are
 *   answered from the same evidence (a gold chunk in common, or the same answer): a paraphrase of one
 *   question, not a question about the next line of a table, which an embedding rates as close.
 */
import { contentWords } from '../../../analysis/tokens.ts';
import { normaliseQuote } from './normalise.ts';

export const LEXICAL_DUPLICATE = 0.8;
export const EMBEDDING_DUPLICATE = 0.9;

export interface DuplicateItem {
  id: string;
  /** questions are compared within a group: their document (out-of-domain ones: theirs too) */
  group: string;
  text: string;
  answer: string;
  chunkIds: readonly string[];
  /** words the comparison leaves out: the document's name, which questions about it repeat */
  ignore?: ReadonlySet<string>;
}

export interface DuplicateOf {
  of: string;
  how: 'lexical' | 'embedding';
  similarity: number;
}

/**
 * The lexical rule's similarity of two questions' content-word sets (`questionWords`): their Jaccard
 * similarity, a duplicate at LEXICAL_DUPLICATE or more. Exported for the logged-trace subject, which
 * matches a logged question to the golden set by the same rule (src/traces/golden.ts).
 */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const w of a) if (b.has(w)) shared++;
  return shared / (a.size + b.size - shared);
}

/** A question's content words as the lexical rule compares them, less the words it leaves out. */
export function questionWords(text: string, ignore?: ReadonlySet<string>): Set<string> {
  return new Set(contentWords(text).filter((w) => !ignore?.has(w)));
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * The items that repeat an earlier one (by id), in input order. `vectors` (parallel to `items`, unit or
 * not) turn on the embedding rule; without them only the lexical rule applies.
 */
export function nearDuplicates(
  items: readonly DuplicateItem[],
  vectors?: readonly ArrayLike<number>[],
): Map<string, DuplicateOf> {
  const out = new Map<string, DuplicateOf>();
  const kept = new Map<string, number[]>();
  const words = items.map((it) => questionWords(it.text, it.ignore));
  const answers = items.map((it) => normaliseQuote(it.answer));
  items.forEach((it, i) => {
    const group = kept.get(it.group) ?? [];
    let dup: DuplicateOf | null = null;
    for (const j of group) {
      const lexical = jaccard(words[i] as Set<string>, words[j] as Set<string>);
      if (lexical >= LEXICAL_DUPLICATE) {
        dup = { of: (items[j] as DuplicateItem).id, how: 'lexical', similarity: lexical };
        break;
      }
      if (!vectors) continue;
      const other = items[j] as DuplicateItem;
      const sameEvidence = answers[i] === answers[j] || it.chunkIds.some((c) => other.chunkIds.includes(c));
      if (!sameEvidence) continue;
      const similarity = cosine(vectors[i] as ArrayLike<number>, vectors[j] as ArrayLike<number>);
      if (similarity >= EMBEDDING_DUPLICATE) {
        dup = { of: other.id, how: 'embedding', similarity };
        break;
      }
    }
    if (dup) out.set(it.id, dup);
    else {
      group.push(i);
      kept.set(it.group, group);
    }
  });
  return out;
}
