/**
 * rge's edits to pdf.js's two built modules, pdfjs-dist's build/pdf.worker.mjs (WORKER_EDITS) and
 * build/pdf.mjs (MAIN_EDITS): each a text to find exactly once and the text to put in its place, in the
 * order they are applied. pdfjs-patches.ts applies them and writes and loads the patched copies
 * (docs/adr/0024-pdfjs-patched-copies.md).
 *
 * Why: in a CPU profile of a corpus worker on the synthetic reports, pdf.js's text layer spends most of
 * its time per glyph, and its first cost was the matrices it allocates for every glyph: each glyph
 * builds the text rendering matrix twice (`getCurrentTextTransform`, once to compare the glyph's
 * position with the last one and once to remember it), each build allocating three 6-element arrays
 * through two `Util.transform` calls, and the garbage collector then reclaiming them. The worker edits
 * compute the same matrix with the same floating-point operations in the same order (so every number is
 * the same, bit for bit) with no intermediate array, into a scratch array where the matrix is only
 * read, and into the array it replaces where it is kept (copied when it leaves as a whitespace item's
 * transform); a text style also names its font as the PDF does, for glyph repair (pdf.ts). The API
 * edit hands text content over without a structured clone, and copies every other plain message in
 * JavaScript (MAIN_EDITS).
 *
 * Three edits are for memory (a corpus thread's peak, docs/adr/0019): a font no longer keeps the glyph
 * array of every string it has shown (about 23 KB a synthetic page, kept until the range closes, so
 * promoted to the old generation; its glyphs by character code stay cached, and the time was the
 * same within noise); the document's bytes are handed to the parser uncloned, so that pdf.ts can free
 * them when the range closes; and the API module builds its one load-time `DOMMatrix` when it first
 * draws, so that a thread that only reads text never loads @napi-rs/canvas (pdfjs.ts).
 * Later edits for time (docs/adr/0024, amendments of 2026-12-03): a font that the call has already
 * loaded by reference is set at once when the font cache still holds the same promise for it (pages
 * written by PDFKit set the font on every line, and each `Tf` was an async round trip through
 * `loadFont`); a string's glyphs go into one array the call reuses; a string with no character at or
 * above U+0590 skips the bidi classification (none of its characters can be R, AL or AN); hex strings
 * are decoded by Node's Latin-1 slice (each byte the code point of its value, as
 * `String.fromCharCode`); a reference makes its string (its key in every cache keyed by reference)
 * once. How they were measured (instruction counts, not wall time) and what each gave: the ADR, which
 * also names the edit dropped because it measured within noise (a hex string read straight from a
 * decoded stream's buffer).
 * test/corpus/pdfjs-patches-compare.test.ts compares the text items of the patched and the original
 * code, every field, and a drawing, on hand-made pages, fixtures and generated reports, and checks by
 * V8's block coverage that every edit's new code ran there (and compares real filings with ../shared).
 */

export interface SourceEdit {
  /** what it does, for the error when its text is not found */
  name: string;
  find: string;
  replace: string;
}

const TRANSFORM_ORIGINAL = `    function getCurrentTextTransform() {
      const font = textState.font;
      const tsm = [textState.fontSize * textState.textHScale, 0, 0, textState.fontSize, 0, textState.textRise];
      if (font.isType3Font && (textState.fontSize <= 1 || font.isCharBBox) && !isArrayEqual(textState.fontMatrix, FONT_IDENTITY_MATRIX)) {
        const glyphHeight = font.bbox[3] - font.bbox[1];
        if (glyphHeight > 0) {
          tsm[3] *= glyphHeight * textState.fontMatrix[3];
        }
      }
      return Util.transform(textState.ctm, Util.transform(textState.textMatrix, tsm));
    }`;

