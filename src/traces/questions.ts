/**
 * The questions of a logged-traces subject (`rge traces questions`, issue 56): each logged case of a
 * cases.jsonl as a question of the run, in file order with its window id (`trace-00001`...), its text the
 * logged question. A case whose question matches a question of the golden set (golden.ts,
 * GOLDEN_MATCH_RULE) takes that question's category, expected behaviour and gold, so its correctness is
 * judged; any other is a grounded-direct question the application was expected to answer, with no gold
 * (an empty gold answer): judged on grounding against its own contexts, calibration and the checks, its
 * correctness and GFS null, never 0 (`hasGold`). Source dataset `logged`, ref the trace id; the authoring
 * notes say which trace it is and which golden question, if any, gave its gold. Pure.
 */
import { QUESTION_VERSION, type Question } from '../questions/schema.ts';
import type { GoldenSet } from './golden.ts';
import type { NumberedCase } from './sample.ts';

/** A logged case's question, with the gold of the golden question it matched, if any. */
export function traceQuestion(numbered: NumberedCase, golden: GoldenSet | null): Question {
  const { case: c, questionId } = numbered;
  const found = golden?.match(c.question) ?? null;
  const where = `logged trace ${c.trace_id} (${c.origin.file}${c.origin.line !== null ? `:${c.origin.line}` : ''})`;
  const base = {
    version: QUESTION_VERSION,
    id: questionId,
    text: c.question,
    source: { dataset: 'logged', ref: c.trace_id },
    difficulty: 'medium',
    gold_chunk_ids: [],
    companies: [],
    fiscal_years: [],
  } satisfies Partial<Question>;
  if (found === null)
    return {
      ...base,
      category: 'grounded-direct',
      expected_behavior: 'answer',
      gold_answer: '',
      gold_quotes: [],
      must_include: [],
      must_not_include: [],
      numeric_gold: [],
      distractor: null,
      authoring_notes: `${where}; no golden question matched: correctness not judged`,
    };
  const { question: g, match } = found;
  const how = match.how === 'exact' ? 'exactly' : `lexically (Jaccard ${match.similarity.toFixed(2)})`;
  return {
    ...base,
    category: g.category,
    expected_behavior: g.expected_behavior,
    gold_answer: g.gold_answer,
    gold_quotes: [...g.gold_quotes],
    ...(g.gold_quote_locations !== undefined ? { gold_quote_locations: g.gold_quote_locations } : {}),
    ...(g.gold_source !== undefined ? { gold_source: g.gold_source } : {}),
    ...(g.category === 'out-of-domain' && g.absent_facts !== undefined
      ? { absent_facts: g.absent_facts }
      : {}),
    must_include: [...g.must_include],
    must_not_include: [...g.must_not_include],
    numeric_gold: g.numeric_gold.map((n) => ({ ...n })),
    distractor: g.distractor,
    companies: [...g.companies],
    fiscal_years: [...g.fiscal_years],
    difficulty: g.difficulty,
    authoring_notes: `${where}; gold of golden question ${g.id} (matched ${how})`,
  };
}

/** Every logged case's question, in file order. */
export function traceQuestions(cases: readonly NumberedCase[], golden: GoldenSet | null): Question[] {
  return cases.map((c) => traceQuestion(c, golden));
}
