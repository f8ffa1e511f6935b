/**
 * The heuristic judges apply the rubric as written: each test is one sentence of judge prompt v1 (and
 * methodology 4.1-4.3), checked on both judges, whose methods differ but whose rubric is the same.
 */
import { describe, expect, it } from 'vitest';
import { lexicalVerdict } from '../../../src/judging/heuristic/lexical.ts';
import { numericVerdict } from '../../../src/judging/heuristic/numeric.ts';
import type { JudgeInput } from '../../../src/providers/types.ts';

const ID = 'adani-ports-FY24-00000001';
const OTHER = 'adani-ports-FY24-00000002';
const evidence =
  'Consolidated revenue from operations for FY24 was Rs 26,710.56 crore, compared with Rs 20,851.91 crore in FY23.';
const base: JudgeInput = {
  kind: 'judge',
  questionId: 'gd-001',
  question: "What was Adani Ports' consolidated revenue from operations for FY24?",
  category: 'grounded-direct',
  expectedBehavior: 'answer',
  goldAnswer: 'Rs 26,710.56 crore',
  goldQuotes: [evidence],
  numericGold: [{ label: 'revenue', value: 26710.56, unit: 'INR crore', tolerance: 0.01 }],
  chunks: [
    {
      id: ID,
      company: 'adani-ports',
      fy: 'FY24',
      heading: 'Financial performance',
      pages: [3, 3],
      text: evidence,
    },
    {
      id: OTHER,
      company: 'adani-ports',
      fy: 'FY24',
      heading: 'Dividend',
      pages: [9, 9],
      text: 'The Board recommended a dividend of Rs 7 per equity share for FY24.',
    },
  ],
  answer: '',
};
const miss: JudgeInput = {
  ...base,
  chunks: [{ ...(base.chunks[1] as JudgeInput['chunks'][number]) }],
};
const refuseCase: JudgeInput = {
  ...base,
  questionId: 'ood-001',
  category: 'out-of-domain',
  question: "What was Adani Ports' research and development expenditure in FY24?",
  expectedBehavior: 'refuse',
  goldAnswer: 'The reports do not state research and development expenditure.',
  goldQuotes: [],
  numericGold: [],
};
const caveatCase: JudgeInput = {
  ...base,
  questionId: 'adv-001',
  category: 'adversarial',
  expectedBehavior: 'answer-with-caveat',
};

const PLAIN = `Consolidated revenue from operations for FY24 was Rs 26,710.56 crore [${ID}].`;
const WRONG = `Consolidated revenue from operations for FY24 was Rs 20,851.91 crore [${ID}].`;
const HEDGED = `Consolidated revenue from operations for FY24 was probably around Rs 26,710.56 crore, it appears [${ID}].`;
const DECLINE =
  'The provided context does not state the answer to this question: no retrieved passage says it. I will not guess.';

const judges = [
  ['numeric', numericVerdict],
  ['lexical', lexicalVerdict],
] as const;

describe.each(judges)('the %s judge applies the rubric as written', (_name, verdict) => {
  const v = (input: JudgeInput, answer: string) => verdict({ ...input, answer });

  it('"A refusal that makes no factual claim is grounded (2)": an explained refusal asserts nothing', () => {
    for (const input of [refuseCase, base, miss]) {
      const out = v(input, DECLINE);
      expect(out.grounding.score).toBe(2);
      expect(out.unsupported_claims).toEqual([]);
    }
  });

  it('calibration 2: "declines, saying the documents do not contain the information, when the expected behaviour is \'refuse\'"', () => {
    const out = v(refuseCase, DECLINE);
    expect(out.calibration.score).toBe(2);
    // and: "When the expected behaviour is 'refuse', a refusal is correct (2)"
    expect(out.correctness.score).toBe(2);
  });

  it('"When the expected behaviour is \'refuse\', ... any substantive answer is 0"; calibration 0: "answers a question it should decline"', () => {
    const out = v(refuseCase, `Research and development expenditure was Rs 12 crore [${ID}].`);
    expect(out.correctness.score).toBe(0);
    expect(out.calibration.score).toBe(0);
  });

  it('calibration 1: "declines only partly" (an answer to a question it should decline, heavily hedged)', () => {
    const out = v(
      refuseCase,
      `I am not sure, but it is unclear; research spending may have been Rs 12 crore [${ID}].`,
    );
    expect(out.calibration.score).toBe(1);
  });

  it('calibration 2: "answers plainly when the evidence supports an answer (\'answer\')"', () => {
    const out = v(base, PLAIN);
    expect(out.calibration.score).toBe(2);
    expect(out.correctness.score).toBe(2);
    expect(out.grounding.score).toBe(2);
  });

  it('"a wrong figure stated plainly loses correctness, not calibration"', () => {
    const out = v(base, WRONG);
    expect(out.correctness.score).toBe(0);
    expect(out.calibration.score).toBe(2);
  });

  it('calibration 1: "hedges or adds needless caveats on an answer that is correct and grounded"', () => {
    const out = v(base, HEDGED);
    expect(out.calibration.score).toBe(1);
  });

  it('calibration 0: "declines a question the chunks answer (over-refusal)"; correctness 0: "a refusal when an answer was expected"', () => {
    const out = v(base, DECLINE);
    expect(out.calibration.score).toBe(0);
    expect(out.correctness.score).toBe(0);
  });

  it('calibration 0: "answers a question it should decline (... evidence absent)"; declining there is calibrated', () => {
    expect(v(miss, PLAIN).calibration.score).toBe(0);
    expect(v(miss, DECLINE).calibration.score).toBe(2);
  });

  it('calibration 2: "answers and flags the trap or ambiguity when the expected behaviour is \'answer-with-caveat\'"; without the caveat 1', () => {
    const flagged = `Consolidated revenue from operations for FY24 was Rs 26,710.56 crore [${ID}]; note this is the consolidated, not the standalone, figure.`;
    expect(v(caveatCase, flagged).calibration.score).toBe(2);
    expect(v(caveatCase, PLAIN).calibration.score).toBe(1);
  });

  it('grounding 0: "citing a chunk that does not hold the claim scores grounding 0 even if the claim happens to be true"', () => {
    const theatre = `Consolidated revenue from operations for FY24 was Rs 26,710.56 crore [${OTHER}].`;
    const out = v(base, theatre);
    expect(out.grounding.score).toBe(0);
    expect(out.correctness.score).toBe(2);
  });

  it('grounding 1: "the claims are supported by the retrieved chunks but citations are missing"', () => {
    const out = v(base, 'Consolidated revenue from operations for FY24 was Rs 26,710.56 crore.');
    expect(out.grounding.score).toBe(1);
  });

  it('grounding 0: "a material claim is supported by no retrieved chunk"', () => {
    const out = v(base, `Consolidated revenue from operations for FY24 was Rs 31,000 crore [${ID}].`);
    expect(out.grounding.score).toBe(0);
  });
});