// Util.transform(m1, m2) is [m1[0] * m2[0] + m1[2] * m2[1], m1[1] * m2[0] + m1[3] * m2[1],
// m1[0] * m2[2] + m1[2] * m2[3], m1[1] * m2[2] + m1[3] * m2[3], m1[0] * m2[4] + m1[2] * m2[5] + m1[4],
// m1[1] * m2[4] + m1[3] * m2[5] + m1[5]]; the same terms in the same order, the zeros of tsm included
// (x * 0 is not always 0: NaN, -0), first with m1 = textMatrix and m2 = tsm, then m1 = ctm.
const TRANSFORM_PATCHED = `    function getCurrentTextTransform(out) {
      const font = textState.font;
      const s0 = textState.fontSize * textState.textHScale, s1 = 0, s2 = 0, s4 = 0, s5 = textState.textRise;
      let s3 = textState.fontSize;
      if (font.isType3Font && (textState.fontSize <= 1 || font.isCharBBox) && !isArrayEqual(textState.fontMatrix, FONT_IDENTITY_MATRIX)) {
        const glyphHeight = font.bbox[3] - font.bbox[1];
        if (glyphHeight > 0) {
          s3 *= glyphHeight * textState.fontMatrix[3];
        }
      }
      const m = textState.textMatrix, c = textState.ctm;
      const i0 = m[0] * s0 + m[2] * s1, i1 = m[1] * s0 + m[3] * s1, i2 = m[0] * s2 + m[2] * s3, i3 = m[1] * s2 + m[3] * s3;
      const i4 = m[0] * s4 + m[2] * s5 + m[4], i5 = m[1] * s4 + m[3] * s5 + m[5];
      const r0 = c[0] * i0 + c[2] * i1, r1 = c[1] * i0 + c[3] * i1, r2 = c[0] * i2 + c[2] * i3, r3 = c[1] * i2 + c[3] * i3;
      const r4 = c[0] * i4 + c[2] * i5 + c[4], r5 = c[1] * i4 + c[3] * i5 + c[5];
      if (out === undefined) {
        return [r0, r1, r2, r3, r4, r5];
      }
      out[0] = r0;
      out[1] = r1;
      out[2] = r2;
      out[3] = r3;
      out[4] = r4;
      out[5] = r5;
      return out;
    }
    const scratchTextTransform = [0, 0, 0, 0, 0, 0];`;

