/**
 * Request validation shared by the loopback servers: walking a request body against allowlists of its
 * fields, and writing the path of a field the way each provider names it in its errors.
 *
 * The allowlists themselves live with each server (anthropic.ts, openai.ts, gemini.ts), written as
 * objects checked against the SDK's own request types with `satisfies Record<Keys, true>`, so that a
 * field the SDK adds or drops fails the type check until the list follows it.
 */
import { isRecord } from './common.ts';

/** Where a value sits in a request: field names and list positions, from the top of the body. */
export type FieldPath = readonly (string | number)[];

/** The keys of every member of a union (`keyof` of a union keeps only the keys they share). */
export type KeysOfUnion<T> = T extends unknown ? keyof T : never;

/** The fields an object may carry (null: any field), and the rules for the values of some of them. */
export interface ObjectRule {
  fields: Readonly<Record<string, true>> | null;
  children?: Readonly<Record<string, ValueRule>>;
}

/** Each item of a list follows `each`; a value that is not a list is not checked. */
export interface ListRule {
  each: ValueRule;
}

/** The rule for a value depends on the value itself (a content block on its `type`); null: not checked. */
export interface ChosenRule {
  choose: (value: unknown) => ValueRule | null;
}

export type ValueRule = ObjectRule | ListRule | ChosenRule;

/** A field no rule allows: the path of the object that carries it, and the field as it was sent. */
export interface UnknownField {
  parent: FieldPath;
  field: string;
}

export interface WalkOptions {
  /**
   * The name a field is looked up by in the rules. Proto JSON (Gemini) accepts both the camelCase and
   * the snake_case spelling of a field, so its rules are written in camelCase and looked up so.
   */
  canonical?: (name: string) => string;
}

/**
 * The first field of `value` that its rule does not allow, depth first: an object's own fields are
 * checked before the values of its fields. Values of the wrong shape (a string where a list of blocks
 * may also stand, a number where an object is expected) are left to the parsers.
 */
export function findUnknownField(
  value: unknown,
  rule: ValueRule,
  options: WalkOptions = {},
  path: FieldPath = [],
): UnknownField | null {
  if ('choose' in rule) {
    const chosen = rule.choose(value);
    return chosen ? findUnknownField(value, chosen, options, path) : null;
  }
  if ('each' in rule) {
    if (!Array.isArray(value)) return null;
    for (const [i, item] of value.entries()) {
      const found = findUnknownField(item, rule.each, options, [...path, i]);
      if (found) return found;
    }
    return null;
  }
  if (!isRecord(value)) return null;
  const canonical = options.canonical ?? ((name: string) => name);
  const { fields, children } = rule;
  if (fields) {
    for (const field of Object.keys(value)) {
      if (!Object.hasOwn(fields, canonical(field))) return { parent: path, field };
    }
  }
  if (children) {
    for (const [field, child] of Object.entries(value)) {
      const name = canonical(field);
      const childRule = Object.hasOwn(children, name) ? children[name] : undefined;
      if (!childRule) continue;
      const found = findUnknownField(child, childRule, options, [...path, field]);
      if (found) return found;
    }
  }
  return null;
}

/** The fields of a rule with more fields allowed (for example those only one API version takes). */
export function withFields(rule: ObjectRule, extra: Readonly<Record<string, true>>): ObjectRule {
  return { ...rule, fields: rule.fields ? { ...rule.fields, ...extra } : null };
}

/** Anthropic's and OpenAI's paths: `messages.0.content.1.foo`. */
export function dottedPath(path: FieldPath): string {
  return path.join('.');
}

/**
 * Google's paths: snake_case field names, list positions in brackets:
 * `batch.input_config.requests.requests[0].request.generation_config`.
 */
export function protoPath(path: FieldPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += `${text === '' ? '' : '.'}${snakeCase(segment)}`;
  }
  return text;
}

/** `thinkingConfig` -> `thinking_config`; a snake_case name stays as it is. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** `thinking_config` -> `thinkingConfig`; a camelCase name stays as it is. */
export function camelCase(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** A proto JSON field read under either spelling, camelCase first (as the SDKs send it). */
export function protoField(record: Record<string, unknown>, camelName: string): unknown {
  return record[camelName] ?? record[snakeCase(camelName)];
}

/** `'a', 'b', and 'c'`, as OpenAI lists supported values. */
export function quotedList(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  if (quoted.length <= 2) return quoted.join(' and ');
  return `${quoted.slice(0, -1).join(', ')}, and ${quoted.at(-1)}`;
}

/** Whether a request carries a field: present and not null (the APIs read a null as not sent). */
export function carries(record: Record<string, unknown>, field: string): boolean {
  return record[field] !== undefined && record[field] !== null;
}
