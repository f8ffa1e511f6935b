/** Canonical JSON (RFC 8785) and the identity hash over it: what every content-addressed key of rge hashes. */
import canonicalizeModule from 'canonicalize';
import { sha256 } from './fs.ts';

// canonicalize is CommonJS (`module.exports = fn`) but declares an ES default export.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** A JSON value as RFC 8785 canonical JSON (what `identityHash` hashes). */
export function canonicalJson(value: unknown): string {
  return canonicalize(value) ?? 'null';
}

/** A stable hash of a JSON value (RFC 8785 canonical JSON, then SHA-256). */
export function identityHash(value: unknown): string {
  return sha256(canonicalJson(value));
}