/** The edits to pdfjs-dist 5.4.296's build/pdf.worker.mjs (the parser side), in the order they are applied. */
export const WORKER_EDITS: readonly SourceEdit[] = [
  {
    name: 'the text rendering matrix without intermediate arrays, optionally into a given array',
    find: TRANSFORM_ORIGINAL,
    replace: TRANSFORM_PATCHED,
  },
  {
    name: 'the glyph position compared through a scratch matrix (compareWithLastPosition only reads it)',
    find: `      const currentTransform = getCurrentTextTransform();
      let posX = currentTransform[4];`,
    replace: `      const currentTransform = getCurrentTextTransform(scratchTextTransform);
      let posX = currentTransform[4];`,
  },
  {
    name: "the last glyph's matrix kept in the array it replaces",
    find: `          textChunk.prevTransform = getCurrentTextTransform();`,
    replace: `          textChunk.prevTransform = getCurrentTextTransform(textChunk.prevTransform || undefined);`,
  },
  {
    name: "a whitespace item takes a copy of the last glyph's matrix, which is reused",
    find: `      textContent.items.push({
        str: " ",
        dir: "ltr",
        width,
        height,
        transform,
        fontName,`,
    replace: `      textContent.items.push({
        str: " ",
        dir: "ltr",
        width,
        height,
        transform: transform && transform === textContentItem.prevTransform ? transform.slice() : transform,
        fontName,`,
  },
  {
    name: "a text style names its font as the PDF does (rge's glyph repair reads it there)",
    find: `        textContent.styles[loadedName] = {
          fontFamily: font.fallbackName,
          ascent: font.ascent,`,
    replace: `        textContent.styles[loadedName] = {
          fontFamily: font.fallbackName,
          rgeFontName: typeof font.name === "string" ? font.name : null,
          ascent: font.ascent,`,
  },
  {
    name: 'a hex string collected in a reused byte buffer, not an array of one-character strings',
    find: `  getHexString() {
    const strBuf = this.strBuf;
    strBuf.length = 0;
    let ch = this.currentChar;`,
    replace: `  getHexString() {
    let bytes = this.rgeHexBytes ||= new Uint8Array(256);
    let n = 0;
    let ch = this.currentChar;`,
  },
  {
    name: "a hex string's byte goes into the buffer, which grows to keep a slot free for a last odd digit",
    find: `          strBuf.push(String.fromCharCode(firstDigit << 4 | digit));`,
    replace: `          if (n + 1 === bytes.length) {
            const grown = new Uint8Array(bytes.length * 2);
            grown.set(bytes);
            bytes = this.rgeHexBytes = grown;
          }
          bytes[n++] = firstDigit << 4 | digit;`,
  },
  {
    name: "a hex string's last odd digit goes into the buffer, and the string is made from the buffer",
    find: `    if (firstDigit !== -1) {
      strBuf.push(String.fromCharCode(firstDigit << 4));
    }
    return strBuf.join("");`,
    replace: `    if (firstDigit !== -1) {
      bytes[n++] = firstDigit << 4;
    }
    return rgeLatin1 ? rgeLatin1.call(bytes, 0, n) : bytesToString(bytes.subarray(0, n));`,
  },
  {
    name: "Node's Latin-1 decoder (each byte the code point of its value, as String.fromCharCode), where there is one",
    find: `    super(msg, "AbortException");
  }
}
function bytesToString(bytes) {`,
    replace: `    super(msg, "AbortException");
  }
}
const rgeLatin1 = globalThis.Buffer?.prototype.latin1Slice;
function bytesToString(bytes) {`,
  },
  {
    name: 'a saved text state is a copy of the current one, not an object whose prototype is the current one',
    find: `  clone() {
    const clone = Object.create(this);
    clone.textMatrix = this.textMatrix.slice();`,
    replace: `  clone() {
    const clone = Object.assign(new TextState(), this);
    clone.textMatrix = this.textMatrix.slice();`,
  },
  {
    name: 'a font this call has loaded by reference is remembered with the promise the font cache held for it',
    find: `    async function handleSetFont(fontName, fontRef) {
      const translated = await self.loadFont(fontName, fontRef, resources, task);
      textState.loadedName = translated.loadedName;
      textState.font = translated.font;
      textState.fontMatrix = translated.font.fontMatrix || FONT_IDENTITY_MATRIX;
    }`,
    replace: `    const rgeLoadedFonts = new Map();
    function rgeFontRef(fontName) {
      const ref = resources.get("Font")?.getRaw(fontName);
      return ref instanceof Ref && !self.type3FontRefs?.has(ref) ? ref : null;
    }
    function rgeLoadedFont(fontName) {
      const loaded = rgeLoadedFonts.get(fontName);
      if (!loaded) {
        return null;
      }
      const ref = rgeFontRef(fontName);
      return ref === loaded.ref && self.fontCache.get(ref) === loaded.promise ? loaded.translated : null;
    }
    function applyLoadedFont(translated) {
      textState.loadedName = translated.loadedName;
      textState.font = translated.font;
      textState.fontMatrix = translated.font.fontMatrix || FONT_IDENTITY_MATRIX;
    }
    async function handleSetFont(fontName, fontRef) {
      const promise = self.loadFont(fontName, fontRef, resources, task);
      const translated = await promise;
      const ref = fontName !== null && fontRef === null ? rgeFontRef(fontName) : null;
      if (ref) {
        rgeLoadedFonts.set(fontName, { ref, promise, translated });
      }
      applyLoadedFont(translated);
    }`,
  },
  {
    name: 'a font this call has loaded is set at once when the font cache still holds the same promise for it',
    find: `            textState.fontName = fontNameArg;
            textState.fontSize = fontSizeArg;
            next(handleSetFont(fontNameArg, null));
            return;`,
    replace: `            textState.fontName = fontNameArg;
            textState.fontSize = fontSizeArg;
            const rgeFont = rgeLoadedFont(fontNameArg);
            if (rgeFont) {
              applyLoadedFont(rgeFont);
              break;
            }
            next(handleSetFont(fontNameArg, null));
            return;`,
  },
  {
    name: "a font does not keep the glyphs of every string it has shown (its glyphs by character code stay cached), and writes a string's glyphs into a given array",
    find: `  charsToGlyphs(chars) {
    let glyphs = this._charsCache[chars];
    if (glyphs) {
      return glyphs;
    }
    glyphs = [];
    if (this.cMap) {`,
    replace: `  charsToGlyphs(chars) {
    const glyphs = [];
    this.rgeCharsToGlyphsInto(chars, glyphs);
    return glyphs;
  }
  rgeCharsToGlyphsInto(chars, out) {
    let n = 0;
    if (this.cMap) {`,
  },
  {
    name: "a glyph read through the font's CMap goes into the given array",
    find: `        const glyph = this._charToGlyph(charcode, length === 1 && chars.charCodeAt(i - 1) === 0x20);
        glyphs.push(glyph);`,
    replace: `        out[n++] = this._charToGlyph(charcode, length === 1 && chars.charCodeAt(i - 1) === 0x20);`,
  },
  {
    name: 'a glyph of a one-byte font goes into the given array, whose count of glyphs is returned',
    find: `        const glyph = this._charToGlyph(charcode, charcode === 0x20);
        glyphs.push(glyph);
      }
    }
    return this._charsCache[chars] = glyphs;`,
    replace: `        out[n++] = this._charToGlyph(charcode, charcode === 0x20);
      }
    }
    return n;`,
  },
  {
    name: "text content reads a string's glyphs from one array the call reuses (a font without the method: its own array)",
    find: `      const glyphs = font.charsToGlyphs(chars);
      const scale = textState.fontMatrix[0] * textState.fontSize;
      for (let i = 0, ii = glyphs.length; i < ii; i++) {`,
    replace: `      const glyphs = font.rgeCharsToGlyphsInto ? rgeGlyphs : font.charsToGlyphs(chars);
      const glyphCount = glyphs === rgeGlyphs ? font.rgeCharsToGlyphsInto(chars, glyphs) : glyphs.length;
      const scale = textState.fontMatrix[0] * textState.fontSize;
      for (let i = 0, ii = glyphCount; i < ii; i++) {`,
  },
  {
    name: 'the array text content reuses for glyphs, one per call',
    find: `    const showSpacedTextBuffer = [];
    let xobjs = null;`,
    replace: `    const showSpacedTextBuffer = [];
    const rgeGlyphs = [];
    let xobjs = null;`,
  },
  {
    name: 'the characters after which a string may not be left to right (R from U+0590, AL and AN from U+0600)',
    find: `const types = [];
function bidi(str, startLevel = -1, vertical = false) {`,
    replace: `const types = [];
const RGE_MAYBE_BIDI = /[\\u0590-\\uffff]/;
function bidi(str, startLevel = -1, vertical = false) {`,
  },
  {
    name: 'a string with none of them (none of its characters is R, AL or AN) is left to right at once',
    find: `    return createBidiText(str, isLTR, vertical);
  }
  chars.length = strLength;`,
    replace: `    return createBidiText(str, isLTR, vertical);
  }
  if (!RGE_MAYBE_BIDI.test(str)) {
    return createBidiText(str, isLTR);
  }
  chars.length = strLength;`,
  },
  {
    name: "a page's text items are sent once, when the page is done, not in batches of 10 at each font change",
    find: `const TEXT_CHUNK_BATCH_SIZE = 10;`,
    replace: `const TEXT_CHUNK_BATCH_SIZE = 1e9;`,
  },
  {
    name: "a reference's string (its key in every cache keyed by reference) is made once, not at each lookup",
    find: `class Ref {
  constructor(num, gen) {
    this.num = num;
    this.gen = gen;
  }
  toString() {
    if (this.gen === 0) {
      return \`\${this.num}R\`;
    }
    return \`\${this.num}R\${this.gen}\`;
  }`,
    replace: `class Ref {
  #rgeString = null;
  constructor(num, gen) {
    this.num = num;
    this.gen = gen;
  }
  toString() {
    return this.#rgeString ??= this.gen === 0 ? \`\${this.num}R\` : \`\${this.num}R\${this.gen}\`;
  }`,
  },
  {
    name: "the source map comment (the map is the original's)",
    find: '\n//# sourceMappingURL=pdf.worker.mjs.map',
    replace: '\n',
  },
];

