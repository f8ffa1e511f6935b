import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseFontName, glyphFont, repairGlyphs } from '../../src/corpus/glyphs.ts';
import { extractPdf } from '../../src/corpus/pdf.ts';
import { makeRupeeFontPdf } from '../helpers/make-pdf.ts';

describe('repairGlyphs', () => {
  it('reads the backtick and U+FFFD of a rupee font as the rupee sign', () => {
    expect(repairGlyphs('`', 'DDQHSC+RupeeForadian')).toBe('₹');
    expect(repairGlyphs('`41,599.84', 'WXJBYQ+IndianRupee-Regular')).toBe('₹41,599.84');
    expect(repairGlyphs('\ufffd', 'WXJBYQ+IndianRupee-Regular')).toBe('₹');
    expect(repairGlyphs('(` in Crores)', 'WFOJLG+Rupee')).toBe('(₹ in Crores)');
  });

  it('reads the private-use and unmapped glyphs of a bullet font as a bullet', () => {
    expect(repairGlyphs('\uf097', 'UUKPWU+Wingdings2')).toBe('•');
    expect(repairGlyphs('\ufffd', 'AINLCD+Wingdings-Regular')).toBe('•');
    expect(repairGlyphs('\uf0b7', 'Symbol')).toBe('•');
    expect(repairGlyphs('\uf0b7', 'ZapfDingbats')).toBe('•');
  });

  it('leaves text fonts, unknown fonts and the ordinary characters of symbol fonts alone', () => {
    expect(repairGlyphs('`code`', 'SQSSUY+Swiss721BT-Roman')).toBe('`code`');
    expect(repairGlyphs('`41', null)).toBe('`41');
    expect(repairGlyphs('`41', undefined)).toBe('`41');
    expect(repairGlyphs('in lakhs 12', 'WXJBYQ+IndianRupee-Regular')).toBe('in lakhs 12');
    expect(repairGlyphs('α', 'Symbol')).toBe('α');
    // a font that merely starts with "Symbol" as part of a longer word is a text font
    expect(glyphFont('Symbolic-Sans')).toBe('text');
  });

  it('drops the subset tag from a font name', () => {
    expect(baseFontName('WXJBYQ+IndianRupee-Regular')).toBe('IndianRupee-Regular');
    expect(baseFontName('Helvetica')).toBe('Helvetica');
  });
});

describe('extractPdf and misread glyphs', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-glyphs-'));
    await writeFile(join(dir, 'rupee.pdf'), makeRupeeFontPdf());
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(['never', 'always'] as const)(
    'reads the rupee font backtick as ₹ and keeps a text font backtick (tables: %s)',
    async (tables) => {
      const doc = await extractPdf(join(dir, 'rupee.pdf'), { tables });
      const text = doc.pages[0]?.text ?? '';
      expect(text).toMatch(/₹\s?41,599\.84 lakhs/);
      expect(text).toContain('Run `rge fetch` before 12 May');
      expect(text.match(/`/g)?.length).toBe(2);
    },
  );
});
