import type { Chunk } from '../../src/corpus/schema.ts';
import { sha1 } from '../../src/util/fs.ts';
import { runRge } from '../helpers/cli.ts';

/** Runs `rge ...` (the questions tests pass 'questions' first) through the real CLI entry. */
export const rgeQuestions = runRge;

/** A hand-made chunk with a proper id ({company}-{fy}-{sha1[:8]}). */
export function chunk(company: string, fy: string, pages: [number, number], text: string): Chunk {
  return {
    id: `${company}-${fy}-${sha1(`${company}\0${fy}\0${text}`).slice(0, 8)}`,
    company,
    fy,
    source: `${company}-${fy}.pdf`,
    heading: null,
    pages,
    tokens: Math.max(1, Math.ceil(text.length / 4)),
    text,
  };
}
