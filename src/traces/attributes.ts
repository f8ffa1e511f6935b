/**
 * A span's attributes as the importers read them: one flat map from the attribute's dotted name to its
 * value, whichever way the export wrote it. OTLP JSON writes `[{key, value: {stringValue | intValue |
 * doubleValue | boolValue | arrayValue | kvlistValue | bytesValue}}]` (`otlpAttributes`); an OpenInference
 * export writes an object, flat (`{"input.value": ...}`) or nested (`{"input": {"value": ...}}`)
 * (`nestedAttributes`). A list attribute comes in three shapes too: indexed keys
 * (`retrieval.documents.0.document.id`), a structured array, or a JSON string; `listAt` reads all three.
 */

/** The attributes of one span (or event) by dotted name. */
export type Attributes = Map<string, unknown>;

/** An OTLP `AnyValue` as plain JSON: arrays and key-value lists become arrays and objects. */
export function otlpValue(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  const any = v as Record<string, unknown>;
  if ('stringValue' in any) return any.stringValue;
  if ('intValue' in any) return typeof any.intValue === 'string' ? Number(any.intValue) : any.intValue;
  if ('doubleValue' in any) return Number(any.doubleValue);
  if ('boolValue' in any) return any.boolValue;
  if ('arrayValue' in any) {
    const values = (any.arrayValue as { values?: unknown[] } | undefined)?.values ?? [];
    return values.map(otlpValue);
  }
  if ('kvlistValue' in any) {
    const values = (any.kvlistValue as { values?: unknown[] } | undefined)?.values ?? [];
    return Object.fromEntries(otlpAttributes(values));
  }
  if ('bytesValue' in any) return any.bytesValue;
  return undefined;
}

/** OTLP's `[{key, value}]` as a map; entries without a string key are skipped. */
export function otlpAttributes(list: unknown): Attributes {
  const out: Attributes = new Map();
  if (!Array.isArray(list)) return out;
  for (const kv of list as { key?: unknown; value?: unknown }[])
    if (kv && typeof kv.key === 'string') out.set(kv.key, otlpValue(kv.value));
  return out;
}

const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  x !== null && typeof x === 'object' && !Array.isArray(x);

/** An attribute object, flat or nested, as a map of dotted names (arrays are kept whole). */
export function nestedAttributes(obj: unknown, prefix = '', out: Attributes = new Map()): Attributes {
  if (!isPlainObject(obj)) return out;
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isPlainObject(v)) nestedAttributes(v, key, out);
    else out.set(key, v);
  }
  return out;
}

/** A string attribute (a number is written as a string), or null. */
export function stringAt(attrs: Attributes, key: string): string | null {
  const v = attrs.get(key);
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/** A finite number attribute (a numeric string too), or null. */
export function numberAt(attrs: Attributes, key: string): number | null {
  const v = attrs.get(key);
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : null;
}

/** The value at `path` of an item: a flat dotted key first (`document.id`), else the nested path. */
export function field(item: unknown, path: string): unknown {
  if (!isPlainObject(item)) return undefined;
  if (path in item) return item[path];
  let at: unknown = item;
  for (const part of path.split('.')) {
    if (!isPlainObject(at)) return undefined;
    at = at[part];
  }
  return at;
}

/** What `listAt` found: the items, none (the attribute is absent), or an attribute it cannot read. */
export type ListAt = { items: unknown[] } | null | { unreadable: string };

/**
 * The list attribute `prefix`, whichever shape it was logged in: a structured array, a JSON string of an
 * array, or indexed keys (`prefix.0.rest`, `prefix.1.rest`, ...; each item an object of its `rest` keys).
 */
export function listAt(attrs: Attributes, prefix: string): ListAt {
  const whole = attrs.get(prefix);
  if (Array.isArray(whole)) return { items: whole };
  if (typeof whole === 'string') {
    try {
      const parsed: unknown = JSON.parse(whole);
      if (Array.isArray(parsed)) return { items: parsed };
    } catch {
      // named below
    }
    return { unreadable: `${prefix} is neither a JSON array nor a list of attributes` };
  }
  if (whole !== undefined) return { unreadable: `${prefix} is a ${typeof whole}, not a list` };
  const dotted = `${prefix}.`;
  const byIndex = new Map<number, Record<string, unknown>>();
  for (const [key, value] of attrs) {
    if (!key.startsWith(dotted)) continue;
    const rest = key.slice(dotted.length);
    const dot = rest.indexOf('.');
    const index = Number(dot < 0 ? rest : rest.slice(0, dot));
    if (!Number.isInteger(index)) continue;
    const item = byIndex.get(index) ?? {};
    if (dot < 0) Object.assign(item, isPlainObject(value) ? value : { value });
    else item[rest.slice(dot + 1)] = value;
    byIndex.set(index, item);
  }
  if (byIndex.size === 0) return null;
  return { items: [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, item]) => item) };
}
