/**
 * pdf.js's own files and rge's patched copies (src/corpus/pdfjs-patches.ts, docs/adr/0024) compared:
 * every text item, every field, and drawn pixels, on the repository's own PDFs (hand-made pages,
 * fixtures, a Type3 and an embedded composite font, the bench's synthetic reports), with V8's block
 * coverage showing that every edit's new code ran; glyph repair on both. Real filings of ../shared:
 * test/corpus/pdfjs-patches-shared.integration.test.ts.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syntheticCorpus } from '../../bench/synthetic-corpus.ts';
import { MAIN_EDITS, type SourceEdit, WORKER_EDITS } from '../../src/corpus/pdfjs-edits.ts';
import { patchedPdfjs } from '../../src/corpus/pdfjs-patches.ts';
import {
  makeEmbeddedFontPdf,
  makeRawPdf,
  makeRupeeFontPdf,
  makeStatementPdf,
  makeTextPdf,
} from '../helpers/make-pdf.ts';
import { inChild } from '../helpers/pdfjs-child.ts';
import { countAt, type ScriptCoverage, scriptCoverage } from '../helpers/v8-coverage.ts';

/**
 * A page of text state that the patched code computes with (character and word spacing, horizontal
 * scaling, rise, kerning in TJ arrays, text and graphics matrices at 0, 90, 180, 270 and 30 degrees),
 * states saved inside saved states, and hex strings the patched lexer reads: one with an odd last digit, one longer than its first buffer.
 */
const HELVETICA = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';
const TEXT_STATE_CONTENT = [
  'BT /F1 12 Tf 72 720 Td (Plain words on a line) Tj ET',
  'BT /F1 11 Tf 2 Tc 72 700 Td (Character spacing 2) Tj ET',
  'BT /F1 11 Tf 6 Tw 72 680 Td (Word spacing six units wide) Tj ET',
  'BT /F1 11 Tf 150 Tz 72 660 Td (Scaled by 150 percent) Tj ET',
  'BT /F1 11 Tf 4 Ts 72 640 Td (Raised by four) Tj ET',
  'BT /F1 11 Tf 72 620 Td [(Kern)-120(ed)-900(gap)-3000(far)250(back)] TJ ET',
  'BT /F1 10 Tf 0 1 -1 0 500 300 Tm (Rotated ninety) Tj ET',
  'BT /F1 10 Tf -1 0 0 -1 400 500 Tm (Upside down) Tj ET',
  'BT /F1 10 Tf 0 -1 1 0 100 400 Tm (Rotated two seventy) Tj ET',
  'BT /F1 10 Tf 0.866 0.5 -0.5 0.866 200 200 Tm (Thirty degrees) Tj ET',
  '0.5 0 0 0.5 36 36 cm BT /F1 20 Tf 24 TL 72 300 Td (Half scale by cm) Tj T* (next line) Tj ET',
  'BT /F1 9 Tf 14 TL 72 150 Td (first) Tj T* (second) Tj T* [(a)-2000(b)] TJ ET',
  'BT /F1 9 Tf 72 120 Td <48 65 78 4> Tj ET',
  `BT /F1 1 Tf 20 100 Td <${'4142'.repeat(300)}5> Tj ET`,
  // saved states inside saved states: the inner ones start from the outer's font, spacing, scaling and
  // matrix, change them, and the outer's are back after each Q
  [
    '2 Tc 120 Tz BT /F1 10 Tf 300 90 Td (outer before) Tj ET',
    'q 5 Tc 3 Ts 0.8 0 0 0.8 10 5 cm BT /F1 14 Tf 300 80 Td (inner changed) Tj ET',
    'q BT 300 70 Td (innermost inherits) Tj ET 1.5 0 0 1.5 0 0 cm BT 3 Tw 300 64 Td (a b) Tj ET Q',
    'BT 300 58 Td (inner again) Tj ET Q',
    'BT 300 50 Td (outer after) Tj ET',
  ].join(' '),
]
  // text state (Tc, Tw, Tz, Ts) belongs to the graphics state: each line restores it
  .map((line) => `q ${line} Q`)
  .join('\n');

