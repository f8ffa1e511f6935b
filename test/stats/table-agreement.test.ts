/**
 * The agreement measures from a two-rater table (issue 41: the bootstrap of a large run computes each
 * resample's kappa from its table, not from a list of its items) equal the measures from the labels to
 * the bit, on seeded random tables of every shape the report meets: 3 labels (the 0/1/2 rubric), tables
 * with empty rows or columns, one category only, and a single item.
 */
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { type AgreementMeasure, pairAgreement, tableAgreement } from '../../src/stats/kappa.ts';

const MEASURES: AgreementMeasure[] = [
  'kappa',
  'kappa-linear',
  'kappa-quadratic',
  'alpha-nominal',
  'alpha-ordinal',
  'alpha-interval',
];

/** The labels of a table, item by item, in a shuffled order (the table does not depend on it). */
function labelsOf(table: number[], k: number, rng: () => number): { a: number[]; b: number[] } {
  const items: [number, number][] = [];
  table.forEach((n, c) => {
    for (let m = 0; m < n; m++) items.push([Math.floor(c / k), c % k]);
  });
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [items[i], items[j]] = [items[j] as [number, number], items[i] as [number, number]];
  }
  return { a: items.map((x) => x[0]), b: items.map((x) => x[1]) };
}

describe('tableAgreement', () => {
  it('equals pairAgreement on the labels, bit for bit, on 600 seeded tables', () => {
    const rng = seedrandom('table-agreement');
    let compared = 0;
    for (let t = 0; t < 600; t++) {
      const k = 2 + (t % 3);
      const sparse = t % 5 === 0;
      const table: number[] = Array.from({ length: k * k }, () =>
        sparse && rng() < 0.6 ? 0 : Math.floor(rng() * (t % 7 === 0 ? 3 : 400)),
      );
      if (t % 11 === 0) table.fill(0).splice(0, 1, 1 + Math.floor(rng() * 50)); // one category only
      if (!table.some((c) => c > 0)) table[k + 1] = 1;
      const { a, b } = labelsOf(table, k, rng);
      for (const measure of MEASURES) {
        const fromLabels = pairAgreement(measure, a, b, k);
        const fromTable = tableAgreement(measure, table, k);
        expect(Object.is(fromTable, fromLabels), `${measure} on ${table.join(',')}`).toBe(true);
        compared++;
      }
    }
    expect(compared).toBe(3600);
  });
});
