/**
 * A Markdown file as one rge page, read by the unified project's parser (mdast-util-from-markdown, with
 * GitHub-flavoured tables, task lists, strikethrough and footnotes): each heading, paragraph and list
 * item one line, each table row one line of cells joined with ` | `, a code block's lines as they stand.
 * A YAML front matter block is not text of the document and is dropped; so is raw HTML.
 */
import type { Nodes, Parent, PhrasingContent, RootContent, TableRow } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import type { PageText } from '../schema.ts';
import { PageLines } from './lines.ts';

/** A YAML front matter block: `---` on the first line, up to the next `---` or `...` line. */
const FRONT_MATTER = /^---\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

/** The readable text of inline content: text, code, link text, an image's alt text; a line break is a space. */
function inlineText(node: Nodes): string {
  switch (node.type) {
    case 'text':
    case 'inlineCode':
      return node.value;
    case 'image':
      return node.alt ?? '';
    case 'break':
      return ' ';
    case 'html':
    case 'footnoteReference':
      return '';
    default:
      return 'children' in node ? (node.children as Nodes[]).map(inlineText).join('') : '';
  }
}

function addRow(lines: PageLines, row: TableRow): void {
  lines.addRow(row.children.map((cell) => cell.children.map(inlineText).join('')));
}

/** A list item: its own paragraphs on one line (numbered when the list is), nested blocks after it. */
function addListItem(lines: PageLines, item: Parent, marker: string): void {
  const own = item.children.filter((c) => c.type === 'paragraph');
  lines.add(`${marker}${own.map((p) => inlineText(p as Nodes)).join(' ')}`);
  for (const child of item.children) if (child.type !== 'paragraph') addBlock(lines, child);
}

/** One block of the document, as lines. */
function addBlock(lines: PageLines, node: RootContent): void {
  switch (node.type) {
    case 'heading':
      lines.addHeading(node.children.map((c: PhrasingContent) => inlineText(c)).join(''));
      return;
    case 'paragraph':
      lines.add(inlineText(node));
      return;
    case 'code':
      lines.addPreformatted(node.value);
      return;
    case 'table':
      for (const row of node.children) addRow(lines, row);
      return;
    case 'list':
      for (const [i, item] of node.children.entries())
        addListItem(lines, item, node.ordered ? `${(node.start ?? 1) + i}. ` : '');
      return;
    case 'blockquote':
    case 'footnoteDefinition':
      for (const child of node.children) addBlock(lines, child);
      return;
    default:
      return; // thematic breaks, definitions, raw HTML, YAML
  }
}

/** The page of a Markdown document (its text as a string). */
export function markdownPage(source: string): PageText {
  const tree = fromMarkdown(source.replace(/^\uFEFF/, '').replace(FRONT_MATTER, ''), {
    extensions: [gfm()],
    mdastExtensions: [gfmFromMarkdown()],
  });
  const lines = new PageLines();
  for (const node of tree.children) addBlock(lines, node);
  return lines.page();
}
