/**
 * An HTML page as one rge page: parsed by linkedom (a DOM over htmlparser2, which runs on Node 20),
 * its main content taken by Mozilla's Readability (Firefox's reader view) when the page has navigation
 * around it (nav, header, footer, aside), else its body; scripts, styles and templates dropped. Each
 * heading, paragraph and list item is one line, each table row one line of cells joined with ` | `, and the
 * article's title (Readability's) opens the page as a heading when the content does not print it.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import type { PageText } from '../schema.ts';
import { PageLines } from './lines.ts';

/** The little of the DOM the reader walks (linkedom's nodes; the project compiles without DOM types). */
interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}

interface DomDocument {
  body: DomNode | null;
  querySelector(selector: string): DomNode | null;
  querySelectorAll(selector: string): ArrayLike<DomNode & { remove(): void }>;
}

const TEXT_NODE = 3;
const ELEMENT_NODE = 1;

/** Elements that are never text of the page. */
const DROPPED = 'script, style, noscript, template, svg, canvas, iframe, object';

/** What says a page has furniture around its content, so that Readability is asked for the article. */
const NAVIGATION = 'nav, header, footer, aside, [role="navigation"], [role="banner"], [role="contentinfo"]';

/** Elements whose text is one line (with any inline elements inside). */
const BLOCKS = new Set([
  'P',
  'DIV',
  'SECTION',
  'ARTICLE',
  'MAIN',
  'BLOCKQUOTE',
  'FIGURE',
  'FIGCAPTION',
  'DL',
  'DT',
  'DD',
  'UL',
  'OL',
  'LI',
  'ADDRESS',
  'HEADER',
  'FOOTER',
  'NAV',
  'ASIDE',
  'FORM',
  'FIELDSET',
  'DETAILS',
  'SUMMARY',
  'CAPTION',
  'TABLE',
  'THEAD',
  'TBODY',
  'TFOOT',
  'HR',
  'BODY',
  'CENTER',
]);

const HEADINGS = new Set(['H1', 'H2', 'H3', 'H4', 'H5', 'H6']);

/** Walks the DOM into lines; inline text gathers in `pending` until a block ends it. */
class HtmlLines {
  readonly lines = new PageLines();
  private pending = '';

  flush(): void {
    this.lines.add(this.pending);
    this.pending = '';
  }

  walk(node: DomNode): void {
    if (node.nodeType === TEXT_NODE) {
      this.pending += node.textContent ?? '';
      return;
    }
    if (node.nodeType !== ELEMENT_NODE) return;
    const name = node.nodeName.toUpperCase();
    if (name === 'BR') {
      this.flush();
      return;
    }
    if (HEADINGS.has(name)) {
      this.flush();
      this.lines.addHeading(node.textContent ?? '');
      return;
    }
    if (name === 'TR') {
      this.flush();
      const cells = Array.from(node.childNodes).filter((c) => /^T[DH]$/i.test(c.nodeName));
      this.lines.addRow(cells.map((c) => c.textContent ?? ''));
      return;
    }
    if (name === 'PRE') {
      this.flush();
      this.lines.addPreformatted(node.textContent ?? '');
      return;
    }
    const block = BLOCKS.has(name);
    if (block) this.flush();
    for (const child of Array.from(node.childNodes)) this.walk(child);
    if (block) this.flush();
  }
}

/** The page's content: Readability's article when the page has navigation and it finds one, else the body. */
function mainContent(document: DomDocument): { root: DomNode | null; title: string | null } {
  if (document.querySelector(NAVIGATION) !== null) {
    const article = new Readability(document as never).parse();
    if (article?.content) {
      const { document: content } = parseHTML(`<html><body>${article.content}</body></html>`);
      return { root: (content as unknown as DomDocument).body, title: article.title?.trim() || null };
    }
    for (const furniture of Array.from(document.querySelectorAll(NAVIGATION))) furniture.remove();
  }
  return { root: document.body, title: null };
}

/** The page of an HTML document (its text as a string). */
export function htmlPage(source: string): PageText {
  const text = source.replace(/^\uFEFF/, '');
  // a fragment (no <html> or <body>: a snippet saved as .html) gets the body linkedom does not give it
  const { document } = parseHTML(
    /<(?:html|body)[\s>]/i.test(text) ? text : `<html><body>${text}</body></html>`,
  );
  const dom = document as unknown as DomDocument;
  for (const dropped of Array.from(dom.querySelectorAll(DROPPED))) dropped.remove();
  const { root, title } = mainContent(dom);
  const walker = new HtmlLines();
  if (root) walker.walk(root);
  walker.flush();
  const page = walker.lines.page();
  if (title === null || walker.lines.first === title) return page;
  // the title Readability took out of the content opens the page as its first heading
  return {
    ...page,
    text: page.text === '' ? title : `${title}\n${page.text}`,
    headings: [0, ...(page.headings ?? []).map((h) => h + 1)],
  };
}
