import { describe, expect, it } from 'vitest';
import { verbatimClaim } from '../../../src/judging/heuristic/common.ts';
import {
  HEURISTIC_JUDGES,
  heuristicJudge,
  LEXICAL_JUDGE_FAMILY,
  lexicalVerdict,
  NUMERIC_JUDGE_FAMILY,
  numericVerdict,
} from '../../../src/judging/heuristic/index.ts';
import { judgeCase } from '../../../src/judging/parse.ts';
import { renderJudgeRequest } from '../../../src/judging/prompt.ts';
import { JudgeVerdict } from '../../../src/judging/verdict.ts';
import type { ContextChunk, JudgeInput } from '../../../src/providers/types.ts';

const chunk = (id: string, text: string): ContextChunk => ({
  id,
  company: 'reliance',
  fy: 'FY24',
  heading: null,
  pages: [3, 3],
  text,
});

const REVENUE = chunk(
  'reliance-FY24-aaaa1111',
  'Consolidated revenue from operations for FY24 was Rs 9,00,122.00 crore. The Board recommended a dividend of Rs 10.00 per equity share.',
);
const AUDITOR = chunk(
  'reliance-FY24-bbbb2222',
  'Varma Iyer & Associates LLP are the statutory auditors of the Company for FY24. Employees numbered 3,47,362 at year end.',
);

const base: JudgeInput = {
  kind: 'judge',
  questionId: 'gd-001',
  question: "What was Reliance Industries Limited's consolidated revenue from operations in FY24?",
  category: 'grounded-direct',
  expectedBehavior: 'answer',
  goldAnswer: 'Rs 9,00,122.00 crore',
  goldQuotes: ['Consolidated revenue from operations for FY24 was Rs 9,00,122.00 crore.'],
  numericGold: [{ label: 'revenue FY24', value: 900122, unit: 'INR crore', tolerance: 0.01 }],
  chunks: [REVENUE, AUDITOR],
  answer: 'Consolidated revenue from operations for FY24 was Rs 9,00,122.00 crore [reliance-FY24-aaaa1111].',
};
const withAnswer = (answer: string, extra: Partial<JudgeInput> = {}): JudgeInput => ({
  ...base,
  ...extra,
  answer,
});
const both = (input: JudgeInput) => [numericVerdict(input), lexicalVerdict(input)] as const;
const scores = (v: JudgeVerdict) => [v.correctness.score, v.grounding.score, v.calibration.score];

