/**
 * The readers of corpus/formats on the Ledgerly documents of fixtures/documents (a made-up product's
 * docs: Markdown with headings, lists and tables, an HTML page with navigation around its article, a
 * plain-text FAQ, a French guide).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { htmlPage } from '../../../src/corpus/formats/html.ts';
import { documentKind, plainTextPage, readTextDocument } from '../../../src/corpus/formats/index.ts';
import { markdownPage } from '../../../src/corpus/formats/markdown.ts';
import type { PageText } from '../../../src/corpus/schema.ts';

const DOCS = join(import.meta.dirname, '../../../fixtures/documents');
const fixture = (name: string) => readFileSync(join(DOCS, name), 'utf8');

/** The page's heading lines, by the marks it carries. */
const headingLines = (page: PageText) => {
  const lines = page.text.split('\n');
  return (page.headings ?? []).map((i) => lines[i]);
};

describe('markdownPage', () => {
  const page = markdownPage(fixture('billing-and-plans.md'));
  const lines = page.text.split('\n');

  it('marks the headings, each a line of its own', () => {
    expect(headingLines(page)).toEqual([
      'Billing and plans',
      'Plans at a glance',
      'Changing plans',
      'Refunds',
    ]);
  });

  it('keeps each table row one line, its cells joined as the PDF table path joins them', () => {
    expect(lines).toContain('Plan | Monthly price per member | Annual price per member | Members | Storage');
    expect(lines).toContain('Team | $14 | $140 | 50 | 500 GB');
  });

  it('makes a wrapped paragraph one line, and a block quote its own', () => {
    expect(lines).toContain(
      'Every workspace starts on the Free plan. Paid plans are billed per member, monthly or annually; annual billing saves two months.',
    );
    expect(lines.some((l) => l.startsWith('A workspace over its plan'))).toBe(true);
  });

  it('drops the front matter and the markup, numbers ordered list items, keeps code lines', () => {
    const start = markdownPage(fixture('getting-started.md'));
    expect(start.text).not.toContain('docs-team');
    expect(start.text.split('\n')[0]).toBe('Getting started with Ledgerly');
    expect(start.text).toContain('\n4. Invite your team from Settings → Members.\n');
    expect(start.text).toContain('\nTransactions are imported every 4 hours.\n');
    expect(markdownPage(fixture('api-limits.md')).text).toContain(
      'curl -H "Authorization: Bearer $LEDGERLY_TOKEN" \\',
    );
  });
});

describe('htmlPage', () => {
  const page = htmlPage(fixture('release-notes.html'));

  it('takes the article: navigation, header, sidebar, footer, scripts and styles dropped', () => {
    for (const furniture of [
      'Sign in',
      'Pricing',
      'Getting started',
      'All rights reserved',
      'analytics',
      'font-family',
    ])
      expect(page.text).not.toContain(furniture);
    expect(page.text).toContain(
      'Workspaces on the Business plan can now consolidate up to 25 legal entities',
    );
  });

  it('marks the headings, the title first, and keeps table rows and list items one line each', () => {
    expect(headingLines(page)).toEqual([
      'Release notes: Ledgerly 4.2 | Ledgerly Docs',
      'Multi-entity consolidation',
      'Faster bank imports',
      'Limits changed in this release',
      'Approval flow for journals',
    ]);
    const lines = page.text.split('\n');
    expect(lines).toContain('Entities per workspace (Business) | 5 | 25');
    expect(lines).toContain('Approvers are notified by email and in the app.');
  });

  it('reads a fragment saved as .html (no <html> or <body>) as its text', () => {
    expect(htmlPage('<p>Revenue   was\n<b>Rs 10</b></p>').text).toBe('Revenue was Rs 10');
  });

  it('reads the body of a page without navigation, a <br> ending a line', () => {
    const plain = htmlPage(
      '<html><body><h2>Limits</h2><p>Uploads up to <b>250 MB</b>.<br>Tokens expire.</p></body></html>',
    );
    expect(plain).toEqual({
      page: 1,
      method: 'text',
      text: 'Limits\nUploads up to 250 MB.\nTokens expire.',
      headings: [0],
    });
  });
});

describe('plain text and the kinds of document', () => {
  it('reads a text file as it is, line ends normalised, no heading marks (the heuristics find them)', () => {
    expect(plainTextPage('\uFEFFone\r\ntwo\rthree\n')).toEqual({
      page: 1,
      method: 'text',
      text: 'one\ntwo\nthree\n',
    });
    expect(readTextDocument('text', Buffer.from(fixture('support-faq.txt'))).text).toBe(
      fixture('support-faq.txt'),
    );
  });

  it('knows a kind by its extension, in any case', () => {
    expect(
      ['a.PDF', 'b.md', 'c.markdown', 'd.HTM', 'e.html', 'f.txt', 'g.text', 'h.docx'].map(documentKind),
    ).toEqual(['pdf', 'markdown', 'markdown', 'html', 'html', 'text', 'text', null]);
  });
});
