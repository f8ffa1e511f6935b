/**
 * The verdict's JSON Schema in the dialect each provider's structured output takes. rge's schema comes
 * from zod (draft-07, scores as `anyOf` of `const`s); the providers' strict modes want plain keywords,
 * and Gemini's `responseSchema` (`geminiResponseSchema`, in ./gemini.ts with the SDK it types against) is
 * an OpenAPI subset with upper-case types and an explicit property order.
 */
export type Json = Record<string, unknown>;

export const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);

/** `anyOf: [{const: 0}, {const: 1}, …]` of numbers, as an integer enum; null when it is not that. */
export function constUnion(node: Json): number[] | null {
  const options = node.anyOf;
  if (!Array.isArray(options) || options.length === 0) return null;
  const values: number[] = [];
  for (const o of options) {
    if (!isObject(o) || typeof o.const !== 'number') return null;
    values.push(o.const);
  }
  return values;
}

/** JSON Schema for strict structured output (OpenAI `json_schema`, Anthropic `output_config.format`). */
export function strictJsonSchema(schema: Json): Json {
  const value = (node: unknown): unknown =>
    Array.isArray(node) ? node.map(value) : isObject(node) ? object(node) : node;
  const object = (node: Json): Json => {
    const consts = constUnion(node);
    if (consts) {
      const integral = consts.every(Number.isInteger);
      return { type: integral ? 'integer' : 'number', enum: consts };
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) if (k !== '$schema') out[k] = value(v);
    return out;
  };
  return object(schema);
}
