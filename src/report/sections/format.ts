/** The markdown every section writes: tables, one-line cells, and numbers as the report prints them. */

/** A markdown table's header row and the rule under it. */
export const tableHead = (columns: readonly string[]) => [
  `| ${columns.join(' | ')} |`,
  `|${columns.map(() => '---').join('|')}|`,
];

/** A markdown table cell or a line: no pipe breaks the table, no newline the line. */
export const oneLine = (t: string) => t.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

/** Two and three decimals; `n/a` for no number. */
export const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
export const f3 = (x: number | null) => (x !== null && Number.isFinite(x) ? x.toFixed(3) : 'n/a');

/** A share as a percentage to a tenth. */
export const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** A difference with its sign (a minus sign, not a hyphen), to three decimals. */
export const signed = (x: number) => `${x >= 0 ? '+' : '\u2212'}${Math.abs(x).toFixed(3)}`;
