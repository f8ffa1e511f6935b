/**
 * The lexical judge's grounding evidence is the sentence that holds the claim, not its neighbour: a
 * claim is held by a window (a sentence with its neighbours), and the quote is the shortest run of the
 * window's sentences that holds as much, the supporting sentence itself when it holds the claim alone.
 * Before, the quote was the first window's centre, so a claim in a chunk's second sentence was "evidenced"
 * by its first (issue 39, defect 1: gd-004 quoted "Emission intensity..." for "employed 4,208 people").
 */
import { describe, expect, it } from 'vitest';
import { lexicalVerdict } from '../../../src/judging/heuristic/index.ts';
import type { ContextChunk, JudgeInput } from '../../../src/providers/types.ts';

const chunk = (id: string, text: string): ContextChunk => ({
  id,
  company: 'acme',
  fy: 'FY24',
  heading: null,
  pages: [4, 4],
  text,
});

const PEOPLE = chunk(
  'acme-FY24-aaaa1111',
  'Emission intensity fell to 0.42 tonnes per unit in FY24. The company employed 4,208 people at the end of FY24. Attrition was 12.5% for the year.',
);
const SEGMENTS = chunk(
  'acme-FY24-bbbb2222',
  'Going Out revenue was 1,061.91 crore, up 15.0%. Food Delivery revenue was 7,412.30 crore, up 26.4%. Hyperpure revenue grew fastest.',
);

const input = (question: string, answer: string, chunks: ContextChunk[]): JudgeInput => ({
  kind: 'judge',
  questionId: 'gd-004',
  question,
  category: 'grounded-direct',
  expectedBehavior: 'answer',
  goldAnswer: answer,
  goldQuotes: [],
  numericGold: [],
  chunks,
  answer,
});

describe('the lexical judge quotes the sentence that holds the claim', () => {
  it("a claim in a chunk's second sentence is quoted from that sentence, not from the first", () => {
    const v = lexicalVerdict(
      input(
        'How many people did Acme employ?',
        'The company employed 4,208 people at the end of FY24 [acme-FY24-aaaa1111].',
        [PEOPLE],
      ),
    );
    expect(v.grounding.score).toBe(2);
    expect(v.grounding.evidence).toContain('The company employed 4,208 people at the end of FY24.');
    expect(v.grounding.evidence.join(' ')).not.toMatch(/Emission intensity/);
  });

  it('a claim in the middle of three is quoted alone; in the last, from the last', () => {
    const food = lexicalVerdict(
      input(
        'What was Food Delivery revenue?',
        'Food Delivery revenue was 7,412.30 crore, up 26.4% [acme-FY24-bbbb2222].',
        [SEGMENTS],
      ),
    );
    expect(food.grounding.evidence).toContain('Food Delivery revenue was 7,412.30 crore, up 26.4%.');
    expect(food.grounding.evidence.join(' ')).not.toMatch(/Going Out/);
    const attrition = lexicalVerdict(
      input('What was attrition?', 'Attrition was 12.5% for the year [acme-FY24-aaaa1111].', [PEOPLE]),
    );
    expect(attrition.grounding.evidence).toContain('Attrition was 12.5% for the year.');
  });

  it('a claim that spans two sentences is quoted with both, and the grade does not change', () => {
    const answer = 'The company employed 4,208 people and attrition was 12.5% [acme-FY24-aaaa1111].';
    const v = lexicalVerdict(input('Headcount and attrition?', answer, [PEOPLE]));
    expect(v.grounding.score).toBe(2);
    const quote = v.grounding.evidence.find((e) => e.includes('4,208'));
    expect(quote).toContain('Attrition was 12.5%');
    expect(quote).not.toMatch(/Emission intensity/);
  });

  it("a multi-hop sentence over two cited chunks quotes each chunk's sentence, not the first chunk's first", () => {
    const answer =
      'Food Delivery revenue was 7,412.30 crore while the company employed 4,208 people [acme-FY24-bbbb2222] [acme-FY24-aaaa1111].';
    const v = lexicalVerdict(input('Revenue and people?', answer, [PEOPLE, SEGMENTS]));
    const joined = v.grounding.evidence.join(' | ');
    expect(joined).not.toMatch(/Emission intensity|Going Out/);
  });
});
