/**
 * Issue 51, item 5: a correct multihop answer was called ungrounded. On the fixture's multihop
 * questions the gold figure is computed from printed figures (a difference, ratio, growth or sum) and
 * printed nowhere; the question now records that arithmetic (`numeric_gold[].derivation`), and both
 * offline judges and the numbers-traced check accept a figure that is it, over figures the passages
 * print, at the printed precision (analysis/derivation.ts): and nothing else (wrong arithmetic, a
 * missing operand).
 *
 * The passages are the questions' gold quotes, as a user's system returns its contexts (its own ids, no
 * company or year of rge's corpus); the answers cite them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type FigureDerivation, printedOperands } from '../../../src/analysis/derivation.ts';
import { numbersTraced } from '../../../src/checks/index.ts';
import { lexicalVerdict, numericVerdict } from '../../../src/judging/heuristic/index.ts';
import type { ContextChunk } from '../../../src/providers/types.ts';
import { parseQuestionLines } from '../../../src/questions/load.ts';
import type { Question } from '../../../src/questions/schema.ts';
import { judgeInputFor } from '../../../src/run/session/work.ts';
import { contextChunkOf } from '../../../src/system/contexts.ts';

const QUESTIONS = new Map(
  parseQuestionLines(readFileSync(new URL('../../../fixtures/questions.jsonl', import.meta.url), 'utf8')).map(
    (l) => [l.question?.id, l.question as Question],
  ),
);
const fixtureQuestion = (id: string): Question => {
  const q = QUESTIONS.get(id);
  if (!q) throw new Error(`no ${id} in fixtures/questions.jsonl`);
  return q;
};

/** The question's gold quotes as a system's contexts: one each, ids `<question id>-<n>`. */
const goldContexts = (q: Question): ContextChunk[] =>
  q.gold_quotes.map((text, i) => contextChunkOf({ id: `${q.id}-${i + 1}`, text }));

/** The text with the contexts cited before its final full stop. */
const citing = (text: string, contexts: readonly ContextChunk[]) =>
  `${text.replace(/\.$/, '')} ${contexts.map((c) => `[${c.id}]`).join(' ')}.`;

const judge = (q: Question, contexts: ContextChunk[], answer: string) => {
  const input = judgeInputFor(q, contexts, answer);
  return { numeric: numericVerdict(input), lexical: lexicalVerdict(input) };
};
const groundings = (v: ReturnType<typeof judge>) => [v.numeric.grounding.score, v.lexical.grounding.score];

const GM037 = fixtureQuestion('gm-037');
const RELIANCE_REVENUE =
  'Consolidated revenue from operations for FY24 was Rs 9,14,472.00 crore, compared with Rs 8,92,944.00 crore in FY23.';
const TATA_REVENUE =
  'Consolidated revenue from operations for FY24 was Rs 4,37,927.77 crore, compared with Rs 3,45,966.97 crore in FY23.';

describe('gm-037: which company had the higher revenue, and by how much', () => {
  it('records its arithmetic: the difference of the two printed revenues', () => {
    expect(GM037.gold_answer).toBe(
      'Reliance Industries Limited, by Rs 4,76,544.23 crore (Reliance Industries Limited: Rs 9,14,472.00 crore; Tata Motors Limited: Rs 4,37,927.77 crore).',
    );
    expect(GM037.gold_quotes).toEqual([RELIANCE_REVENUE, TATA_REVENUE]);
    expect(GM037.numeric_gold[0]?.derivation).toEqual({
      op: 'difference',
      operands: [
        {
          label: 'consolidated revenue from operations FY24, Reliance Industries Limited',
          value: 914472,
          unit: 'INR crore',
        },
        {
          label: 'consolidated revenue from operations FY24, Tata Motors Limited',
          value: 437927.77,
          unit: 'INR crore',
        },
      ],
    });
  });

  it('its gold answer, citing exactly the gold quotes, is grounded (2) by both offline judges, quoting both revenues whole', () => {
    const contexts = goldContexts(GM037);
    const v = judge(GM037, contexts, citing(GM037.gold_answer, contexts));
    expect(groundings(v)).toEqual([2, 2]);
    for (const verdict of [v.numeric, v.lexical]) {
      expect(verdict.unsupported_claims).toEqual([]);
      expect(verdict.grounding.evidence).toContain(`${RELIANCE_REVENUE} ... ${TATA_REVENUE}`);
    }
    // uncited, it is supported but uncited for the numeric judge (1), as the rubric says; never 0
    expect(judge(GM037, contexts, GM037.gold_answer).numeric.grounding.score).toBe(1);
  });

  it('the difference alone, operands not restated: grounded by both judges and traced by the check', () => {
    const contexts = goldContexts(GM037);
    const answer = citing('Reliance Industries Limited, by Rs 4,76,544.23 crore.', contexts);
    expect(groundings(judge(GM037, contexts, answer))).toEqual([2, 2]);
    const traced = numbersTraced(answer, contexts, GM037.numeric_gold);
    expect(traced.passed).toBe(true);
    expect(traced.detail).toContain(
      'derived: Rs 4,76,544.23 crore = Rs 9,14,472.00 crore - Rs 4,37,927.77 crore',
    );
    // rounded as a person writes it
    const rounded = citing('Reliance Industries Limited, by about Rs 4.77 lakh crore.', contexts);
    expect(groundings(judge(GM037, contexts, rounded))).toEqual([2, 2]);
    expect(numbersTraced(rounded, contexts, GM037.numeric_gold).passed).toBe(true);
  });

  it('wrong arithmetic is not supported, nor traced', () => {
    const contexts = goldContexts(GM037);
    for (const figure of ['Rs 4,76,454.23 crore', 'Rs 4,76,544.32 crore', 'Rs 4.76 lakh crore']) {
      const answer = citing(`Reliance Industries Limited, by ${figure}.`, contexts);
      expect(groundings(judge(GM037, contexts, answer)), figure).toEqual([0, 0]);
      expect(numbersTraced(answer, contexts, GM037.numeric_gold).passed, figure).toBe(false);
    }
  });

  it('an operand missing from the passages: the difference is not supported, nor traced', () => {
    const [reliance] = goldContexts(GM037) as [ContextChunk];
    const answer = citing('Reliance Industries Limited, by Rs 4,76,544.23 crore.', [reliance]);
    const v = judge(GM037, [reliance], answer);
    expect(groundings(v)).toEqual([0, 0]);
    expect(v.numeric.unsupported_claims).toEqual([answer]);
    expect(numbersTraced(answer, [reliance], GM037.numeric_gold).passed).toBe(false);
  });
});

