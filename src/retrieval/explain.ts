/**
 * Why a chunk ranked where it did (`rge retrieve --explain`), so that a miss can be seen: the scope
 * the question was ranked in, the query's terms (the question's own and those its expansion added), and
 * per chunk its final rank, its lexical rank with the BM25 part of each matched term and the field it
 * matched in (the passage header: company, year, headings; or the text), and its dense rank with its
 * cosine. A chunk asked about that did not make the top k (`--explain-chunk`) is explained the same way,
 * with its ranks (or "not ranked": outside the scope, or sharing no term).
 */
import { type TermContribution, tokenize } from './bm25.ts';
import { expandQuery, queryExpansions, stripAnswerInstructions } from './query.ts';
import type { AppliedScope } from './scope.ts';

export interface MatchedTerm extends TermContribution {
  /** the question's own word, or a word its expansion added */
  from: 'question' | 'expansion';
  /** where the chunk holds it: the passage header (company, year, headings), the text, or both */
  fields: ('header' | 'text')[];
}

export interface ChunkExplanation {
  id: string;
  company: string;
  fy: string | null;
  heading: string | null;
  pages: [number, number];
  /** rank in the final ranking, from 1 (null: not in the ranked list) */
  rank: number | null;
  /** the final score (BM25, cosine or fused) */
  score: number | null;
  lexical: { rank: number | null; score: number | null; terms: MatchedTerm[] } | null;
  dense: { rank: number | null; cosine: number | null } | null;
}

export interface RetrievalExplanation {
  question: string;
  embedder: string;
  scope: AppliedScope;
  /** lexical query terms: the question's own (answer-format instructions dropped) and the expansion's */
  query: { question: string[]; expansion: string[]; expansions: string[] } | null;
  chunks: ChunkExplanation[];
}

/** The lexical query's terms, split into the question's own and the expansion's. */
export function queryTerms(question: string): NonNullable<RetrievalExplanation['query']> {
  const own = [...new Set(tokenize(stripAnswerInstructions(question)))];
  const ownSet = new Set(own);
  const all = [...new Set(tokenize(expandQuery(question)))];
  return {
    question: own,
    expansion: all.filter((t) => !ownSet.has(t)),
    expansions: queryExpansions(question),
  };
}

/** Which fields of a passage (its header line, its text) hold each term. */
export function termFields(passage: string, terms: readonly string[]): Map<string, ('header' | 'text')[]> {
  const cut = passage.indexOf('\n');
  const header = new Set(tokenize(cut < 0 ? passage : passage.slice(0, cut)));
  const text = new Set(tokenize(cut < 0 ? '' : passage.slice(cut + 1)));
  return new Map(
    terms.map((t) => [
      t,
      [...(header.has(t) ? (['header'] as const) : []), ...(text.has(t) ? (['text'] as const) : [])],
    ]),
  );
}

/** The matched terms of a chunk, labelled with where they come from and where they matched. */
export function matchedTerms(
  contributions: readonly TermContribution[],
  passage: string,
  query: NonNullable<RetrievalExplanation['query']>,
): MatchedTerm[] {
  const own = new Set(query.question);
  const fields = termFields(
    passage,
    contributions.map((c) => c.term),
  );
  return contributions.map((c) => ({
    ...c,
    from: own.has(c.term) ? 'question' : 'expansion',
    fields: fields.get(c.term) ?? [],
  }));
}

const f = (x: number | null, digits = 3) => (x === null ? '-' : x.toFixed(digits));

/** The scope line of the text output: what was ranked, and what the question names when not applied. */
export function formatScope(scope: AppliedScope): string {
  const part = (given: string[] | null, named: string[], what: string) =>
    given === null
      ? `every ${what}${named.length > 0 ? ` (the question names ${named.join(', ')}; --scope ranks only those)` : ''}`
      : `${given.join(', ')}${named.length > 0 && given.join() === named.join() ? ' (named by the question)' : ''}`;
  return `ranked in: ${part(scope.companies, scope.named.companies, 'company')}; ${part(scope.fys, scope.named.fys, 'fiscal year')}`;
}

/** The lines that explain one chunk, indented under its listing. */
export function formatChunkExplanation(c: ChunkExplanation): string[] {
  const lines: string[] = [];
  const ranks = [
    c.lexical ? `lexical rank ${c.lexical.rank ?? 'not ranked'} (bm25 ${f(c.lexical.score)})` : null,
    c.dense ? `dense rank ${c.dense.rank ?? 'not ranked'} (cosine ${f(c.dense.cosine)})` : null,
  ].filter((x): x is string => x !== null);
  lines.push(`   why: ${ranks.join(', ')}`);
  if (c.lexical) {
    const terms = c.lexical.terms.map(
      (t) =>
        `${t.term}${t.from === 'expansion' ? '+' : ''} ${t.score.toFixed(2)} (tf ${t.tf}, idf ${t.idf.toFixed(2)}, ${t.fields.join('+') || '-'})`,
    );
    lines.push(`   matched: ${terms.length > 0 ? terms.join('; ') : 'no query term'}`);
  }
  return lines;
}

/** The head of the text output: the scope and the query's terms. */
export function formatExplanationHead(e: RetrievalExplanation): string[] {
  const lines = [`embedder ${e.embedder}`, formatScope(e.scope)];
  if (e.query) {
    lines.push(`question terms: ${e.query.question.join(' ') || '-'}`);
    if (e.query.expansion.length > 0)
      lines.push(`expansion terms (marked +): ${e.query.expansion.join(' ')}`);
  }
  return lines;
}
