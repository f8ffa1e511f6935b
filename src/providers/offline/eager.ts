/**
 * `offline/eager`: a deterministic BASELINE subject, not a model. It never abstains: it answers with the
 * first sentence of the top-ranked chunk that states a figure (preferring, among those, the one sharing
 * the most question words), ignoring company and period, and cites it. This is the familiar RAG failure
 * mode: confident answers to out-of-domain questions, and the wrong one of two neighbouring figures
 * (interim for final, quarter for year, the other fiscal year) when a distractor sits next to the answer.
 *
 * Usage is approximate: tokens are characters / 4; cost is 0; latency is measured.
 */
import type { ModelReply, ModelRequest, Provider, SubjectInput } from '../types.ts';
import { asksToCite, EAGER_FAMILY, reply, subjectInput, withoutCitations } from './common.ts';
import { baselineWords, chunkSentences, hasFigure, type Sentence } from './text.ts';

/** The eager answer: the top chunk's first sentence with a figure, preferring the most question words. */
export function eagerAnswer(input: SubjectInput): string {
  const words = baselineWords(input.question);
  for (const [rank, chunk] of input.chunks.entries()) {
    const withFigure = chunkSentences(chunk, rank).filter((s) => hasFigure(s.text));
    if (withFigure.length === 0) continue;
    const overlap = (s: Sentence) => [...baselineWords(s.text)].filter((w) => words.has(w)).length;
    const best = withFigure.reduce((a, b) => (overlap(b) > overlap(a) ? b : a));
    return `${best.text} [${best.chunkId}]`;
  }
  const first = input.chunks[0];
  const fallback = first ? chunkSentences(first, 0)[0] : undefined;
  return fallback ? `${fallback.text} [${fallback.chunkId}]` : 'The answer is 0.';
}

export class EagerProvider implements Provider {
  readonly id = 'offline/eager';
  /** bump when the baseline's answers may change */
  /** v2: the shared sentence splitter and words (src/analysis); v3: cites only when the prompt asks */
  readonly version = 'v3';
  readonly family: string;

  constructor(opts: { family?: string } = {}) {
    this.family = opts.family ?? EAGER_FAMILY;
  }

  async complete(request: ModelRequest): Promise<ModelReply> {
    const started = performance.now();
    const input = subjectInput(request, this.id);
    const answer = eagerAnswer(input);
    return reply(
      request,
      asksToCite(request, input) ? answer : withoutCitations(answer, input),
      'eager',
      started,
    );
  }
}
