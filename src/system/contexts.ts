/**
 * A system's own contexts as rge's judges, checks and labelling page read passages (`ContextChunk`):
 * the system's id and text, its source and score; no company or fiscal year of rge's corpus, and pages
 * [0, 0] when the system names no page.
 */
import type { ContextChunk } from '../providers/types.ts';
import type { SystemContext } from './contract.ts';

export function contextChunkOf(c: SystemContext): ContextChunk {
  return {
    id: c.id,
    company: '',
    fy: null,
    heading: null,
    pages: c.page === undefined ? [0, 0] : [c.page, c.page],
    text: c.text,
    ...(c.source !== undefined ? { source: c.source } : {}),
    ...(c.score !== undefined ? { score: c.score } : {}),
  };
}