describe('heuristic judges', () => {
  it('are two providers of two different families, and reply with verdict JSON through the live parser', async () => {
    const families = HEURISTIC_JUDGES.map((n) => heuristicJudge(n).family);
    expect(families).toEqual([NUMERIC_JUDGE_FAMILY, LEXICAL_JUDGE_FAMILY]);
    expect(new Set(families).size).toBe(2);
    for (const name of HEURISTIC_JUDGES) {
      const judge = heuristicJudge(name);
      const request = renderJudgeRequest(base, {
        id: name,
        model: name,
        family: judge.family,
        parameters: { temperature: 0 },
      });
      const reply = await judge.complete(request);
      expect(JudgeVerdict.parse(JSON.parse(reply.text))).toEqual(reply.json);
      expect(reply.costUsd).toBe(0);
      const outcome = await judgeCase(judge, request);
      expect(outcome).toMatchObject({ status: 'scored', attempts: 1, family: judge.family });
    }
    await expect(
      heuristicJudge('numeric').complete({
        ...renderJudgeRequest(base, { id: 'n', model: 'n', family: 'f', parameters: { temperature: 0 } }),
        structured: undefined,
      }),
    ).rejects.toThrow(/structured judge input/);
    expect(() => heuristicJudge('oracle')).toThrow(/no heuristic judge/);
  });

  it('a correct, cited, plain answer scores 2/2/2 with quoted evidence from answer and chunk', () => {
    for (const v of both(base)) {
      expect(scores(v)).toEqual([2, 2, 2]);
      expect(v.unsupported_claims).toEqual([]);
      expect(v.grounding.evidence).toContain(
        'Consolidated revenue from operations for FY24 was Rs 9,00,122.00 crore.',
      );
      expect(v.correctness.evidence.every((e) => base.answer.includes(e))).toBe(true);
      for (const d of [v.correctness, v.grounding, v.calibration])
        expect(d.rationale.length).toBeGreaterThan(10);
    }
  });

  it('correctness: numbers within 1% with scale awareness; 2% off is wrong', () => {
    const lakhCrore = withAnswer('Revenue from operations was Rs 9.0 lakh crore.');
    expect(numericVerdict(lakhCrore).correctness.score).toBe(2);
    const million = withAnswer('Revenue from operations was Rs 9,001,220 million.');
    expect(numericVerdict(million).correctness.score).toBe(2);
    const off = withAnswer('Consolidated revenue from operations for FY24 was Rs 9,18,124 crore.');
    for (const v of both(off)) expect(v.correctness.score).toBe(0);
    const percent = withAnswer('The margin was 12.4%.', {
      numericGold: [{ label: 'margin', value: 12.5, unit: '%', tolerance: 0.01 }],
      goldAnswer: '12.5%',
    });
    for (const v of both(percent)) expect(v.correctness.score).toBe(2);
  });

  it('correctness: entities exact against the gold answer, prose by overlap', () => {
    const auditor = { goldAnswer: 'Varma Iyer & Associates LLP', numericGold: [] };
    for (const v of both(withAnswer('The statutory auditors are Varma Iyer & Associates LLP.', auditor)))
      expect(v.correctness.score).toBe(2);
    for (const v of both(withAnswer('The statutory auditors are Deloitte Haskins & Sells LLP.', auditor)))
      expect(v.correctness.score).toBeLessThan(2);
  });

  it('a refusal when an answer was expected: correctness 0 and over-refusal (calibration 0)', () => {
    for (const v of both(withAnswer('The documents do not state the consolidated revenue for FY24.'))) {
      expect(v.correctness.score).toBe(0);
      expect(v.calibration.score).toBe(0);
      expect(v.grounding.score).toBe(2); // no claim, nothing ungrounded
    }
  });

  it('calibration: declining an out-of-domain question is 2; answering it is 0', () => {
    const ood = {
      expectedBehavior: 'refuse' as const,
      category: 'out-of-domain',
      goldAnswer: 'The documents do not state this.',
      numericGold: [],
    };
    for (const v of both(withAnswer('The documents do not mention the capital expenditure for FY24.', ood))) {
      expect(v.calibration.score).toBe(2);
      expect(v.correctness.score).toBe(2);
    }
    for (const v of both(withAnswer('Capital expenditure in FY24 was Rs 1,200 crore.', ood))) {
      expect(v.calibration.score).toBe(0);
      expect(v.correctness.score).toBe(0);
    }
  });

  it('calibration: hedging on a correct grounded answer lowers it to 1', () => {
    const hedged = withAnswer(
      "I'm not sure, but consolidated revenue from operations for FY24 appears to be Rs 9,00,122.00 crore [reliance-FY24-aaaa1111].",
    );
    for (const v of both(hedged)) {
      expect(v.correctness.score).toBe(2);
      expect(v.calibration.score).toBe(1);
    }
  });

  it('grounding: citing a chunk that does not hold the claim is citation theatre (0), the claim listed verbatim', () => {
    const theatre = withAnswer(
      'Consolidated revenue from operations for FY24 was Rs 9,00,122.00 crore [reliance-FY24-bbbb2222].',
    );
    for (const v of both(theatre)) {
      expect(v.grounding.score).toBe(0);
      expect(v.grounding.rationale).toMatch(/citation theatre/i);
      expect(v.unsupported_claims).toEqual([theatre.answer]);
      expect(v.correctness.score).toBe(2); // true, but not grounded where it says
    }
    const missingId = withAnswer(
      'Consolidated revenue from operations for FY24 was Rs 9,00,122.00 crore [nowhere-1].',
    );
    for (const v of both(missingId)) expect(v.grounding.score).toBe(0);
  });

  it('grounding: supported claims without citations are at most 1; an invented figure is 0', () => {
    const uncited = withAnswer('Consolidated revenue from operations for FY24 was Rs 9,00,122.00 crore.');
    for (const v of both(uncited)) expect(v.grounding.score).toBe(1);
    const invented = withAnswer(
      'Consolidated revenue from operations for FY24 was Rs 9,00,122.00 crore [reliance-FY24-aaaa1111]. Net profit was Rs 79,020 crore.',
    );
    for (const v of both(invented)) {
      expect(v.grounding.score).toBe(0);
      expect(v.unsupported_claims).toEqual(['Net profit was Rs 79,020 crore.']);
    }
  });

  it('the two families differ in method: a rescaled figure is grounded for numeric, not for lexical', () => {
    const rescaled = withAnswer(
      'Consolidated revenue from operations for FY24 was Rs 9.00 lakh crore [reliance-FY24-aaaa1111].',
    );
    expect(numericVerdict(rescaled).grounding.score).toBe(2);
    expect(lexicalVerdict(rescaled).grounding.score).toBe(0);
  });

  it('multi-hop: a figure computed from the cited chunks (total, difference, margin, change) is grounded by both', () => {
    const c0 = chunk(
      'x-FY24-c0',
      'During FY23 the Board declared an interim dividend of Rs 3.75 per equity share.',
    );
    const c1 = chunk(
      'x-FY24-c1',
      'The Board has recommended a final dividend of Rs 5.75 per equity share for FY23.',
    );
    const total = withAnswer('The total dividend for FY23 was Rs 9.50 per share [x-FY24-c0, x-FY24-c1].', {
      chunks: [c0, c1],
      goldAnswer: 'Rs 9.50 per share',
      numericGold: [{ label: 'total dividend', value: 9.5, unit: 'INR per share', tolerance: 0.01 }],
    });
    for (const v of both(total)) expect(scores(v)).toEqual([2, 2, 2]);
    // citing only one of the two chunks does not hold the total
    const oneCited = withAnswer('The total dividend for FY23 was Rs 9.50 per share [x-FY24-c0].', {
      chunks: [c0, c1],
    });
    for (const v of both(oneCited)) expect(v.grounding.score).toBe(0);
    // a figure one step away from nothing in the chunks is not grounded
    const made = withAnswer('The total dividend for FY23 was Rs 11.20 per share [x-FY24-c0, x-FY24-c1].', {
      chunks: [c0, c1],
    });
    for (const v of both(made)) expect(v.grounding.score).toBe(0);
  });

  it('quotes an unsupported claim verbatim, citation markers included', () => {
    const answer = 'Revenue was Rs 5 crore [a-1] and profit was Rs 2 crore [b-2].';
    expect(verbatimClaim(answer, 'Revenue was Rs 5 crore')).toBe('Revenue was Rs 5 crore');
    expect(verbatimClaim(answer, 'profit was Rs 2 crore.')).toBe('profit was Rs 2 crore [b-2].');
  });

  it('is deterministic', () => {
    expect(numericVerdict(base)).toEqual(numericVerdict(base));
    expect(lexicalVerdict(base)).toEqual(lexicalVerdict(base));
  });
});
