/**
 * Matching a logged question to the golden set (src/traces/golden.ts): exact after whitespace and case
 * normalisation, else the question generator's lexical near-duplicate rule (Jaccard >= 0.8 of content
 * words); a question that differs in a year or a company is not its golden neighbour.
 */
import { describe, expect, it } from 'vitest';
import type { Question } from '../../src/questions/schema.ts';
import { GoldenSet } from '../../src/traces/golden.ts';

const q = (id: string, text: string) => ({ id, text }) as Question;
const golden = new GoldenSet([
  q('gd-001', "What was ITC Limited's standalone profit for the year FY24?"),
  q('gd-002', "What was ITC Limited's standalone profit for the year FY23?"),
  q('gd-003', "Who were HDFC Bank Limited's statutory auditors for FY23?"),
]);

describe('GoldenSet.match', () => {
  it('is exact after whitespace and case normalisation', () => {
    expect(golden.match("  what was ITC limited's standalone\nprofit for the year FY24?")?.match).toEqual({
      question_id: 'gd-001',
      how: 'exact',
      similarity: 1,
    });
  });

  it('takes a near-duplicate by content words (stop-words and punctuation aside)', () => {
    const m = golden.match('Standalone profit of ITC Limited for the year FY24 - what was it?');
    expect(m?.match.question_id).toBe('gd-001');
    expect(m?.match.how).toBe('lexical');
    expect(m?.match.similarity).toBeGreaterThanOrEqual(0.8);
  });

  it('keeps apart questions that differ in a year or a company, and unrelated ones', () => {
    expect(golden.match("What was ITC Limited's standalone profit for the year FY22?")).toBeNull();
    expect(golden.match("Who were Infosys Limited's statutory auditors for FY23?")).toBeNull();
    expect(golden.match('How do I reset my password?')).toBeNull();
  });
});
