import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { describe, expect, it } from 'vitest';
import { CHUNK_TOKENS, chunkDocument, chunkId, OVERLAP_TOKENS } from '../../src/corpus/chunk.ts';
import { documentIdentity, fiscalYearFromName } from '../../src/corpus/naming.ts';
import { Chunk, type PageText } from '../../src/corpus/schema.ts';
import { sha1 } from '../../src/util/fs.ts';

const meta = { company: 'acme', fy: 'FY24', source: 'acme-FY24.pdf' };

const SECTIONS = ['CHAIR', 'HIGHLIGHTS', 'STATEMENTS', 'SEGMENTS', 'DIVIDENDS', 'RESEARCH', 'ESG', 'RISKS'];
const section = (i: number) => `${i + 1}. ${SECTIONS[i % 8]} ${['REVIEW', 'NOTES'][Math.floor(i / 8)]}`;

/** A report of `n` pages, each with a running header, a numbered section heading, prose and a page number. */
function report(n: number): PageText[] {
  return Array.from({ length: n }, (_, i) => ({
    page: i + 1,
    method: 'text' as const,
    text: [
      'Acme Limited | Integrated Annual Report 2023-24',
      section(i),
      ...Array.from(
        { length: 30 },
        (_, j) =>
          `In fiscal ${2024 - (j % 3)} the segment ${i}-${j} reported revenue of Rs ${(i + 1) * 100 + j} crore, up ${j}% year on year.`,
      ),
      `${i + 1}`,
    ].join('\n'),
  }));
}

describe('chunkDocument', () => {
  const pages = report(12);
  const chunks = chunkDocument(pages, meta);

  it('keeps every chunk within 800 cl100k tokens and its recorded count exact', () => {
    expect(chunks.length).toBeGreaterThan(5);
    for (const [i, c] of chunks.entries()) {
      expect(Chunk.parse(c)).toEqual(c);
      expect(c.tokens).toBeLessThanOrEqual(CHUNK_TOKENS);
      const actual = encode(c.text).length;
      expect(actual).toBeLessThanOrEqual(c.tokens);
      expect(c.tokens - actual).toBeLessThanOrEqual(2);
      if (i < chunks.length - 1) expect(c.tokens).toBeGreaterThan(CHUNK_TOKENS - 60); // full windows but the last
    }
  });

  it('overlaps consecutive chunks by whole lines totalling at most 100 tokens', () => {
    for (let i = 1; i < chunks.length; i++) {
      const prev = (chunks[i - 1] as Chunk).text.split('\n');
      const cur = (chunks[i] as Chunk).text.split('\n');
      // the longest run of trailing lines of prev that opens cur
      let overlap = 0;
      for (let len = Math.min(prev.length, cur.length); len > 0; len--) {
        if (prev.slice(prev.length - len).join('\n') === cur.slice(0, len).join('\n')) {
          overlap = len;
          break;
        }
      }
      expect(overlap).toBeGreaterThan(0);
      const overlapTokens = encode(`${cur.slice(0, overlap).join('\n')}\n`).length;
      expect(overlapTokens).toBeLessThanOrEqual(OVERLAP_TOKENS);
      expect(overlapTokens).toBeGreaterThan(OVERLAP_TOKENS - 45); // as close to 100 as whole lines allow
    }
  });

  it('covers every content line and drops page furniture', () => {
    const all = new Set(chunks.flatMap((c) => c.text.split('\n')));
    for (const p of pages) {
      for (const line of p.text.split('\n').slice(1, -1)) expect(all.has(line)).toBe(true);
    }
    expect([...all].some((l) => l.includes('Integrated Annual Report'))).toBe(false);
    expect([...all].some((l) => /^\d+$/.test(l))).toBe(false);
  });

  it('gives each chunk its nearest preceding heading and its page range', () => {
    for (const c of chunks) {
      const [first, last] = c.pages;
      expect(first).toBeLessThanOrEqual(last);
      expect(c.heading).toBe(section(first - 1));
      const firstLine = c.text.split('\n')[0] as string;
      expect((pages[first - 1] as PageText).text.includes(firstLine)).toBe(true);
    }
  });

  it('records every heading its lines fall under, in order, from its first', () => {
    for (const c of chunks) {
      const [first, last] = c.pages;
      const expected = Array.from({ length: last - first + 1 }, (_, i) => section(first - 1 + i)).filter(
        (h) => c.text.includes(h) || h === c.heading,
      );
      expect(c.headings).toEqual(expected);
      expect(c.headings?.[0]).toBe(c.heading);
    }
    expect(chunks.some((c) => (c.headings?.length ?? 0) > 1)).toBe(true);
  });

  it('names chunks {company}-{fy}-{sha1(text)[:8]}, deterministically', () => {
    for (const c of chunks) expect(c.id).toBe(`acme-FY24-${sha1(c.text).slice(0, 8)}`);
    expect(chunkDocument(report(12), meta)).toEqual(chunks);
    expect(chunkId('acme', null, 'x')).toMatch(/^acme-FYNA-[0-9a-f]{8}$/);
  });

  it('splits a single line longer than the chunk size', () => {
    const long = Array.from({ length: 1500 }, (_, i) => `word${i}`).join(' ');
    const cs = chunkDocument([{ page: 1, method: 'text', text: long }], meta);
    expect(cs.length).toBeGreaterThanOrEqual(2);
    for (const c of cs) expect(encode(c.text).length).toBeLessThanOrEqual(CHUNK_TOKENS);
  });

  it('keeps a table row from the layout path whole', () => {
    const rows = Array.from(
      { length: 200 },
      (_, i) => `Line item ${i} | ${1000 + i} | ${2000 + i} | ${3000 + i}`,
    );
    const cs = chunkDocument([{ page: 7, method: 'table', text: rows.join('\n') }], meta);
    for (const c of cs) for (const line of c.text.split('\n')) expect(rows).toContain(line);
  });

  it('returns nothing for pages without text and rejects an overlap as large as the chunk', () => {
    expect(chunkDocument([{ page: 1, method: 'text', text: '  \n ' }], meta)).toEqual([]);
    expect(() => chunkDocument(pages, meta, { maxTokens: 100, overlapTokens: 100 })).toThrow(/overlap/);
  });
});

