import { describe, expect, it } from 'vitest';
import {
  answerContains,
  CHECK_NAMES,
  CheckResults,
  citationsResolve,
  latency,
  mustInclude,
  mustNotInclude,
  numbersTraced,
  refusalAccuracy,
  runChecks,
} from '../../src/checks/index.ts';
import { CHUNKS, HIGHLIGHTS, ITC, OOD, question, SEGMENTS } from './world.ts';

const H = `[${HIGHLIGHTS.id}]`;

describe('numbersTraced', () => {
  it('passes when every figure is in a retrieved chunk, however it is written', () => {
    const r = numbersTraced(
      `Consolidated revenue from operations for FY24 was Rs 914,472 crore ${H}, or about Rs 9.14 lakh crore; EPS was Rs 102.90.`,
      CHUNKS,
    );
    expect(r).toMatchObject({ name: 'numbersTraced', passed: true });
    expect(r.detail).toContain('3/3 figures traced');
  });
  it('fails on a figure no chunk holds, and names it', () => {
    const r = numbersTraced(`Consolidated revenue for FY24 was Rs 9,41,472.00 crore ${H}.`, CHUNKS);
    expect(r.passed).toBe(false);
    expect(r.detail).toContain('not found: Rs 9,41,472.00 crore');
  });
  it('units and scale must agree: a table cell is not "Rs 5,47,942.00 crore" and crore is not lakh', () => {
    expect(numbersTraced('Retail revenue was Rs 2,37,762.72 lakh.', CHUNKS).passed).toBe(false);
    expect(numbersTraced('Emissions were 6,54,61,462 tCO2e.', CHUNKS).passed).toBe(true);
    expect(numbersTraced('Emissions were Rs 6,54,61,462.', CHUNKS).passed).toBe(false);
  });
  it('is n/a without figures; dates, years and citation ids are not figures', () => {
    expect(numbersTraced('Kothari Sen & Co LLP are the auditors.', CHUNKS).passed).toBeNull();
    expect(numbersTraced(`As on 31 March 2024 (FY 2023-24) ${H}.`, CHUNKS).passed).toBeNull();
  });
  it('within 1%: a rounded figure traces, a 2% error does not', () => {
    expect(numbersTraced('Revenue was about Rs 9,15,000 crore.', CHUNKS).passed).toBe(true);
    expect(numbersTraced('Revenue was Rs 9,33,000 crore.', CHUNKS).passed).toBe(false);
  });
  it('figures the answer derives from its own traced figures are traced as derived', () => {
    const diff = numbersTraced(
      'Reliance, by Rs 8,37,631.51 crore (Reliance: Rs 9,14,472.00 crore; ITC: Rs 76,840.49 crore).',
      CHUNKS,
    );
    expect(diff.passed).toBe(true);
    expect(diff.detail).toContain(
      'derived: Rs 8,37,631.51 crore = Rs 9,14,472.00 crore - Rs 76,840.49 crore',
    );
    expect(numbersTraced('Rs 10.75 per share (interim Rs 4.25 + final Rs 6.50).', CHUNKS).passed).toBe(true);
    expect(
      numbersTraced('27.0% (Rs 20,751.36 crore of profit on Rs 76,840.49 crore of revenue).', CHUNKS).passed,
    ).toBe(true);
    expect(
      numbersTraced(
        'It rose by Rs 322.28 crore, from Rs 76,518.21 crore to Rs 76,840.49 crore, a change of 0.4%.',
        CHUNKS,
      ).passed,
    ).toBe(true);
  });
  it('a computed figure without its operands is not traced', () => {
    expect(numbersTraced('Reliance, by Rs 8,37,631.51 crore.', CHUNKS).passed).toBe(false);
    expect(numbersTraced('The margin was 27.0%.', CHUNKS).passed).toBe(false);
  });
});

