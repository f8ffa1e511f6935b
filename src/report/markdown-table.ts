/** Markdown tables, as every section of the report writes them. */

/** A markdown table's header row and the rule under it. */
export const tableHead = (columns: readonly string[]) => [
  `| ${columns.join(' | ')} |`,
  `|${columns.map(() => '---').join('|')}|`,
];