/**
 * A page that sets fonts the ways the patched code tells apart (a font this call has loaded by
 * reference is set at once; anything else goes through pdf.js's loadFont): the same name again after
 * each Q and at another size, two fonts in turn inside one text object, a font written inside the
 * page's resources (not a reference), and a form XObject whose own resources give F1 to another font,
 * drawn between the page's uses of F1.
 */
const COURIER = '<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>';
const TIMES = '<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>';
const FONT_SWITCH_CONTENT = [
  'q BT /F1 12 Tf 72 720 Td (Helvetica first) Tj ET Q',
  'q BT /F1 12 Tf 72 700 Td (Helvetica again after Q) Tj ET Q',
  'q BT /F1 9 Tf 72 680 Td (smaller) Tj /F2 9 Tf (then Courier) Tj /F1 9 Tf (back) Tj /F2 11 Tf (larger) Tj ET Q',
  'q BT /F3 10 Tf 72 660 Td (inline Times) Tj ET Q',
  'q BT /F3 10 Tf 72 640 Td (inline Times again) Tj /F1 10 Tf (and Helvetica) Tj /F3 10 Tf (Times) Tj ET Q',
  'q 1 0 0 1 0 -100 cm /Fm1 Do Q',
  'q BT /F1 12 Tf 72 560 Td (F1 is Helvetica on the page) Tj ET Q',
  'q /Fm1 Do Q',
  'q BT /F1 12 Tf 72 400 Td (and Helvetica once more) Tj ET Q',
].join('\n');
const FONT_SWITCH_FORM = {
  content: 'BT /F1 12 Tf 72 600 Td (F1 is Courier in the form) Tj /F1 8 Tf (still) Tj ET',
  fonts: { F1: COURIER },
};

/**
 * A page that strokes hairlines under a matrix that scales x and y differently: pdf.js draws them
 * through `rescaleAndStroke`, which uses the clip-path matrix the API edit builds on first use.
 */
const STROKE_CONTENT = 'q 3 0 0 1 40 60 cm 0 w 0 0 m 150 500 l 10 0 m 160 400 l S Q';

/**
 * A page in a Type3 font (glyphs drawn by content streams; glyph space 1/100 of text space): at size 1
 * scaled by the text matrix, where pdf.js scales the text matrix by the glyphs' height (the branch of
 * the patched matrix code that only Type3 fonts take), rotated, and at size 14.
 */
const TYPE3_GLYPHS = {
  a: '100 0 d0 10 0 60 70 re f',
  b: '100 0 d0 10 0 m 90 70 l 10 70 l f',
  c: '100 0 0 0 90 90 d1 0 0 90 90 re f',
};
const TYPE3_CONTENT = [
  'BT /T3 1 Tf 12 0 0 12 72 700 Tm (abc) Tj ET',
  'BT /T3 1 Tf 0 12 -12 0 300 400 Tm (cab) Tj ET',
  'BT /T3 14 Tf 72 600 Td (bca) Tj ( ) Tj (ab) Tj ET',
].join('\n');

import { firstDifference, readAll } from './pdfjs-compare.ts';

/**
 * The lines of code each edit brings (lines of its replacement that its find text does not have) that
 * never ran, by edit name; an edit that brings no code (the source map comment) has none.
 */
function newLinesNotRun(
  patched: string,
  script: ScriptCoverage,
  edits: readonly SourceEdit[],
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const edit of edits) {
    let offset = patched.indexOf(edit.replace);
    const before = new Set(edit.find.split('\n'));
    const notRun: string[] = [];
    for (const [n, line] of edit.replace.split('\n').entries()) {
      const code = /\w/.test(line) && !before.has(line);
      if (code && countAt(script, offset + line.search(/\S/)) === 0) notRun.push(`${n + 1}: ${line.trim()}`);
      offset += line.length + 1;
    }
    if (notRun.length > 0) out[edit.name] = notRun;
  }
  return out;
}