/**
 * The edits to pdfjs-dist 5.4.296's build/pdf.mjs (the API side). Its `LoopbackPort` carries messages
 * between the two sides in one thread, and clones each one (`structuredClone`) as a real worker's
 * port would: 9% of a corpus worker's time on the synthetic reports went to cloning the text items
 * of `getTextContent`. A chunk of text content is handed over uncloned, as a shallow copy of the
 * chunk taken when it is sent: the worker side builds new items for every chunk and, once a chunk is
 * sent, gives `textContent` new `items` and `styles` rather than changing the sent ones
 * (`enqueueChunk`), and the whitespace items take copies of the matrix it reuses (above). So is the
 * opening request's data (a shallow copy; the parser reads the caller's bytes, which it never writes,
 * instead of a transferred buffer the caller cannot free). Every other message is copied: by a deep
 * copy in JavaScript when it is plain data (arrays and plain objects of primitives, as the page
 * requests and replies and the stream's pull and close messages are: several per page, each a round
 * trip through Node's `structuredClone`, which posts it on a MessageChannel), with the same result as
 * a structured clone; by `structuredClone` as before when it has transfers or holds anything else (a
 * typed array, a class instance such as an error, a function, an object met twice, more than 64
 * objects or keys), so operator lists, whose arrays the worker empties after sending, are still cloned.
 */
