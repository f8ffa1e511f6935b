import { describe, expect, it } from 'vitest';
import { judgeVerdictJsonSchema } from '../../src/judging/prompt.ts';
import { DIMENSIONS } from '../../src/judging/verdict.ts';
import { geminiResponseSchema } from '../../src/providers/live/gemini.ts';
import { strictJsonSchema } from '../../src/providers/live/schema.ts';

type Json = Record<string, unknown>;

const obj = (x: unknown): Json => {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw new Error(`not an object: ${String(x)}`);
  return x as Json;
};
const prop = (node: unknown, ...path: string[]): Json => {
  let at = obj(node);
  for (const k of path) at = obj(obj(at.properties)[k]);
  return at;
};

describe('strictJsonSchema on the real verdict schema', () => {
  const source = judgeVerdictJsonSchema();
  const strict = strictJsonSchema(source);

  it('the source schema is what zod gives: $schema and scores as anyOf of consts', () => {
    expect(source.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(prop(source, 'correctness', 'score').anyOf).toEqual([
      { type: 'number', const: 0 },
      { type: 'number', const: 1 },
      { type: 'number', const: 2 },
    ]);
  });

  it('removes $schema', () => {
    expect(strict).not.toHaveProperty('$schema');
    expect(JSON.stringify(strict)).not.toContain('$schema');
  });

  it('turns every score into an integer enum 0, 1, 2', () => {
    for (const d of DIMENSIONS)
      expect(prop(strict, d, 'score')).toEqual({ type: 'integer', enum: [0, 1, 2] });
    expect(JSON.stringify(strict)).not.toContain('anyOf');
  });

  it('keeps additionalProperties: false and required at every object level', () => {
    expect(strict.additionalProperties).toBe(false);
    expect(strict.required).toEqual(['correctness', 'grounding', 'calibration', 'unsupported_claims']);
    for (const d of DIMENSIONS) {
      expect(prop(strict, d).additionalProperties).toBe(false);
      expect(prop(strict, d).required).toEqual(['evidence', 'rationale', 'score']);
    }
  });

  it('keeps the other nodes and the property order, and leaves its input alone', () => {
    expect(prop(strict, 'unsupported_claims')).toEqual({ type: 'array', items: { type: 'string' } });
    expect(prop(strict, 'grounding', 'evidence')).toEqual({ type: 'array', items: { type: 'string' } });
    expect(Object.keys(obj(strict.properties))).toEqual([
      'correctness',
      'grounding',
      'calibration',
      'unsupported_claims',
    ]);
    expect(Object.keys(obj(prop(strict, 'calibration').properties))).toEqual([
      'evidence',
      'rationale',
      'score',
    ]);
    expect(source).toEqual(judgeVerdictJsonSchema());
  });

  it('a union of non-integer consts becomes a number enum', () => {
    expect(strictJsonSchema({ anyOf: [{ const: 0.5 }, { const: 1 }] })).toEqual({
      type: 'number',
      enum: [0.5, 1],
    });
    // a union that is not all numeric consts is left as it is
    const mixed = { anyOf: [{ const: 'a' }, { type: 'number' }] };
    expect(strictJsonSchema(mixed)).toEqual(mixed);
  });
});

describe('geminiResponseSchema on the real verdict schema', () => {
  const gemini = geminiResponseSchema(judgeVerdictJsonSchema());

  it('gives upper-case OpenAPI types', () => {
    expect(gemini.type).toBe('OBJECT');
    expect(prop(gemini, 'unsupported_claims')).toEqual({ type: 'ARRAY', items: { type: 'STRING' } });
    for (const d of DIMENSIONS) {
      expect(prop(gemini, d).type).toBe('OBJECT');
      expect(prop(gemini, d, 'evidence')).toEqual({ type: 'ARRAY', items: { type: 'STRING' } });
      expect(prop(gemini, d, 'rationale')).toEqual({ type: 'STRING' });
      expect(prop(gemini, d, 'score').type).toBe('INTEGER');
    }
    expect(JSON.stringify(gemini)).not.toMatch(/"type":"[a-z]/);
    expect(JSON.stringify(gemini)).not.toContain('additionalProperties');
    expect(JSON.stringify(gemini)).not.toContain('$schema');
  });

  it('orders the dimensions at the top and the evidence before the score inside each dimension', () => {
    expect(gemini.propertyOrdering).toEqual([
      'correctness',
      'grounding',
      'calibration',
      'unsupported_claims',
    ]);
    expect(gemini.required).toEqual(['correctness', 'grounding', 'calibration', 'unsupported_claims']);
    for (const d of DIMENSIONS) {
      const ordering = prop(gemini, d).propertyOrdering as string[];
      expect(ordering).toEqual(['evidence', 'rationale', 'score']);
      expect(ordering.indexOf('evidence')).toBeLessThan(ordering.indexOf('score'));
      expect(prop(gemini, d).required).toEqual(['evidence', 'rationale', 'score']);
    }
  });

  it('restricts every score to the integers 0, 1, 2', () => {
    // Gemini takes either an enum (format "enum", values as strings, also for INTEGER) or a minimum and maximum
    const allowed = (node: Json): number[] => {
      if (node.format === 'enum' && Array.isArray(node.enum)) return node.enum.map(Number);
      if (typeof node.minimum === 'number' && typeof node.maximum === 'number')
        return Array.from(
          { length: node.maximum - node.minimum + 1 },
          (_, i) => (node.minimum as number) + i,
        );
      return [];
    };
    for (const d of DIMENSIONS) {
      const score = prop(gemini, d, 'score');
      expect(score).toMatchObject({ type: 'INTEGER', minimum: 0, maximum: 2 });
      expect(allowed(score)).toEqual([0, 1, 2]);
    }
  });
});