let dir: string;
/** the bench's 20 synthetic reports */
let synthetic: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rge-pdfjs-compare-'));
  await writeFile(join(dir, 'text-state.pdf'), makeRawPdf(TEXT_STATE_CONTENT, { F1: HELVETICA }));
  await writeFile(
    join(dir, 'font-switch.pdf'),
    makeRawPdf(
      FONT_SWITCH_CONTENT,
      { F1: HELVETICA, F2: COURIER },
      { inlineFonts: { F3: TIMES }, forms: { Fm1: FONT_SWITCH_FORM } },
    ),
  );
  await writeFile(join(dir, 'rupee.pdf'), makeRupeeFontPdf());
  await writeFile(join(dir, 'prose.pdf'), await makeTextPdf(['Alpha page one.', '', 'Revenue of 1,234.']));
  await writeFile(
    join(dir, 'statement.pdf'),
    await makeStatementPdf(
      'Statement of Income',
      ['2022', '2021'],
      [
        { label: 'Net sales', values: ['34,229', '35,355'] },
        { label: 'Gain on divestitures', values: ['(2,724)', '—'] },
      ],
    ),
  );
  await writeFile(join(dir, 'stroke.pdf'), makeRawPdf(STROKE_CONTENT, {}));
  await writeFile(
    join(dir, 'type3.pdf'),
    makeRawPdf(TYPE3_CONTENT, {}, { type3Fonts: { T3: TYPE3_GLYPHS } }),
  );
  await writeFile(
    join(dir, 'embedded-font.pdf'),
    await makeEmbeddedFontPdf([
      'Revenue from operations grew 12% to 41,599.84 lakhs.',
      'Café, naïve — “quoted” text; AV Wa To kerning pairs.',
    ]),
  );
  // the bench's synthetic reports: 20 PDFs of 2 pages (PDFKit's Helvetica, long kerned TJ arrays)
  synthetic = (await syntheticCorpus(join(dir, 'synthetic'), 40)).map((d) => d.path);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("pdf.js's own files and the patched copies on the repository's PDFs", () => {
  // text items of hand-made, generated and fixture PDFs, and three drawn pages, from each; V8's
  // coverage of the patched run
  let original: string;
  let patched: string;
  let coverage: string;

  beforeAll(async () => {
    const own = ['text-state', 'font-switch', 'rupee', 'prose', 'statement', 'type3', 'embedded-font'];
    const files = [...own.map((name) => join(dir, `${name}.pdf`)), ...synthetic];
    const drawn = [join(dir, 'stroke.pdf'), join(dir, 'type3.pdf'), join(dir, 'embedded-font.pdf')];
    coverage = await mkdtemp(join(dir, 'coverage-'));
    [original, patched] = await Promise.all([
      readAll('original', files, drawn),
      readAll('patched', files, drawn, coverage),
    ]);
  });

  it('gives the same text items, every field (numbers in their shortest round-trip form), and the same drawing', () => {
    const lines = patched.trim().split('\n');
    expect(lines[0]).toBe('WorkerMessageHandler');
    // a header line, a line a page (4 hand-made, 3 of prose, 1 statement, 1 embedded font, 20 reports
    // of 2), a line a drawn page
    expect(lines.length).toBe(1 + 4 + 3 + 1 + 1 + 20 * 2 + 3);
    // the hand-made page has whitespace items (the kerned gaps) and items at every rotation
    const handMade = JSON.parse(lines[1] as string)[2] as { str: string; transform: number[] }[];
    expect(handMade.filter((i) => i.str === ' ').length).toBeGreaterThan(0);
    for (const s of ['Rotated ninety', 'Upside down', 'Rotated two seventy', 'Thirty degrees'])
      expect(handMade.some((i) => i.str === s)).toBe(true);
    // the font-switching page: F1 is Courier inside the form and Helvetica on the page around it
    const switched = JSON.parse(lines[2] as string)[2] as { str: string; fontName: string }[];
    const fontOf = (str: string) => switched.find((i) => i.str === str)?.fontName;
    expect(switched.filter((i) => i.str === 'Courier in the form').length).toBe(2);
    expect(fontOf('Courier in the form')).not.toBe(fontOf('Helvetica first'));
    expect(fontOf('back')).toBe(fontOf('Helvetica first'));
    expect(fontOf('larger')).toBe(fontOf('Courier'));
    expect(fontOf('F1 is Helvetica on the page')).toBe(fontOf('Helvetica first'));
    expect(fontOf('and Helvetica once more')).toBe(fontOf('Helvetica first'));
    expect(fontOf('inline Times again')).not.toBe(fontOf('Helvetica first'));
    // each drawn page has its strokes or glyphs
    for (const line of lines.slice(-3)) expect(JSON.parse(line)[3]).toBeGreaterThan(100);
    expect(firstDifference(original, patched)).toBeNull();
  });

  it("ran every edit's new code in the patched run (V8's block coverage of the two copies)", async () => {
    const paths = await patchedPdfjs();
    const notRun: Record<string, Record<string, string[]>> = {};
    for (const [path, edits, declared] of [
      [paths.main, MAIN_EDITS, 'rgeCopyPlain'],
      [paths.worker, WORKER_EDITS, 'getCurrentTextTransform'],
    ] as const) {
      const script = scriptCoverage(coverage, pathToFileURL(path).href);
      expect(script, path).not.toBeNull();
      const source = readFileSync(path, 'utf8');
      // V8 ran the file as it is (its offsets are the file's): a function the edits declare starts there
      const range = script?.functions.find((f) => f.functionName === declared)?.ranges[0];
      expect(range?.startOffset).toBe(source.indexOf(`function ${declared}(`));
      notRun[path] = newLinesNotRun(source, script as ScriptCoverage, edits);
    }
    // all but three guards of the plain-message copy (an object met twice or the 65th, more than 64
    // keys, an array with holes or properties), which no message of these PDFs meets and which
    // pdfjs-patches.test.ts runs on the copy alone
    expect(notRun).toEqual({
      [paths.main]: {
        [(MAIN_EDITS[0] as SourceEdit).name]: [
          '9: return RGE_NOT_PLAIN;',
          '14: return RGE_NOT_PLAIN;',
          '19: return RGE_NOT_PLAIN;',
        ],
      },
      [paths.worker]: {},
    });
  });
});

