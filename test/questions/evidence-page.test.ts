/**
 * locateEvidence on small synthetic pages. On FinanceBench filings nobody here wrote (../shared/corpus):
 * test/questions/evidence-page-shared.integration.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  agreesWithPage,
  evidenceAgreement,
  financeBenchSplit,
  formatAgreement,
  formatMiss,
  locateEvidence,
  MIN_SCORE,
  type PageText,
  pagesPrinting,
} from '../../src/questions/evidence-page.ts';

const filler = (topic: string) =>
  `Item 7. Management's discussion of ${topic}. The company operates in several segments and reviews ` +
  `its ${topic} quarterly with the board of directors.`;

const pages: PageText[] = [
  { page: 1, text: filler('liquidity') },
  {
    page: 2,
    text:
      'Consolidated Statement of Income\nYears ended December 31\n(Millions, except per share amounts)\n' +
      '2022 2021 2020\nNet sales $ 34,229 $ 35,355 $ 32,184\nCost of sales 19,232 18,795 16,605',
  },
  {
    page: 3,
    text:
      'Segment results\nSafety and Industrial 11,604 12,000\nTransportation and Electronics 8,902 9,465\n' +
      `${filler('segments')} Capital expenditures in 2022 were`,
  },
  { page: 4, text: '$1,749 million, compared with $1,603 million in 2021, mostly for new plant capacity.' },
  { page: 5, text: 'Net sales 34,229 35,355 32,184 appear again in the five-year summary.' },
];

describe('locateEvidence', () => {
  it('finds a snippet verbatim regardless of line breaks, case and punctuation', () => {
    const loc = locateEvidence('net sales\n$\n34,229 $\n35,355 $\n32,184\nCOST OF SALES', pages);
    expect(loc).toMatchObject({ page: 2, score: 1, how: 'verbatim' });
    expect(loc.candidates.length).toBeLessThanOrEqual(3);
    expect(loc.candidates.map((c) => c.page)).not.toContain(2);
  });

  it('finds a table whose cells the copy reads in another order, by overlap', () => {
    // pdftotext read the column headings after the rows; the page has them before.
    const evidence =
      'Net sales 34,229 35,355 32,184 Cost of sales 19,232 18,795 16,605 Consolidated Statement of Income ' +
      '2022 2021 2020 (Millions, except per share amounts)';
    const loc = locateEvidence(evidence, pages);
    expect(loc.how).toBe('overlap');
    expect(loc.page).toBe(2);
    expect(loc.score).toBeGreaterThan(0.6);
    expect(loc.score).toBeLessThan(1);
    // page 5 repeats the net sales row and is the nearest other page
    expect(loc.candidates[0]?.page).toBe(5);
    expect(loc.candidates[0]?.score).toBeLessThan(loc.score);
  });

  it('finds a table the copy read column by column, which breaks every shingle, by its words', () => {
    const loc = locateEvidence('Net sales Cost of sales 34,229 19,232 35,355 18,795', pages);
    expect(loc).toMatchObject({ page: 2, how: 'overlap' });
    expect(loc.score).toBeCloseTo(0.5, 5);
  });

  it('finds a snippet that runs from one page onto the next where it begins', () => {
    const loc = locateEvidence(
      'Capital expenditures in 2022 were $1,749 million, compared with $1,603 million in 2021',
      pages,
    );
    expect(loc).toMatchObject({ page: 3, score: 1, how: 'verbatim' });
    expect(loc.candidates[0]?.page).toBe(4);
  });

  it('gives null when no page is close enough, with the nearest pages still listed', () => {
    const loc = locateEvidence(
      'Goodwill impairment testing of the Health Care reporting unit in 2019',
      pages,
    );
    expect(loc.page).toBeNull();
    expect(loc.how).toBe('none');
    expect(loc.score).toBeLessThan(MIN_SCORE);
    // a few shared words are not enough
    const near = locateEvidence('Net sales in Europe declined 3 percent on weaker demand', pages);
    expect(near).toMatchObject({ page: null, how: 'none' });
    expect(near.score).toBeGreaterThan(0);
    expect(near.candidates[0]?.page).toBe(2);
    expect(locateEvidence('', pages)).toEqual({ page: null, score: 0, how: 'none', candidates: [] });
    expect(locateEvidence('Net sales', [])).toMatchObject({ page: null, how: 'none' });
  });

  it('breaks a tie by the lower page, and counts the tied page as agreeing', () => {
    const twice: PageText[] = [
      { page: 7, text: 'Dividends declared per share 5.96 5.92' },
      { page: 8, text: 'Dividends declared per share 5.96 5.92' },
      { page: 9, text: 'Dividends paid in cash' },
    ];
    const loc = locateEvidence('dividends declared per share: 5.96', twice);
    expect(loc).toMatchObject({ page: 7, how: 'verbatim' });
    expect(agreesWithPage(loc, 7)).toBe(true);
    expect(agreesWithPage(loc, 8)).toBe(true);
    expect(agreesWithPage(loc, 9)).toBe(false);
  });
});

describe('pagesPrinting', () => {
  const report: PageText[] = [
    { page: 1, text: "Chairman's letter\nRevenue from opera-\ntions rose to Rs 4,512 crore in FY24." },
    { page: 2, text: 'Our year-\non-year growth was 12%. The Board recommended a final' },
    {
      page: 3,
      text: 'dividend of Rs 3.50 per equity share.\nRevenue from operations rose to Rs 4,512 crore in FY24.',
    },
  ];

  it('finds a quote whatever its case, spacing and punctuation, on every page that prints it', () => {
    expect(pagesPrinting('REVENUE from operations rose to Rs 4,512 crore in FY24', report)).toEqual([1, 3]);
    expect(pagesPrinting('growth   was 12 %', report)).toEqual([2]);
  });

  it('joins a word hyphenated across a line, in the page or in the quote; a compound keeps its hyphen', () => {
    expect(pagesPrinting('from operations rose', report)).toEqual([1, 3]);
    expect(pagesPrinting('from opera- tions rose', report)).toEqual([1, 3]);
    expect(pagesPrinting('Our year-on-year growth', report)).toEqual([2]);
  });

  it('gives the page a quote begins on when it runs onto the next', () => {
    expect(pagesPrinting('recommended a final dividend of Rs 3.50 per equity share', report)).toEqual([2]);
  });

  it('gives no page for a quote not printed, or an empty one', () => {
    expect(pagesPrinting('Revenue from operations fell', report)).toEqual([]);
    expect(pagesPrinting(' - ', report)).toEqual([]);
  });
});

describe('FinanceBench splits and counting', () => {
  it('splits by sha1 of the id, stably', () => {
    expect(financeBenchSplit('financebench_id_00499')).toBe(financeBenchSplit('financebench_id_00499'));
    const ids = Array.from({ length: 40 }, (_, i) => `financebench_id_${String(i).padStart(5, '0')}`);
    const dev = ids.filter((id) => financeBenchSplit(id) === 'dev').length;
    expect(dev).toBeGreaterThan(8);
    expect(dev).toBeLessThan(32);
  });

  it('counts agreement per split and lists the misses', () => {
    const items = [
      { id: 'a', split: 'dev' as const, docName: 'D', page: 2, text: 'Net sales $ 34,229' },
      { id: 'b', split: 'test' as const, docName: 'D', page: 1, text: 'Net sales $ 34,229' },
    ];
    const a = evidenceAgreement(items, () => pages);
    expect(a.overall).toEqual({ agreed: 1, n: 2 });
    expect(a.dev).toEqual({ agreed: 1, n: 1 });
    expect(a.test).toEqual({ agreed: 0, n: 1 });
    expect(a.plain).toEqual({ agreed: 1, n: 2 });
    expect(a.misses.map((m) => m.item.id)).toEqual(['b']);
    expect(formatAgreement(a)).toBe(
      'evidence page agreement: 1/2 (50.0%) dev 1/1 (100.0%), test 0/1 (0.0%); ' +
        'plain search (verbatim on rge pages): 1/2',
    );
    expect(formatMiss(a.misses[0] as (typeof a.misses)[0])).toMatch(
      /^b \(test\) D: labelled page 1, rge page 2/,
    );
  });
});
