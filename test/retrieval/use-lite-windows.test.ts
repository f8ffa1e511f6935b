import { describe, expect, it } from 'vitest';
import { passageText } from '../../src/retrieval/build.ts';
import { passageWindows, WINDOW_WORDS } from '../../src/retrieval/use-lite.ts';

describe('use-lite passage windows', () => {
  const chunk = {
    id: 'hdfc-bank-FY24-0123abcd',
    company: 'hdfc-bank',
    fy: 'FY24',
    source: 'hdfc-bank-FY24-annual-report.pdf',
    heading: '2. FINANCIAL HIGHLIGHTS',
    pages: [3, 4] as [number, number],
    tokens: 400,
    text: Array.from({ length: 250 }, (_, i) => `word${i}`).join(' '),
  };

  it('heads every passage with its company, year and heading', () => {
    expect(passageText(chunk).split('\n')[0]).toBe('hdfc bank | FY24 | 2. FINANCIAL HIGHLIGHTS');
  });

  it('cuts the body into windows of WINDOW_WORDS words, each under the header', () => {
    const windows = passageWindows(passageText(chunk));
    expect(windows).toHaveLength(Math.ceil(250 / WINDOW_WORDS));
    for (const w of windows) expect(w.startsWith('hdfc bank | FY24 | 2. FINANCIAL HIGHLIGHTS\n')).toBe(true);
    const body = windows.map((w) => w.split('\n')[1]).join(' ');
    expect(body).toBe(chunk.text);
  });

  it('keeps a passage without a body as one window', () => {
    expect(passageWindows('just a question')).toEqual(['just a question']);
  });
});