describe('citationsResolve', () => {
  it('passes when every id is retrieved', () => {
    const r = citationsResolve(`Revenue was Rs 9,14,472.00 crore ${H} [${SEGMENTS.id}, ${ITC.id}].`, CHUNKS);
    expect(r).toEqual({
      name: 'citationsResolve',
      passed: true,
      detail: 'all 3 citation(s) resolve to retrieved chunks',
    });
  });
  it('fails on an id that was not retrieved (even a real one) and names it', () => {
    const r = citationsResolve('Revenue was Rs 9,14,472.00 crore [reliance-FY23-1dbfc24f].', CHUNKS);
    expect(r.passed).toBe(false);
    expect(r.detail).toContain('reliance-FY23-1dbfc24f');
  });
  it('fails when a claim-bearing answer cites nothing', () => {
    expect(citationsResolve('Revenue was Rs 9,14,472.00 crore.', CHUNKS)).toMatchObject({ passed: false });
  });
  it('is n/a for a refusal without citations; a cited refusal is checked', () => {
    expect(citationsResolve('The documents do not state capital expenditure.', CHUNKS).passed).toBeNull();
    const explained =
      'The provided context does not state the answer to this question: the closest passages are about a different company, period or statement than the question asks.';
    expect(citationsResolve(explained, CHUNKS).passed).toBeNull();
    expect(citationsResolve(`The FY24 report ${H} does not state capital expenditure.`, CHUNKS).passed).toBe(
      true,
    );
  });
});

describe('mustInclude / mustNotInclude', () => {
  it('a figure is found however it is written', () => {
    for (const answer of [
      'Rs 9,14,472.00 crore',
      'Rs 914,472 crore',
      'Rs 9.14 lakh crore',
      '₹9,144.72 billion',
      'INR 9,14,472 cr',
      '9,14,472.00',
    ])
      expect(answerContains(answer, '9,14,472.00', 0.01), answer).toBe(true);
    expect(answerContains('Rs 9,00,122.00 crore', '9,14,472.00', 0.01)).toBe(false);
    expect(answerContains('Rs 9.00 lakh crore', '9,00,122.00', 0.01)).toBe(true);
    expect(answerContains('Rs 900,122 crore', '9,00,122.00', 0.01)).toBe(true);
  });
  it('figures with units: tCO2e, per share, %', () => {
    expect(answerContains('6.55 crore tCO2e', '6,54,61,462 tCO2e', 0.01)).toBe(true);
    expect(answerContains('Rs 6,54,61,462', '6,54,61,462 tCO2e', 0.01)).toBe(false);
    expect(answerContains('a final dividend of Rs 2.50 per equity share', 'Rs 2.50', 0.005)).toBe(true);
    expect(answerContains('Rs 2.500 crore', 'Rs 2.50', 0.005)).toBe(false);
    expect(answerContains('a margin of 27%', '27.0%', 0.01)).toBe(true);
  });
  it('text compared case- and whitespace-insensitively', () => {
    expect(answerContains('the auditors are  kothari sen &\nco llp', 'Kothari Sen & Co LLP', 0.01)).toBe(
      true,
    );
    expect(answerContains('Kothari Sen LLP', 'Kothari Sen & Co LLP', 0.01)).toBe(false);
  });
  it('mustInclude lists what is missing; n/a for an empty list', () => {
    const q = question({ must_include: ['9,14,472.00', 'Reliance Industries Limited'] });
    expect(mustInclude(q, 'Reliance Industries Limited: Rs 9.14 lakh crore').passed).toBe(true);
    const r = mustInclude(q, 'Rs 9,14,472.00 crore');
    expect(r).toEqual({ name: 'mustInclude', passed: false, detail: 'missing: Reliance Industries Limited' });
    expect(mustInclude(OOD, 'anything').passed).toBeNull();
  });
  it('mustNotInclude flags the distractor figure in any writing, within 0.5%', () => {
    const q = question();
    expect(mustNotInclude(q, 'Rs 9,14,472.00 crore').passed).toBe(true);
    const r = mustNotInclude(q, 'Standalone revenue was Rs 547,942 crore.');
    expect(r).toEqual({ name: 'mustNotInclude', passed: false, detail: 'contains: 5,47,942.00' });
    expect(mustNotInclude(q, 'Rs 5.48 lakh crore').passed).toBe(false);
    expect(mustNotInclude(q, 'Rs 5,53,000 crore').passed).toBe(true);
    expect(mustNotInclude(OOD, 'anything').passed).toBeNull();
  });
});

