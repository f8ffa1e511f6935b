/**
 * The verdict's JSON Schema in the dialect each provider's structured output takes. rge's schema comes
 * from zod (draft-07, scores as `anyOf` of `const`s); the providers' strict modes want plain keywords,
 * and Gemini's `responseSchema` is an OpenAPI subset with upper-case types and an explicit property
 * order (without which Gemini orders keys alphabetically and the score would come before its evidence).
 */
type Json = Record<string, unknown>;

const isObject = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);

/** `anyOf: [{const: 0}, {const: 1}, …]` of numbers, as an integer enum; null when it is not that. */
function constUnion(node: Json): number[] | null {
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
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isObject(node)) return node;
    const consts = constUnion(node);
    if (consts) {
      const integral = consts.every(Number.isInteger);
      return { type: integral ? 'integer' : 'number', enum: consts };
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$schema') continue;
      out[k] = walk(v);
    }
    return out;
  };
  return walk(schema) as Json;
}

/** Gemini `responseSchema` (OpenAPI subset) for a strict JSON Schema, keeping property order. */
export function geminiResponseSchema(schema: Json): Json {
  const walk = (node: Json): Json => {
    const consts = constUnion(node);
    if (consts) {
      const integral = consts.every(Number.isInteger);
      return {
        type: integral ? 'INTEGER' : 'NUMBER',
        minimum: Math.min(...consts),
        maximum: Math.max(...consts),
        description: `one of ${consts.join(', ')}`,
      };
    }
    const type = typeof node.type === 'string' ? node.type : 'object';
    if (type === 'object') {
      const props = isObject(node.properties) ? node.properties : {};
      const properties: Json = {};
      for (const [k, v] of Object.entries(props)) properties[k] = isObject(v) ? walk(v) : v;
      return {
        type: 'OBJECT',
        properties,
        required: Array.isArray(node.required) ? node.required : Object.keys(props),
        propertyOrdering: Object.keys(props),
      };
    }
    if (type === 'array') return { type: 'ARRAY', items: isObject(node.items) ? walk(node.items) : {} };
    if (Array.isArray(node.enum))
      return { type: type.toUpperCase(), enum: node.enum.map(String), format: 'enum' };
    return { type: type.toUpperCase() };
  };
  const withoutMeta = Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$schema'));
  return walk(withoutMeta);
}
