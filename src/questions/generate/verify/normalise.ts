/**
 * The normal form a gold quote is looked for in: what a faithful copy of a passage may change without
 * changing a word. Case is folded; ligatures and compatibility forms are unfolded (NFKC: "ﬁ" -> "fi");
 * curly quotes and primes become straight ones, dashes and minus signs a hyphen; a hyphen between
 * letters is dropped together with any space after it (so "self-\nservice", "self- service" and
 * "self-service" all read "selfservice", as a word hyphenated across lines must); soft hyphens and
 * zero-width characters are dropped; every run of whitespace is one space, none at either end.
 *
 * `normaliseWithMap` also gives, for every character of the normal form, the offset of the character
 * of the original it came from, so a match is mapped back to a span of the original text. Pure.
 */

const QUOTES: Record<string, string> = {
  '\u2018': "'",
  '\u2019': "'",
  '\u201a': "'",
  '\u201b': "'",
  '\u2032': "'",
  '\u00b4': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u201f': '"',
  '\u2033': '"',
  '\u00ab': '"',
  '\u00bb': '"',
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2212': '-',
};
/** soft hyphen, zero-width space, non-joiner, joiner, word joiner, byte-order mark */
const DROPPED = new Set(['\u00ad', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff']);
const SPACE = /\s/;
const LETTER = /\p{L}/u;

/** One character in its normal form (possibly several characters, possibly none). */
function fold(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 128) {
    // ASCII needs no compatibility decomposition: whitespace, the backtick, case
    if (code === 32 || (code >= 9 && code <= 13)) return ' ';
    if (code === 96) return "'";
    return code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : c;
  }
  if (DROPPED.has(c)) return '';
  const q = QUOTES[c];
  if (q !== undefined) return q;
  if (SPACE.test(c)) return ' ';
  return c.normalize('NFKC').toLowerCase();
}

export interface Normalised {
  text: string;
  /** `map[i]` is the offset in the original of the character `text[i]` came from (with a final entry: the original's length) */
  map: Int32Array | null;
}

/** The normal form of `text`; with `withMap`, the offsets back into the original. */
export function normaliseWithMap(text: string, withMap: boolean): Normalised {
  const out: string[] = [];
  const map: number[] = [];
  let pendingSpace = -1;
  let pendingHyphen = -1;
  for (let i = 0; i < text.length; i++) {
    const f = fold(text[i] as string);
    if (f === '') continue;
    if (f === ' ') {
      if (pendingHyphen < 0 && pendingSpace < 0) pendingSpace = i;
      continue;
    }
    if (f === '-' && out.length > 0 && LETTER.test(out[out.length - 1] as string) && pendingSpace < 0) {
      pendingHyphen = i;
      continue;
    }
    if (pendingHyphen >= 0) {
      // a hyphen (and the space after it) between letters is dropped; before anything else it stays
      if (!LETTER.test(f[0] as string)) {
        out.push('-');
        if (withMap) map.push(pendingHyphen);
        if (pendingSpace >= 0 || SPACE.test(text.slice(pendingHyphen + 1, i))) {
          out.push(' ');
          if (withMap) map.push(pendingHyphen + 1);
        }
      }
      pendingHyphen = -1;
      pendingSpace = -1;
    }
    if (pendingSpace >= 0) {
      if (out.length > 0) {
        out.push(' ');
        if (withMap) map.push(pendingSpace);
      }
      pendingSpace = -1;
    }
    for (const ch of f) {
      out.push(ch);
      if (withMap) map.push(i);
    }
  }
  if (pendingHyphen >= 0) {
    out.push('-');
    if (withMap) map.push(pendingHyphen);
  }
  if (withMap) map.push(text.length);
  return { text: out.join(''), map: withMap ? Int32Array.from(map) : null };
}

/** The normal form alone. */
export function normaliseQuote(text: string): string {
  return normaliseWithMap(text, false).text;
}

/**
 * The span [start, end) of the original that the normal form's [from, to) came from: from the first
 * matched character's offset to just after the last one's.
 */
export function originalSpan(n: Normalised, from: number, to: number, original: string): [number, number] {
  if (!n.map) throw new Error('originalSpan needs a normal form made with its map');
  const start = n.map[from] as number;
  const last = n.map[to - 1] as number;
  // a character outside the BMP is two code units of the original
  const code = original.charCodeAt(last);
  const end = code >= 0xd800 && code <= 0xdbff ? last + 2 : last + 1;
  return [start, end];
}
