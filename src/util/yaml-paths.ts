/**
 * Locating a zod issue in a YAML document: the node an issue's path names (or its closest existing
 * parent), a map key's own position, and the dotted field name used in `file:line: field: message`.
 * Shared by the sources file and the run config loaders.
 */
import { type Document, isMap, isPair, isScalar, type Node } from 'yaml';
import type { z } from 'zod';

export type PathKey = string | number;

/** The start offset of the deepest node on `path` that exists: the node itself, else its closest parent. */
export function nearestOffset(yaml: Document, path: readonly PathKey[]): number {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = depth === 0 ? yaml.contents : yaml.getIn(path.slice(0, depth), true);
    const range = (node as Node | null | undefined)?.range;
    if (range) return range[0];
  }
  return 0;
}

/** The start offset of `key` itself in the map at `path`, if that map has the key. */
export function keyOffset(yaml: Document, path: readonly PathKey[], key: string): number | undefined {
  const map = path.length === 0 ? yaml.contents : yaml.getIn(path, true);
  if (!isMap(map)) return undefined;
  const pair = map.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key);
  return isScalar(pair?.key) ? pair.key.range?.[0] : undefined;
}

/** `documents[3].sha256`-style name of a path; `(root)` for the document itself. */
export function fieldName(path: readonly PathKey[]): string {
  if (path.length === 0) return '(root)';
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}

/** A schema problem located in its YAML file. */
export interface LocatedIssue {
  file: string;
  line: number;
  field: string;
  message: string;
}

/**
 * Where a zod issue sits in the YAML it was parsed from: an unknown key at the key's own line, a
 * missing field at its parent's, anything else at the node itself.
 */
export function locateIssue(
  issue: z.core.$ZodIssue,
  yaml: Document,
  file: string,
  lineOf: (offset: number) => number,
): LocatedIssue[] {
  const path = issue.path.filter((k): k is PathKey => typeof k !== 'symbol');
  if (issue.code === 'unrecognized_keys')
    return issue.keys.map((key) => ({
      file,
      line: lineOf(keyOffset(yaml, path, key) ?? nearestOffset(yaml, path)),
      field: fieldName([...path, key]),
      message: 'unknown field',
    }));
  const present = yaml.getIn(path, true) !== undefined;
  const expected = issue.code === 'invalid_type' ? `expected ${issue.expected}` : issue.message;
  const message =
    present || issue.code === 'custom' ? issue.message : `required field is missing (${expected})`;
  return [{ file, line: lineOf(nearestOffset(yaml, path)), field: fieldName(path), message }];
}
