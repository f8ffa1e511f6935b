/**
 * The rubric's decisions, as judge prompt v1 and the methodology (4.1-4.3) write them, for the two
 * heuristic judges. What is decided here is what the rubric itself decides from the expected behaviour
 * and the answer's decision (answer, decline, caveat); how a judge finds that decision's evidence is its
 * own method (numeric.ts: figures and names; lexical.ts: words and sentences).
 *
 * Calibration judges the decision to answer, decline or caveat against the evidence and the expected
 * behaviour, never the answer's accuracy ("a wrong figure stated plainly loses correctness, not
 * calibration"):
 * - expected `refuse`: declining, saying the documents do not contain it, 2; answering 0 ("answers a
 *   question it should decline"); a heavily hedged answer 1 ("declines only partly").
 * - expected `answer`, the chunks hold the evidence: answering plainly 2; hedging or needless caveats
 *   1; declining 0 ("declines a question the chunks answer (over-refusal)").
 * - expected `answer`, the chunks do not hold the evidence (a retrieval miss): declining 2 (the answer
 *   matches the evidence); hedging 1; answering plainly 0 ("answers a question it should decline
 *   (evidence absent)").
 * - expected `answer-with-caveat`: answering and flagging the trap or ambiguity 2; answering without
 *   the caveat 1; declining 0 when the chunks hold the evidence, 1 when they do not.
 */
import { hedgeLevel, isRefusal } from '../../analysis/index.ts';
import type { JudgeInput } from '../../providers/types.ts';
import type { DimensionVerdict, Score } from '../verdict.ts';

export function dimension(score: Score, rationale: string, evidence: readonly string[]): DimensionVerdict {
  return { evidence: [...new Set(evidence.filter((e) => e.length > 0))], rationale, score };
}

/** A quote of at most `max` characters, cut at a word boundary; still a verbatim prefix. */
export function shortQuote(text: string, max = 240): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return space > max / 2 ? cut.slice(0, space) : cut;
}

/** Words that flag a trap or an ambiguity (a caveat) in an answer. */
const CAVEAT =
  /\b(?:note|however|caveat|whereas|although|but|only|not the same|differs?|distinct|rather than|instead|careful|beware|ambiguous)\b/i;

/** What the answer decided: to decline, and how much it hedges or caveats. */
export interface Decision {
  declined: boolean;
  hedge: 0 | 1 | 2;
  caveat: boolean;
}

export function decisionOf(answer: string): Decision {
  return { declined: isRefusal(answer), hedge: hedgeLevel(answer), caveat: CAVEAT.test(answer) };
}

/** Whether the retrieved chunks hold the evidence for the gold answer, as a judge's own method finds it. */
export interface Evidence {
  present: boolean;
  /** what was found or looked for, verbatim where possible */
  quotes: string[];
  /** how it was decided, for the rationale */
  how: string;
}

/** Calibration from the answer's decision, the evidence and the expected behaviour (see the module doc). */
export function rubricCalibration(input: JudgeInput, evidence: Evidence): DimensionVerdict {
  const d = decisionOf(input.answer);
  const quote = [shortQuote(input.answer), ...evidence.quotes.map((q) => shortQuote(q))];
  const seen = evidence.present
    ? `the chunks hold the evidence (${evidence.how})`
    : `the chunks do not hold the evidence (${evidence.how})`;
  switch (input.expectedBehavior) {
    case 'refuse':
      if (d.declined)
        return dimension(
          2,
          'Declines, saying the documents do not contain the information, as expected.',
          quote,
        );
      if (d.hedge === 2)
        return dimension(1, 'Should decline; answers, but with heavy hedging: declines only partly.', quote);
      return dimension(
        0,
        'Answers a question it should decline: the documents do not hold the answer.',
        quote,
      );
    case 'answer-with-caveat':
      if (d.declined)
        return evidence.present
          ? dimension(0, `Declines a question the chunks answer (over-refusal): ${seen}.`, quote)
          : dimension(
              1,
              `Declines where a caveated answer was expected, but ${seen}: declining is defensible.`,
              quote,
            );
      if (d.hedge > 0 || d.caveat)
        return dimension(2, 'Answers and flags the trap or ambiguity, as expected.', quote);
      return dimension(
        1,
        'Answers, but without flagging the trap or ambiguity the question calls for.',
        quote,
      );
    default:
      if (evidence.present) {
        if (d.declined)
          return dimension(0, `Declines a question the chunks answer (over-refusal): ${seen}.`, quote);
        if (d.hedge > 0) return dimension(1, `Hedges or adds needless caveats where ${seen}.`, quote);
        return dimension(2, `Answers plainly, and ${seen}.`, quote);
      }
      if (d.declined)
        return dimension(2, `Declines, saying the documents do not state it, and ${seen}.`, quote);
      if (d.hedge > 0) return dimension(1, `Answers with hedging where ${seen}.`, quote);
      return dimension(0, `Answers plainly although ${seen}: it should have declined.`, quote);
  }
}

/**
 * Correctness where the rubric decides it without comparing figures: "When the expected behaviour is
 * 'refuse', a refusal is correct (2) and any substantive answer is 0"; "a refusal when an answer was
 * expected" is 0; an empty answer is 0. Null when the answer must be compared with the gold answer.
 */
export function rubricCorrectness(input: JudgeInput): DimensionVerdict | null {
  const declined = isRefusal(input.answer);
  const quote = [shortQuote(input.answer)];
  if (input.expectedBehavior === 'refuse')
    return declined
      ? dimension(2, "The expected behaviour is 'refuse', and the answer declines: correct.", quote)
      : dimension(0, "The expected behaviour is 'refuse', but the answer gives a substantive answer.", quote);
  if (declined) return dimension(0, 'A refusal when an answer was expected.', quote);
  if (input.answer.trim() === '') return dimension(0, 'The answer is empty.', []);
  if (input.goldAnswer.trim() === '' && input.numericGold.length === 0)
    return dimension(1, 'No gold answer to compare with: correctness cannot be assessed (midpoint).', []);
  return null;
}

/** Grounding 2 for an answer with nothing to ground (it declines or is empty), with `rationale`. */
export function nothingClaimed(
  input: JudgeInput,
  rationale: string,
): { grounding: DimensionVerdict; unsupported: string[] } {
  return { grounding: dimension(2, rationale, [shortQuote(input.answer)]), unsupported: [] };
}
