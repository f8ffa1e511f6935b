/**
 * The lines of a page read from a Markdown or HTML document, as the chunker takes them (chunk.ts): one
 * line per heading, paragraph, list item or table row (cells joined with ` | `, as the PDF table path
 * joins them: layout.ts COLUMN_SEPARATOR; the chunker folds a tab into a space, so a tab would not
 * survive), with the heading lines marked (`PageText.headings`).
 */
import { COLUMN_SEPARATOR } from '../layout.ts';
import type { PageText } from '../schema.ts';

/** Folds a run of whitespace (line ends of a wrapped paragraph too) into one space. */
export function foldWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export class PageLines {
  private readonly lines: string[] = [];
  private readonly headings: number[] = [];

  /** A line of content; empty text adds nothing. */
  add(text: string): void {
    const line = foldWhitespace(text);
    if (line !== '') this.lines.push(line);
  }

  /** A heading line; an empty heading adds nothing. */
  addHeading(text: string): void {
    const line = foldWhitespace(text);
    if (line === '') return;
    this.headings.push(this.lines.length);
    this.lines.push(line);
  }

  /** A table row: its cells, each folded, joined with ` | ` (a cell's own `|` stays as it is). */
  addRow(cells: readonly string[]): void {
    const row = cells.map(foldWhitespace);
    if (row.some((c) => c !== '')) this.lines.push(row.join(COLUMN_SEPARATOR));
  }

  /** Lines of preformatted text (a code block) as they stand, blank ones dropped. */
  addPreformatted(text: string): void {
    for (const line of text.split(/\r?\n/)) if (line.trim() !== '') this.lines.push(line.trimEnd());
  }

  get count(): number {
    return this.lines.length;
  }

  /** The first line, if any (a title already printed as the first heading is not added twice). */
  get first(): string | undefined {
    return this.lines[0];
  }

  /** The document as one page (page 1), its heading lines marked. */
  page(): PageText {
    return { page: 1, text: this.lines.join('\n'), method: 'text', headings: [...this.headings] };
  }
}
