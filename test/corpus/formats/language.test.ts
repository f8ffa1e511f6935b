import { describe, expect, it } from 'vitest';
import {
  DETECTOR_CHARS,
  DOCUMENT_PIECES,
  detectLanguage,
  documentLanguage,
  documentPieces,
} from '../../../src/corpus/formats/language.ts';
import { PARAGRAPHS, SHORT_QUESTIONS } from './language-samples.ts';

describe('detectLanguage', () => {
  it('tells the language of each short question, reliably', () => {
    const wrong = SHORT_QUESTIONS.filter((s) => {
      const d = detectLanguage(s.text);
      return d.language !== s.language || !d.reliable;
    });
    expect(wrong).toEqual([]);
  });

  it('tells the language of each paragraph', () => {
    for (const s of PARAGRAPHS)
      expect(detectLanguage(s.text)).toEqual({ language: s.language, reliable: true });
  });

  it('says English for a question about a financial report, French for a French one', () => {
    expect(detectLanguage('What was the consolidated revenue from operations in FY24?')).toEqual({
      language: 'en',
      reliable: true,
    });
    expect(detectLanguage('Quel était le chiffre d’affaires consolidé en 2023 ?').language).toBe('fr');
  });

  it('says null, not a guess, for text with no words', () => {
    for (const text of ['', '   ', '₹ 2,41,300 | 12% | 2023-24', '42'])
      expect(detectLanguage(text)).toEqual({ language: null, reliable: false });
    expect(detectLanguage('asdf qwer zxcv').reliable).toBe(false);
  });

  it('is deterministic and fast: thousands of questions a second', () => {
    const texts = SHORT_QUESTIONS.map((s) => s.text);
    const first = texts.map(detectLanguage);
    const t0 = performance.now();
    for (let i = 0; i < 2000; i++) detectLanguage(texts[i % texts.length] as string);
    const perSecond = 2000 / ((performance.now() - t0) / 1000);
    expect(texts.map(detectLanguage)).toEqual(first);
    expect(perSecond).toBeGreaterThan(1000);
  });
});

describe('documentLanguage', () => {
  const english = (PARAGRAPHS[0] as { text: string }).text;
  const french = (PARAGRAPHS[2] as { text: string }).text;

  it('judges a long document by pieces spread over all of it', () => {
    const pages = Array.from({ length: 400 }, (_, i) => ({ text: i < 20 ? english : french }));
    const pieces = documentPieces(pages.map((p) => p.text).join('\n'));
    expect(pieces).toHaveLength(DOCUMENT_PIECES);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(DETECTOR_CHARS);
    expect(documentLanguage(pages)).toEqual({ language: 'fr', reliable: true });
  });

  it('keeps a short document whole, and cuts a text of one long line', () => {
    expect(documentPieces('one\ntwo')).toEqual(['one\ntwo']);
    for (const piece of documentPieces('word '.repeat(100_000)))
      expect(piece.length).toBeLessThanOrEqual(DETECTOR_CHARS);
  });

  it('says null for a document without words', () => {
    expect(documentLanguage([{ text: '12\n34\n' }])).toEqual({ language: null, reliable: false });
  });
});
