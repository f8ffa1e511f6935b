/**
 * The two offline judge families. Both fill the verdict schema a live judge fills and reply with it as
 * JSON text; they differ in method (numeric: figures and names; lexical: words and phrases) so that
 * their agreement is informative. See numeric.ts and lexical.ts.
 */

import { HEURISTIC_JUDGES } from '../../providers/catalogue.ts';
import { RgeError } from '../../util/errors.ts';
import type { HeuristicJudge } from './common.ts';
import { lexicalJudge } from './lexical.ts';
import { numericJudge } from './numeric.ts';

export { HeuristicJudge, type VerdictFn } from './common.ts';
export { LEXICAL_JUDGE_FAMILY, LEXICAL_JUDGE_ID, lexicalJudge, lexicalVerdict } from './lexical.ts';
export { NUMERIC_JUDGE_FAMILY, NUMERIC_JUDGE_ID, numericJudge, numericVerdict } from './numeric.ts';

export { HEURISTIC_JUDGES };
export type HeuristicJudgeName = (typeof HEURISTIC_JUDGES)[number];

/** A heuristic judge by its config model name (`judges[].model` with provider heuristic). */
export function heuristicJudge(name: HeuristicJudgeName | string): HeuristicJudge {
  if (name === 'numeric') return numericJudge();
  if (name === 'lexical') return lexicalJudge();
  throw new RgeError(`no heuristic judge ${name}: one of ${HEURISTIC_JUDGES.join(', ')}`);
}