describe('refusalAccuracy', () => {
  it('both ways', () => {
    const answerable = question();
    expect(refusalAccuracy(answerable, 'Rs 9,14,472.00 crore')).toEqual({
      name: 'refusalAccuracy',
      passed: true,
      detail: 'answered as expected',
    });
    const over = refusalAccuracy(answerable, 'The documents do not state this.');
    expect(over.passed).toBe(false);
    expect(over.detail).toMatch(/^over-refusal/);
    expect(refusalAccuracy(OOD, 'The documents do not state capital expenditure for FY24.')).toMatchObject({
      passed: true,
      detail: 'refused as expected',
    });
    const missed = refusalAccuracy(OOD, 'Capital expenditure was Rs 1,40,000 crore.');
    expect(missed.passed).toBe(false);
    expect(missed.detail).toMatch(/^missed refusal/);
  });
  it('an answer that declines but goes on to give a figure is not a refusal', () => {
    const r = refusalAccuracy(
      OOD,
      'Capex is not stated in the documents, but revenue was Rs 9,14,472.00 crore.',
    );
    expect(r.detail).toMatch(/^missed refusal/);
  });
});

describe('latency', () => {
  it('within the budget inclusive; n/a without a budget', () => {
    expect(latency(1200, 1200)).toEqual({
      name: 'latency',
      passed: true,
      detail: '1200 ms within the 1200 ms budget',
    });
    expect(latency(1200.4, 1000).passed).toBe(false);
    expect(latency(5, Number.POSITIVE_INFINITY).passed).toBeNull();
    expect(latency(5, 0).passed).toBeNull();
  });
});

describe('runChecks', () => {
  it('a grounded, cited answer passes everything and the result parses with the schema', () => {
    const results = runChecks({
      question: question(),
      answer: `Consolidated revenue from operations for FY24 was Rs 9,14,472.00 crore ${H}.`,
      chunks: CHUNKS,
      latencyMs: 850,
      latencyBudgetMs: 30_000,
    });
    expect(CheckResults.parse(results)).toEqual(results);
    for (const name of CHECK_NAMES) expect(results[name].passed, name).toBe(true);
    expect(results.claimFaithfulness).toMatchObject({ supported: 1, total: 1, score: 1 });
  });
  it('the distractor answer fails the right checks', () => {
    const results = runChecks({
      question: question(),
      answer: `Revenue from operations for FY24 was Rs 5,47,942.00 crore [reliance-FY23-1dbfc24f].`,
      chunks: CHUNKS,
      latencyMs: 40_000,
      latencyBudgetMs: 30_000,
    });
    expect(results.numbersTraced.passed).toBe(true);
    expect(results.citationsResolve.passed).toBe(false);
    expect(results.mustInclude.passed).toBe(false);
    expect(results.mustNotInclude.passed).toBe(false);
    expect(results.refusalAccuracy.passed).toBe(true);
    expect(results.latency.passed).toBe(false);
  });
  it('a correct refusal: n/a where nothing applies, score null for no claims', () => {
    const results = runChecks({
      question: OOD,
      answer: 'The documents do not state capital expenditure for FY24, so I cannot answer.',
      chunks: CHUNKS,
      latencyMs: 10,
      latencyBudgetMs: 1000,
    });
    expect(results.numbersTraced.passed).toBeNull();
    expect(results.citationsResolve.passed).toBeNull();
    expect(results.mustInclude.passed).toBeNull();
    expect(results.mustNotInclude.passed).toBeNull();
    expect(results.refusalAccuracy.passed).toBe(true);
    expect(results.claimFaithfulness).toEqual({ claims: [], supported: 0, total: 0, score: null });
    expect(CheckResults.parse(results)).toEqual(results);
  });
  it('the schema rejects a malformed row', () => {
    expect(CheckResults.safeParse({}).success).toBe(false);
    const ok = runChecks({ question: OOD, answer: '', chunks: [], latencyMs: 0, latencyBudgetMs: 1 });
    expect(
      CheckResults.safeParse({ ...ok, latency: { name: 'latency', passed: 'yes', detail: '' } }).success,
    ).toBe(false);
  });
});