export const MAIN_EDITS: readonly SourceEdit[] = [
  {
    name: 'text content chunks and the bytes of a document being opened handed over without a structured clone, plain messages copied in JavaScript',
    find: `class LoopbackPort {
  #listeners = new Map();
  #deferred = Promise.resolve();
  postMessage(obj, transfer) {
    const event = {
      data: structuredClone(obj, transfer ? {
        transfer
      } : null)
    };`,
    replace: `const RGE_NOT_PLAIN = Symbol("not plain data");
function rgeCopyPlain(value) {
  const seen = [];
  const copy = v => {
    if (typeof v !== "object" || v === null) {
      return typeof v === "function" || typeof v === "symbol" ? RGE_NOT_PLAIN : v;
    }
    if (seen.length === 64 || seen.includes(v)) {
      return RGE_NOT_PLAIN;
    }
    seen.push(v);
    const keys = Object.keys(v);
    if (keys.length > 64) {
      return RGE_NOT_PLAIN;
    }
    let out;
    if (Array.isArray(v)) {
      if (Object.getPrototypeOf(v) !== Array.prototype || keys.length !== v.length || keys.length > 0 && keys[keys.length - 1] !== String(keys.length - 1)) {
        return RGE_NOT_PLAIN;
      }
      out = new Array(v.length);
    } else {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        return RGE_NOT_PLAIN;
      }
      out = {};
    }
    for (const key of keys) {
      const c = key === "__proto__" ? RGE_NOT_PLAIN : copy(v[key]);
      if (c === RGE_NOT_PLAIN) {
        return c;
      }
      out[key] = c;
    }
    return out;
  };
  return copy(value);
}
class LoopbackPort {
  #listeners = new Map();
  #deferred = Promise.resolve();
  postMessage(obj, transfer) {
    const textChunk = obj?.stream === StreamKind.ENQUEUE && !transfer?.length && Array.isArray(obj.chunk?.items) && typeof obj.chunk.styles === "object";
    const documentBytes = obj?.action === "GetDocRequest" && transfer?.length === 1 && obj.data?.data instanceof Uint8Array && obj.data.data.buffer === transfer[0];
    const plain = textChunk || documentBytes || transfer?.length ? RGE_NOT_PLAIN : rgeCopyPlain(obj);
    const event = {
      data: textChunk ? {
        ...obj,
        chunk: {
          ...obj.chunk
        }
      } : documentBytes ? {
        ...obj,
        data: {
          ...obj.data
        }
      } : plain !== RGE_NOT_PLAIN ? plain : structuredClone(obj, transfer ? {
        transfer
      } : null)
    };`,
  },
  {
    name: "the text content stream asks for a page's items without a limit (the worker never waits for a read)",
    find: `    const TEXT_CONTENT_CHUNK_SIZE = 100;`,
    replace: `    const TEXT_CONTENT_CHUNK_SIZE = 1e9;`,
  },
  {
    name: 'the matrix for scaling a clip path is built when a page is first drawn, not as the module loads',
    find: `const SCALE_MATRIX = new DOMMatrix();`,
    replace: `let SCALE_MATRIX = null;`,
  },
  {
    name: 'the matrix for scaling a clip path, where it is used',
    find: `    SCALE_MATRIX.a = 1 / scaleX;`,
    replace: `    (SCALE_MATRIX ??= new DOMMatrix()).a = 1 / scaleX;`,
  },
  {
    name: "the source map comment (the map is the original's)",
    find: '\n//# sourceMappingURL=pdf.mjs.map',
    replace: '\n',
  },
];
