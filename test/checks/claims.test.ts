import { describe, expect, it } from 'vitest';
import { ClaimFaithfulness, claimFaithfulness } from '../../src/checks/index.ts';
import { CHUNKS, HIGHLIGHTS, ITC, SEGMENTS } from './world.ts';

describe('claimFaithfulness', () => {
  it('supported claims name the chunk, preferring the cited one', () => {
    const result = claimFaithfulness(
      `Consolidated revenue from operations for FY24 was Rs 9,14,472.00 crore [${HIGHLIGHTS.id}]. The Board declared an interim dividend of Rs 4.25 per equity share [${SEGMENTS.id}].`,
      CHUNKS,
    );
    expect(result).toEqual({
      claims: [
        {
          text: 'Consolidated revenue from operations for FY24 was Rs 9,14,472.00 crore.',
          supported: true,
          chunkId: HIGHLIGHTS.id,
          cited: [HIGHLIGHTS.id],
        },
        {
          text: 'The Board declared an interim dividend of Rs 4.25 per equity share.',
          supported: true,
          chunkId: SEGMENTS.id,
          cited: [SEGMENTS.id],
        },
      ],
      supported: 2,
      total: 2,
      score: 1,
    });
    expect(ClaimFaithfulness.parse(result)).toEqual(result);
  });

  it('a claim citing the wrong chunk is still supported by the chunk that holds it', () => {
    const result = claimFaithfulness(
      `The group employed 4,15,767 people as on 31 March 2024 [${HIGHLIGHTS.id}].`,
      CHUNKS,
    );
    expect(result.claims[0]).toMatchObject({ supported: true, chunkId: SEGMENTS.id, cited: [HIGHLIGHTS.id] });
  });

  it('a wrong figure is unsupported; the score is supported / total', () => {
    const result = claimFaithfulness(
      'Consolidated revenue from operations for FY24 was Rs 9,14,472.00 crore. Consolidated profit for the year FY24 was Rs 97,020.00 crore. The group employed 4,15,767 people.',
      CHUNKS,
    );
    expect(result.claims.map((c) => c.supported)).toEqual([true, false, true]);
    expect(result).toMatchObject({ supported: 2, total: 3 });
    expect(result.score).toBeCloseTo(2 / 3, 12);
    expect(result.claims[1]?.chunkId).toBeNull();
  });

  it('all quantities of a claim must be in one chunk', () => {
    // revenue is in HIGHLIGHTS, the dividend in SEGMENTS: no single chunk holds both
    const result = claimFaithfulness(
      'Revenue from operations for FY24 was Rs 9,14,472.00 crore with a final dividend of Rs 6.50 per equity share.',
      CHUNKS,
    );
    expect(result.claims).toHaveLength(1);
    expect(result.claims[0]?.supported).toBe(false);
  });

  it('names must match: another firm as auditor is unsupported though most words agree', () => {
    expect(
      claimFaithfulness('Kothari Sen & Co LLP are the statutory auditors of the Company for FY24.', CHUNKS)
        .score,
    ).toBe(1);
    expect(
      claimFaithfulness(
        'Desai Raval & Associates are the statutory auditors of the Company for FY24.',
        CHUNKS,
      ).score,
    ).toBe(0);
    expect(claimFaithfulness('Aravind K. Menon is the Chairperson of the Board.', CHUNKS).score).toBe(1);
    expect(claimFaithfulness('Harpreet S. Gill is the Chairperson of the Board.', CHUNKS).score).toBe(0);
  });

  it('the right figure in unrelated words is unsupported (word coverage below one half)', () => {
    expect(
      claimFaithfulness('Capital expenditure on new refineries and pipelines was Rs 42,042.00 crore.', CHUNKS)
        .score,
    ).toBe(0);
  });

  it('the company slug and fiscal year count as chunk words', () => {
    expect(
      claimFaithfulness('Reliance standalone profit in FY24 was Rs 42,042.00 crore.', CHUNKS).score,
    ).toBe(1);
  });

  it('multi-hop: operands in two chunks, the computed difference derived from them', () => {
    const result = claimFaithfulness(
      'Reliance Industries Limited, by Rs 8,37,631.51 crore (Reliance Industries Limited: Rs 9,14,472.00 crore; ITC Limited: Rs 76,840.49 crore).',
      CHUNKS,
    );
    expect(result.claims.map((c) => [c.supported, c.chunkId])).toEqual([
      [true, HIGHLIGHTS.id],
      [true, ITC.id],
    ]);
  });

  it('no claims: a refusal, an empty answer, a bare "Yes."', () => {
    for (const answer of ['The documents do not state this.', '', 'Yes.'])
      expect(claimFaithfulness(answer, CHUNKS)).toEqual({ claims: [], supported: 0, total: 0, score: null });
  });

  it('nothing is supported without retrieved chunks', () => {
    expect(claimFaithfulness('Revenue was Rs 9,14,472.00 crore.', [])).toMatchObject({
      supported: 0,
      total: 1,
      score: 0,
    });
  });
});