describe('chunkDocument on a page that marks its headings', () => {
  const text = [
    'Billing and plans',
    'Every workspace starts on the Free plan.',
    'Team plan',
    'The Team plan costs $12 per user per month.',
    'SEAT LIMITS APPLY',
    '1',
  ].join('\n');

  it('takes the marked lines, and only those, for headings', () => {
    const [chunk] = chunkDocument([{ page: 1, method: 'text', text, headings: [0, 2] }], meta);
    expect(chunk?.heading).toBe('Billing and plans');
    expect(chunk?.headings).toEqual(['Billing and plans', 'Team plan']);
  });

  it('keeps every line, a lone number too (no furniture on a Markdown page)', () => {
    const [chunk] = chunkDocument([{ page: 1, method: 'text', text, headings: [] }], meta);
    expect(chunk?.text).toBe(text);
    expect(chunk?.heading).toBeNull();
  });

  it('finds headings by heuristics on the same page without marks', () => {
    const [chunk] = chunkDocument([{ page: 1, method: 'text', text }], meta);
    expect(chunk?.text).not.toContain('\n1');
    expect(chunk?.headings).toContain('SEAT LIMITS APPLY');
  });
});

describe('document identity from a file name', () => {
  it.each([
    ['3M_2022_10K.pdf', '3m-2022-10k', 'FY22'],
    ['VRL_Logistics_Annual_Report_FY2023-24.pdf', 'vrl-logistics-annual-report-fy2023-24', 'FY24'],
    ['Infosys_Q4FY24_Condensed.pdf', 'infosys-q4fy24-condensed', 'FY24'],
    ['e2b19d2cc2ccab2fd9022326b56b38fb0e772e73.pdf', 'e2b19d2cc2ccab2fd9022326b56b38fb0e772e73', null],
    ['reliance-FY24-annual-report.pdf', 'reliance-fy24-annual-report', 'FY24'],
  ])('%s -> %s, %s', (name, company, fy) => {
    expect(documentIdentity(name)).toEqual({ company, fy, source: name });
    expect(fiscalYearFromName(name)).toBe(fy);
  });
});