/**
 * A ratio, a growth and two sums of the fixture, answered as a user's system would: the question's
 * company named, the computed figure stated, the operands left in the passages.
 */
const IN_OWN_WORDS: readonly { id: string; op: string; right: string; wrong: string }[] = [
  {
    id: 'gm-004',
    op: 'ratio',
    right: "Ola Electric Mobility Limited's consolidated net profit margin in FY24 was -32.8%.",
    wrong: "Ola Electric Mobility Limited's consolidated net profit margin in FY24 was -32.9%.",
  },
  {
    id: 'gm-005',
    op: 'growth',
    right: "ITC Limited's consolidated revenue from operations rose by 0.4% from FY23 to FY24.",
    wrong: "ITC Limited's consolidated revenue from operations rose by 0.5% from FY23 to FY24.",
  },
  {
    id: 'gm-006',
    op: 'sum',
    right:
      "The combined FY24 revenue of Bharti Airtel Limited's Mobile Services and Homes and Enterprise segments was Rs 1,19,985.92 crore.",
    wrong:
      "The combined FY24 revenue of Bharti Airtel Limited's Mobile Services and Homes and Enterprise segments was Rs 1,19,985.29 crore.",
  },
  {
    id: 'gm-002',
    op: 'sum',
    right: "Reliance Industries Limited's total dividend for FY23 was Rs 9.50 per equity share.",
    wrong: "Reliance Industries Limited's total dividend for FY23 was Rs 9.05 per equity share.",
  },
];

describe('a ratio, a growth and a sum in a user system words', () => {
  for (const c of IN_OWN_WORDS)
    it(`${c.id} (${c.op}): the computed figure is grounded and traced; wrong arithmetic is neither`, () => {
      const q = fixtureQuestion(c.id);
      expect(q.numeric_gold.map((g) => g.derivation?.op)).toContain(c.op);
      const contexts = goldContexts(q);
      const right = citing(c.right, contexts);
      const v = judge(q, contexts, right);
      expect(groundings(v)).toEqual([2, 2]);
      // the evidence is gold quotes, whole, that print every operand
      const derivation = q.numeric_gold.find((g) => g.derivation?.op === c.op)
        ?.derivation as FigureDerivation;
      for (const verdict of [v.numeric, v.lexical]) {
        const parts = verdict.grounding.evidence.join(' ... ').split(' ... ');
        for (const part of parts) expect(q.gold_quotes).toContain(part);
        expect(
          printedOperands(
            derivation,
            parts.map((text, i) => ({ id: `${i}`, text })),
          ),
        ).not.toBeNull();
      }
      expect(numbersTraced(right, contexts, q.numeric_gold).passed).toBe(true);
      const wrong = citing(c.wrong, contexts);
      expect(groundings(judge(q, contexts, wrong))).toEqual([0, 0]);
      expect(numbersTraced(wrong, contexts, q.numeric_gold).passed).toBe(false);
    });
});

describe('every multihop gold answer of the fixture, citing its gold quotes', () => {
  it('is grounded (2) by both offline judges and its figures are traced', () => {
    const multihop = [...QUESTIONS.values()].filter((q) => q.category === 'grounded-multihop');
    expect(multihop).toHaveLength(45);
    const notGrounded = multihop.flatMap((q) => {
      const contexts = goldContexts(q);
      const answer = citing(q.gold_answer, contexts);
      const scores = groundings(judge(q, contexts, answer));
      const traced = numbersTraced(answer, contexts, q.numeric_gold).passed;
      return scores.every((s) => s === 2) && traced ? [] : [`${q.id}: ${scores.join('/')} traced ${traced}`];
    });
    expect(notGrounded).toEqual([]);
  });
});
