/**
 * Citation markers and atomic claims of an answer. Pure functions; no I/O.
 *
 * A citation marker is a bracketed list of chunk ids, "[reliance-FY24-1a2b3c4d]" or "[a-FY24-1, b-FY23-2]";
 * an id holds a digit or a hyphen, so "[sic]" and markdown links "[text](url)" are not citations.
 *
 * An atomic claim is a sentence, split further at ';' and at a clause-level ' and ' / ' while ' when both
 * sides carry a verb or a figure ("Revenue was Rs 10 crore and profit was Rs 2 crore" is two claims,
 * "Scope 1 and 2 emissions were ..." and "Research and development expenditure was ..." are one).
 */

import { citationPattern } from './citation.ts';
import { extractQuantities } from './numbers.ts';
import { isRefusal } from './refusal.ts';
import { sentences } from './sentences.ts';

/** A bracket whose content is a list of ids (src/analysis/citation.ts). */
const CITATION = citationPattern();

/** The ids inside citation markers, in order of appearance (repeats kept). */
export function citationMarkers(text: string): string[] {
  const ids: string[] = [];
  for (const m of text.matchAll(CITATION)) {
    for (const id of (m[1] ?? '').split(/\s*[,;]\s*/)) if (id.length > 0) ids.push(id);
  }
  return ids;
}

/** The text without its citation markers, spaces tidied ("crore [id]." -> "crore."). */
export function stripCitations(text: string): string {
  return text
    .replace(CITATION, '')
    .replace(/[ \t]+([.,;:!?)])/g, '$1')
    .replace(/\([ \t]*\)/g, '')
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** A claim with the ids it cites (its own markers, else its sentence's). */
export interface CitedClaim {
  text: string;
  citations: string[];
}

/** Verbs that make a clause a claim in annual-report prose. */
const VERB =
  /\b(?:is|are|was|were|be|been|has|have|had|stood|stands|reported|reports|recorded|records|posted|rose|risen|fell|fallen|grew|grown|declined|increased|decreased|dropped|declared|recommended|paid|employed|employs|amounted|totalled|totaled|reached|generated|earned|expects|expected|focused|remains|remained|reduced|improved|came|comes|shows|showed|includes|included|holds|held|made|achieved|registered|incurred|spent|contributed|accounted|attributable|are|serves|chairs|audits)\b/i;

const hasVerbOrFigure = (s: string): boolean => VERB.test(s) || extractQuantities(s).length > 0;

/** Split a sentence at clause-level ' and ' / ' while ' where both sides carry a verb or a figure. */
function splitConjunctions(sentence: string): string[] {
  const re = /,?\s+(?:and|while|whereas)\s+/gi;
  for (const m of sentence.matchAll(re)) {
    const left = sentence.slice(0, m.index);
    const right = sentence.slice(m.index + m[0].length);
    if (hasVerbOrFigure(left) && hasVerbOrFigure(right)) {
      return [left, ...splitConjunctions(right)];
    }
  }
  return [sentence];
}

/** Drop parentheses left unmatched by a split: "crore (HDFC Bank Limited: Rs 2 crore" loses its "(". */
function balanceParentheses(s: string): string {
  const chars = [...s];
  const open: number[] = [];
  const drop = new Set<number>();
  chars.forEach((c, i) => {
    if (c === '(') open.push(i);
    else if (c === ')') {
      if (open.length > 0) open.pop();
      else drop.add(i);
    }
  });
  for (const i of open) drop.add(i);
  return chars.filter((_, i) => !drop.has(i)).join('');
}

const tidy = (s: string): string =>
  balanceParentheses(s)
    .replace(/^[\s,;:]+|[\s,;:]+$/g, '')
    .replace(/^(?:and|while|whereas|but)\s+/i, '')
    .replace(/\s{2,}/g, ' ')
    .trim();

/**
 * Atomic claims with their citations. A refusal makes no claim: an answer that declines (src/analysis
 * refusal.ts: a refusal cue and no other clause stating a figure) has none, however it explains itself;
 * in an answer that also answers, the declining fragments are dropped. Empty fragments are dropped.
 */
export function splitCitedClaims(answer: string): CitedClaim[] {
  const out: CitedClaim[] = [];
  // A refusal that explains itself ("... does not state X. I will not guess.") asserts nothing.
  if (isRefusal(answer)) return [];
  for (const sentence of sentences(answer, { lines: true })) {
    const sentenceIds = citationMarkers(sentence);
    for (const part of sentence.split(';')) {
      for (const fragment of splitConjunctions(part)) {
        const own = citationMarkers(fragment);
        const text = tidy(stripCitations(fragment));
        if (!/[\p{L}\p{N}]/u.test(text) || isRefusal(text)) continue;
        out.push({ text, citations: own.length > 0 ? own : sentenceIds });
      }
    }
  }
  return out;
}

/** Atomic claims of an answer, citation markers stripped; refusals and empty fragments dropped. */
export function splitClaims(answer: string): string[] {
  return splitCitedClaims(answer).map((c) => c.text);
}
