/**
 * What a citation marker is: a bracket whose content is a list of ids, each with a digit or hyphen, not
 * followed by "(" (a Markdown link). Ids are rge's chunk ids (`reliance-FY24-1a2b3c4d`) or a user's
 * system's context ids, which take other forms: `report.pdf#p10-1`, `docs/faq.md#3`, `s3://b/k=2`.
 */
const ID_CHAR = String.raw`[\w.:#/=@~+-]`;
const ID = String.raw`${ID_CHAR}*[-\d]${ID_CHAR}*`;

/** A citation marker, capturing the ids inside the brackets. */
export const CITATION_SOURCE = String.raw`\[\s*(${ID}(?:\s*[,;]\s*${ID})*)\s*\](?!\()`;

/** A new global RegExp for citation markers (one per use: global RegExps keep their lastIndex). */
export function citationPattern(): RegExp {
  return new RegExp(CITATION_SOURCE, 'g');
}
