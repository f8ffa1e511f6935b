/**
 * `offline/eager`: a deterministic BASELINE subject, not a model. It never abstains: it answers with the
 * first sentence of the top-ranked chunk that states a figure (preferring, among those, the one sharing
 * the most question words), ignoring company and period, and cites it. This is the familiar RAG failure
 * mode: confident answers to out-of-domain questions, and the wrong one of two neighbouring figures
 * (interim for final, quarter for year, the other fiscal year) when a distractor sits next to the answer.
 *
 * Usage is approximate: tokens are characters / 4; cost is 0; latency is measured.
 */
import { hasFigure } from '../../analysis/numbers.ts';
import { type ChunkSentence, chunkSentences } from '../../analysis/sentences.ts';
import { baselineWords } from '../../analysis/tokens.ts';
import type { ModelRequest, SubjectInput } from '../types.ts';
import { EAGER_FAMILY, OfflineSubject } from './common.ts';

/** The eager answer: the top chunk's first sentence with a figure, preferring the most question words. */
export function eagerAnswer(input: SubjectInput): string {
  const words = baselineWords(input.question);
  for (const [rank, chunk] of input.chunks.entries()) {
    const withFigure = chunkSentences(chunk, rank).filter((s) => hasFigure(s.text));
    if (withFigure.length === 0) continue;
    const overlap = (s: ChunkSentence) => [...baselineWords(s.text)].filter((w) => words.has(w)).length;
    const best = withFigure.reduce((a, b) => (overlap(b) > overlap(a) ? b : a));
    return `${best.text} [${best.chunkId}]`;
  }
  const first = input.chunks[0];
  const fallback = first ? chunkSentences(first, 0)[0] : undefined;
  return fallback ? `${fallback.text} [${fallback.chunkId}]` : 'The answer is 0.';
}

export class EagerProvider extends OfflineSubject {
  constructor(opts: { family?: string } = {}) {
    // version v2: the shared sentence splitter and words (src/analysis); v3: cites only when the prompt asks
    super({ id: 'offline/eager', version: 'v3', model: 'eager' }, opts.family ?? EAGER_FAMILY);
  }

  protected answer(_request: ModelRequest, input: SubjectInput): string {
    return eagerAnswer(input);
  }
}
