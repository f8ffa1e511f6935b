/**
 * Refusal and hedging in an answer. Pure functions; no I/O.
 *
 * A refusal declines or abstains ("the documents do not state ...", "not mentioned", "cannot be
 * determined from the context", "I don't know", "no information ..."). An answer that declines one
 * thing but goes on to give a figure is not a refusal: a clause without a refusal cue that states a
 * quantity means the answer answered (rightly or wrongly), and calibration judges that, not this.
 */
import { extractQuantities } from './numbers.ts';
import { sentences } from './sentences.ts';

const VERBS_OF_STATING =
  '(?:state|states|stated|mention|mentions|mentioned|disclose|discloses|disclosed|provide|provides|provided|contain|contains|include|includes|specify|specifies|specified|report|reports|reported|give|gives|given|say|says|list|lists|cover|covers|show|shows|indicate|indicates)';

/** Phrases that decline or abstain. Case-insensitive. */
const REFUSAL_CUES: readonly RegExp[] = [
  new RegExp(
    `\\b(?:does|do|did)\\s*(?:not|n['’]t)\\s+(?:explicitly\\s+|directly\\s+|specifically\\s+)?${VERBS_OF_STATING}\\b`,
    'i',
  ),
  /\bnot\s+(?:explicitly\s+|directly\s+|specifically\s+|separately\s+)?(?:mentioned|stated|disclosed|specified|provided|available|reported|given|found|included|covered|contained|present)\s+(?:in|by|within|among)\b/i,
  /\bis\s+not\s+(?:mentioned|stated|disclosed|specified|available|reported|given)\b/i,
  /\bare\s+not\s+(?:mentioned|stated|disclosed|specified|available|reported|given)\b/i,
  /\b(?:cannot|can\s*not|can['’]t|could\s+not|couldn['’]t|unable\s+to|not\s+possible\s+to)\s+(?:be\s+)?(?:determine|determined|answer|answered|find|found|locate|located|confirm|confirmed|identify|identified|provide|provided|verify|verified|infer|inferred|say|tell|derive|derived|calculate|calculated)\b/i,
  /\bI\s+(?:do\s+not|don['’]t)\s+know\b/i,
  /\bI\s+am\s+not\s+able\s+to\b/i,
  /\b(?:no|not\s+enough|insufficient)\s+(?:relevant\s+|such\s+|specific\s+)?(?:information|data|evidence|details?|figures?|mention|disclosure|context)\b/i,
  /\b(?:information|figure|data)\s+(?:is|are)\s+(?:not\s+available|unavailable|missing|absent)\b/i,
  /\b(?:must|have\s+to|will|should|would)\s+decline\b/i,
  /\bdecline\s+to\s+answer\b/i,
  /\b(?:outside|beyond)\s+(?:the\s+)?(?:scope|provided\s+context|context|documents)\b/i,
  /\bnot\s+(?:in|covered\s+by)\s+the\s+(?:provided\s+)?(?:context|documents?|excerpts?|passages?|reports?|sources?)\b/i,
];

export function hasRefusalCue(text: string): boolean {
  return REFUSAL_CUES.some((re) => re.test(text));
}

/** Clauses: sentences, then ';', ' but ', 'however', 'although' and 'though' boundaries. */
function clauses(text: string): string[] {
  return sentences(text, { lines: true })
    .flatMap((s) =>
      s.split(/;|,?\s+but\s+|,?\s+however,?\s+|\bhowever,\s+|,?\s+(?:although|though|whereas)\s+/i),
    )
    .map((c) => c.trim())
    .filter((c) => c.length > 0);
}

/**
 * Whether the answer declines or abstains: it carries a refusal cue and no clause free of a refusal cue
 * states a quantity. An empty answer is not a refusal (it is a failed reply, recorded as such elsewhere).
 */
export function isRefusal(answer: string): boolean {
  const text = answer.trim();
  if (text.length === 0 || !hasRefusalCue(text)) return false;
  for (const clause of clauses(text)) {
    if (hasRefusalCue(clause)) continue;
    if (extractQuantities(clause).length > 0) return false;
  }
  return true;
}

/** Hedges that on their own express heavy uncertainty (weight 3). */
const STRONG_HEDGES: readonly RegExp[] = [
  /\bI\s*(?:am|'m|’m)\s+not\s+(?:sure|certain|confident)\b/gi,
  /\b(?:cannot|can['’]t|could\s+not)\s+be\s+(?:certain|sure)\b/gi,
  /\b(?:it\s+is\s+|it['’]s\s+)?(?:unclear|uncertain)\b/gi,
  /\bhard\s+to\s+(?:say|tell|know)\b/gi,
  /\bI\s+(?:guess|suspect)\b/gi,
  /\bmy\s+best\s+guess\b/gi,
  /\bnot\s+(?:entirely\s+)?(?:sure|certain|clear)\b/gi,
  /\bmay\s+or\s+may\s+not\b/gi,
];

/** Milder hedges (weight 1). "about/around" count only before a figure; "may" never as the month. */
const WEAK_HEDGES: readonly RegExp[] = [
  /\b(?:approximately|approx\.?|roughly|nearly|almost|some)\s+(?=[\d₹$]|Rs\b|INR\b|USD\b)/gi,
  /\b(?:about|around|close\s+to|over|under|circa|~)\s*(?=[\d₹$]|Rs\b|INR\b|USD\b)/gi,
  /\b(?:may|might|could)\b(?!\s+\d)/g,
  /\b(?:appears?|appeared|seems?|seemed)\b/gi,
  /\b(?:likely|probably|presumably|apparently|reportedly|possibly|perhaps)\b/gi,
  /\bI\s+(?:think|believe)\b/gi,
  /\b(?:estimated?|estimates?)\s+(?:at\s+|to\s+be\s+)?(?=[\d₹$]|Rs\b|INR\b|USD\b)/gi,
  /\b(?:suggests?|indicat(?:es|ing)\s+that)\b/gi,
  /\bif\s+I\s+(?:understand|read)\b/gi,
];

/**
 * How much the answer hedges: the sum of cue weights (strong 3, weak 1); 0 when there are none, 1 for a
 * total of 1 or 2 (e.g. one "approximately"), 2 for 3 or more (one strong cue such as "I'm not sure" or
 * "it is unclear", or three weak ones such as "it appears ... may ... approximately").
 */
export function hedgeLevel(answer: string): 0 | 1 | 2 {
  let weight = 0;
  for (const re of STRONG_HEDGES) weight += 3 * (answer.match(re)?.length ?? 0);
  for (const re of WEAK_HEDGES) weight += answer.match(re)?.length ?? 0;
  if (weight === 0) return 0;
  return weight >= 3 ? 2 : 1;
}
