/**
 * A candidate's identity: content-addressed, so the same body from the same chunks is the same
 * candidate whichever generator or run wrote it.
 */
import canonicalizeModule from 'canonicalize';
import { sha256 } from '../../util/fs.ts';
import type { CandidateBody } from './candidate.ts';

// canonicalize is CommonJS (`module.exports = fn`) but declares an ES default export.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** `cand-` and the first 12 hex digits of SHA-256 over RFC 8785 canonical JSON of {body, source_chunk_ids}. */
export function candidateId(body: CandidateBody, sourceChunkIds: readonly string[]): string {
  const json = canonicalize({ body, source_chunk_ids: sourceChunkIds }) ?? 'null';
  return `cand-${sha256(json).slice(0, 12)}`;
}
