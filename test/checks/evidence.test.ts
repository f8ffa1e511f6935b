/**
 * Evidence recall is over the evidence: the gold quotes and the figures they print. A subject whose
 * passages are exactly the gold quotes has recall 1 in every category (before issue 51 a multihop
 * question's computed figure, a difference or a growth no passage prints, held it at 0.56-0.67); one of
 * two quotes held is a partial retrieval; a figure held in another print form counts; passages of
 * another company hold nothing.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { evidenceRecall } from '../../src/checks/evidence.ts';
import type { ContextChunk } from '../../src/providers/types.ts';
import { QUESTION_CATEGORIES, type Question } from '../../src/questions/schema.ts';

const questions = readFileSync('fixtures/questions.jsonl', 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Question);

const passage = (text: string, i: number): ContextChunk => ({
  id: `ctx-${i}`,
  company: '',
  fy: null,
  heading: null,
  pages: [0, 0],
  text,
});
const asPassages = (texts: readonly string[]) => texts.map(passage);

describe('evidence recall', () => {
  it('is 1 in every category when the passages are exactly the gold quotes', () => {
    for (const category of QUESTION_CATEGORIES.filter((c) => c !== 'out-of-domain')) {
      const mine = questions.filter((q) => q.category === category);
      expect(mine.length).toBeGreaterThan(0);
      const recalls = mine.map((q) => evidenceRecall(q, asPassages(q.gold_quotes)).recall);
      expect({ category, below1: recalls.filter((r) => r !== 1).length }).toEqual({ category, below1: 0 });
    }
  });

  it('counts a gold figure only when a gold quote prints it: a computed difference is not evidence', () => {
    const gm = questions.find((q) => q.id === 'gm-037') as Question;
    // the difference (4,76,544.23) is printed by neither quote; the two quotes are the evidence
    expect(gm.numeric_gold.map((f) => f.value)).toEqual([476544.23]);
    const r = evidenceRecall(gm, asPassages(gm.gold_quotes));
    expect(r).toMatchObject({ items: 2, found: 2, recall: 1, missing: [] });
  });

  it('one of two quotes held is partial; a printed gold figure in another form still counts', () => {
    const gd = questions.find(
      (q) => q.category === 'grounded-direct' && q.numeric_gold.length > 0,
    ) as Question;
    const quote = gd.gold_quotes[0] as string;
    const figure = gd.numeric_gold[0] as Question['numeric_gold'][number];
    const r = evidenceRecall(gd, asPassages(gd.gold_quotes));
    expect(r.items).toBe(gd.gold_quotes.length + 1);
    // the quote's words reworded, its figure kept as printed: the figure is held, the quote is not
    const reworded = evidenceRecall(gd, asPassages([`Reworded: ${quote.split(' ').reverse().join(' ')}`]));
    expect(reworded.found).toBe(1);
    expect(reworded.missing).toEqual([expect.stringMatching(/^quote /)]);
    expect(reworded.missing.some((m) => m.includes(figure.label))).toBe(false);
    const gm = questions.find((q) => q.id === 'gm-037') as Question;
    expect(evidenceRecall(gm, asPassages([gm.gold_quotes[0] as string])).recall).toBe(0.5);
  });

  it("is 0 over another company's passages and null without gold evidence", () => {
    const gd = questions.find((q) => q.category === 'grounded-direct') as Question;
    const other = questions.find(
      (q) => q.category === 'grounded-direct' && q.companies[0] !== gd.companies[0],
    );
    expect(evidenceRecall(gd, asPassages((other as Question).gold_quotes)).recall).toBe(0);
    const ood = questions.find((q) => q.category === 'out-of-domain') as Question;
    expect(evidenceRecall(ood, asPassages(['anything'])).recall).toBeNull();
  });
});
