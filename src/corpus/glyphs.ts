/**
 * Glyphs that pdf.js reads as the wrong character, put right by the font they are set in.
 *
 * Indian reports set the rupee sign in small symbol fonts made before ₹ had a code point (2010):
 * "Rupee Foradian", "Rupee", "IndianRupee". Their ₹ glyph sits on the backtick key, and their
 * ToUnicode/encoding says so, so pdf.js faithfully reports "`" ("`41,599.84 lakhs"); a glyph such a
 * font leaves unmapped comes out as U+FFFD. In a rupee font both are the rupee sign: the fonts carry
 * digits and letters too, which map correctly and are left alone.
 *
 * Bullet fonts (Wingdings, Webdings, Zapf Dingbats, Symbol) draw list bullets, check marks and arrows
 * whose codes pdf.js reports as private-use characters (U+F0xx) or U+FFFD; they become "•".
 *
 * The font is known by its PDF name (the subset prefix "ABCDEF+" dropped), not guessed from the text:
 * a backtick in any other font stays a backtick.
 */

/** A font whose ₹ glyph is read as a backtick or as U+FFFD. */
const RUPEE_FONT = /rupee|foradian/i;
/** A font of symbols drawn as bullets, ticks and arrows. */
const BULLET_FONT = /wingding|webding|dingbat|^symbol(?:mt)?(?:[-,]|$)/i;

const RUPEE_MISREAD = /[`\ufffd]/g;
const BULLET_MISREAD = /[\ue000-\uf8ff\ufffd]/g;

/** Characters that, in some font, may stand for a misread glyph: a page without them needs no font names. */
export const SUSPECT_GLYPH = /[`\ue000-\uf8ff\ufffd]/;

export const RUPEE_SIGN = '₹';
export const BULLET = '•';

/** The font's name without its subset tag: "WXJBYQ+IndianRupee-Regular" -> "IndianRupee-Regular". */
export function baseFontName(name: string): string {
  return name.replace(/^[A-Z]{6}\+/, '');
}

export type GlyphFont = 'rupee' | 'bullet' | 'text';

export function glyphFont(fontName: string): GlyphFont {
  const base = baseFontName(fontName);
  if (RUPEE_FONT.test(base)) return 'rupee';
  if (BULLET_FONT.test(base)) return 'bullet';
  return 'text';
}

/** A text run's string with the glyphs its font is known to misread put right. */
export function repairGlyphs(text: string, fontName: string | null | undefined): string {
  if (!fontName) return text;
  switch (glyphFont(fontName)) {
    case 'rupee':
      return text.replace(RUPEE_MISREAD, RUPEE_SIGN);
    case 'bullet':
      return text.replace(BULLET_MISREAD, BULLET);
    default:
      return text;
  }
}