describe('glyph repair with and without the patched worker code', () => {
  it("names a text item's font from the patched text styles, and from the operator list when unpatched (a worker module set before, or RGE_PDFJS_PATCHES=0)", async () => {
    const body = `
      const { extractPdf } = await import('./src/corpus/pdf.ts');
      const { workerPatched } = await import('./src/corpus/pdfjs.ts');
      const doc = await extractPdf(files[0], { tables: 'never' });
      // read before importing pdfjs-dist's own worker module, which sets globalThis.pdfjsWorker itself
      const running = globalThis.pdfjsWorker?.WorkerMessageHandler;
      const own = await import('pdfjs-dist/build/pdf.worker.mjs');
      const ownWorker = running === own.WorkerMessageHandler;
      console.log(JSON.stringify({ patched: workerPatched(), ownWorker, text: doc.pages[0].text }));`;
    const file = [join(dir, 'rupee.pdf')];
    const [original, off, patched] = await Promise.all([
      inChild('original', file, body),
      inChild('patches off', file, body),
      inChild('patched', file, body),
    ]).then((runs) => {
      // no fallback message: the patches applied, or pdfjs-dist's own files were chosen
      for (const r of runs) expect(r.stderr).toBe('');
      return runs.map((r) => JSON.parse(r.stdout));
    });
    expect(patched.patched).toBe(true);
    expect(original.patched).toBe(false);
    // RGE_PDFJS_PATCHES=0: pdfjs-dist's own files (pdf.js imports its worker module itself)
    expect(off.patched).toBe(false);
    expect(off.ownWorker).toBe(true);
    expect(original.ownWorker).toBe(true);
    expect(patched.ownWorker).toBe(false);
    expect(patched.text).toMatch(/₹\s?41,599\.84 lakhs/);
    expect(patched.text).toContain('Run `rge fetch` before 12 May');
    expect(original.text).toBe(patched.text);
    expect(off.text).toBe(patched.text);
  });
});
