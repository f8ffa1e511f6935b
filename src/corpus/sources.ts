import { readFile } from 'node:fs/promises';
import {
  type Document,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parse,
  parseDocument,
  type Scalar,
  type YAMLMap,
} from 'yaml';
import { RgeError } from '../util/errors.ts';
import { readInputFile, writeFileAtomic } from '../util/fs.ts';
import { locateIssue } from '../util/yaml-paths.ts';
import { type SourceDocument, SourcesFile } from './schema.ts';

/** One problem found in a sources file, located at the 1-based line of the offending YAML node. */
export interface SourcesIssue {
  file: string;
  line: number;
  field: string;
  message: string;
}

/** A sources file that does not parse or validate; the message lists every issue as `file:line: field: message`. */
export class SourcesFileError extends RgeError {
  readonly issues: readonly SourcesIssue[];

  constructor(issues: readonly SourcesIssue[]) {
    super(issues.map(formatIssue).join('\n'));
    this.name = 'SourcesFileError';
    this.issues = issues;
  }
}

export function formatIssue(issue: SourcesIssue): string {
  return `${issue.file}:${issue.line}: ${issue.field}: ${issue.message}`;
}

/**
 * A document is pinned when it says which bytes are expected (sha256) and where to get them (a url or
 * a local path; `rge corpus fetch --from DIR` can stand in for both).
 */
export function isPinned(doc: SourceDocument): doc is SourceDocument & { sha256: string } {
  return doc.sha256 !== null && (doc.url !== null || doc.path !== undefined);
}

/** Reads and validates a sources.yaml; throws `SourcesFileError` naming every problem at once. */
export async function loadSources(path: string): Promise<SourcesFile> {
  const text = await readInputFile(path, 'sources file');
  return parseSources(text, path);
}

/**
 * A YAML parser error as one line: its first line without the position (the issue carries the line),
 * e.g. `Nested mappings are not allowed in compact mappings (column 7)`.
 */
export function yamlErrorMessage(message: string): string {
  const first = message.split('\n')[0] ?? message;
  return first.replace(/ at line \d+, column (\d+):?$/, ' (column $1)');
}

/** Parses sources.yaml text; `file` is only used to name the file in error messages. */
export function parseSources(text: string, file: string): SourcesFile {
  const lineCounter = new LineCounter();
  const yaml = parseDocument(text, { lineCounter, prettyErrors: true });
  const lineOf = (offset: number): number => lineCounter.linePos(offset).line;
  const issues: SourcesIssue[] = yaml.errors.map((err) => ({
    file,
    line: err.linePos?.[0].line ?? lineOf(err.pos[0]),
    field: 'yaml',
    message: yamlErrorMessage(err.message),
  }));
  // A file that is not YAML has no fields to check: report only where the YAML breaks.
  // Later YAML errors mostly follow from the first; the first is the one to fix.
  if (issues.length > 0) throw new SourcesFileError(issues.slice(0, 1));
  const data: unknown = yaml.toJS();
  const parsed = SourcesFile.safeParse(data);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) issues.push(...locateIssue(issue, yaml, file, lineOf));
  }
  issues.push(...duplicateIssues(yaml, file, lineOf));
  if (issues.length > 0 || !parsed.success) {
    throw new SourcesFileError(issues.sort((a, b) => a.line - b.line));
  }
  return parsed.data;
}

/** Duplicate (company, fy) pairs and duplicate file names: two documents would land on one PDF. */
function duplicateIssues(yaml: Document, file: string, lineOf: (offset: number) => number): SourcesIssue[] {
  const documents = yaml.get('documents', true);
  if (!isSeq(documents)) return [];
  const issues: SourcesIssue[] = [];
  const firstByIdentity = new Map<string, number>();
  const firstByFile = new Map<string, number>();
  documents.items.forEach((item, index) => {
    if (!isMap(item)) return;
    const company = item.get('company');
    const fy = item.get('fy');
    const pdf = item.get('file');
    const line = lineOf(item.range?.[0] ?? 0);
    if (typeof company === 'string' && typeof fy === 'string') {
      const key = `${company} ${fy}`;
      const first = firstByIdentity.get(key);
      if (first === undefined) firstByIdentity.set(key, line);
      else
        issues.push({
          file,
          line,
          field: `documents[${index}]`,
          message: `duplicate ${key} (first at line ${first})`,
        });
    }
    if (typeof pdf === 'string') {
      const fileNode = item.get('file', true);
      const fileLine = isScalar(fileNode) && fileNode.range ? lineOf(fileNode.range[0]) : line;
      const first = firstByFile.get(pdf);
      if (first === undefined) firstByFile.set(pdf, fileLine);
      else
        issues.push({
          file,
          line: fileLine,
          field: `documents[${index}].file`,
          message: `duplicate file name ${pdf} (first at line ${first})`,
        });
    }
  });
  return issues;
}

/**
 * The sha256 the PDF at a document's `file` must have: `pdf_sha256` when the pinned download is a ZIP
 * holding the PDF, otherwise `sha256` (the download is the PDF). Null when the document is unpinned.
 */
export function pinnedPdfSha256(doc: SourceDocument): string | null {
  return doc.pdf_sha256 ?? doc.sha256;
}

/** What `rge corpus fetch --pin` learned about a document. */
export interface Pin {
  /** of the downloaded (or copied) bytes: the PDF, or the ZIP holding it */
  sha256: string;
  accessed_on: string;
  /** of the PDF taken out of a ZIP; absent when the download is the PDF itself */
  pdf_sha256?: string;
}

/**
 * Writes a document's sha256, accessed_on (and pdf_sha256 for a ZIP) into sources.yaml, keeping
 * comments, key order and the rest of the text byte for byte: existing values are replaced in place,
 * missing keys are inserted as lines after `sha256` (or after the document's last key). Only a
 * document written in flow style (`{...}`) is re-serialised. The file is replaced atomically and the
 * result is validated before it is written.
 */
export async function recordPin(path: string, index: number, pin: Pin): Promise<void> {
  const text = await readFile(path, 'utf8');
  const lineCounter = new LineCounter();
  const yaml = parseDocument(text, { lineCounter });
  if (yaml.errors.length > 0) parseSources(text, path);
  const entry = yaml.getIn(['documents', index], true);
  if (!isMap(entry)) throw new RgeError(`no document at index ${index}`, { file: path });
  const values: [string, string | null][] = [
    ['sha256', pin.sha256],
    ['accessed_on', pin.accessed_on],
  ];
  // A PDF download has no separate PDF pin; a stale one left from an earlier ZIP would contradict it.
  if (pin.pdf_sha256 !== undefined || entry.has('pdf_sha256'))
    values.splice(1, 0, ['pdf_sha256', pin.pdf_sha256 ?? null]);
  let updated: string;
  if (entry.flow) {
    for (const [key, value] of values) entry.set(key, value);
    updated = yaml.toString({ lineWidth: 0 });
  } else {
    updated = spliceScalars(text, pinEdits(text, entry, values, lineCounter, `${path}: documents[${index}]`));
  }
  parseSources(updated, path);
  await writeFileAtomic(path, updated);
}

type Range = [number, number, number];
interface Edit {
  range: [number, number];
  text: string;
}

/** Replacements for keys whose value is a scalar, and one inserted block of lines for missing keys. */
function pinEdits(
  text: string,
  entry: YAMLMap,
  values: [string, string | null][],
  lineCounter: LineCounter,
  where: string,
): Edit[] {
  const edits: Edit[] = [];
  const missing: [string, string | null][] = [];
  for (const [key, value] of values) {
    const node = entry.get(key, true);
    if (isScalar(node) && node.range) {
      const [start, end] = node.range as Range;
      edits.push({ range: [start, end], text: value === null ? 'null' : yamlString(value) });
    } else if (node === undefined) missing.push([key, value]);
    else throw new RgeError(`${where}.${key} is not a plain value; cannot record the pin`);
  }
  if (missing.length === 0) return edits;
  const pairs = entry.items;
  const anchor = pairs.find((p) => isScalar(p.key) && p.key.value === 'sha256') ?? pairs.at(-1);
  const keyNode = anchor?.key;
  const valueNode = anchor?.value;
  if (!isScalar(keyNode) || !keyNode.range || !valueNode || !(valueNode as Scalar).range) {
    throw new RgeError(`${where} has no key to add the pin after`);
  }
  const indent = ' '.repeat(lineCounter.linePos(keyNode.range[0]).col - 1);
  const valueEnd = ((valueNode as Scalar).range as Range)[1];
  const at = text[valueEnd - 1] === '\n' ? valueEnd : lineEnd(text, valueEnd);
  const lines = missing.map(
    ([key, value]) => `${indent}${key}: ${value === null ? 'null' : yamlString(value)}\n`,
  );
  const prefix = at === text.length && !text.endsWith('\n') ? '\n' : '';
  edits.push({ range: [at, at], text: prefix + lines.join('') });
  return edits;
}

/** The offset just after the newline ending the line that holds `offset` (or the end of the text). */
function lineEnd(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  return newline === -1 ? text.length : newline + 1;
}

/** Applies edits by their source ranges, last first so earlier offsets stay valid. */
function spliceScalars(text: string, edits: Edit[]): string {
  return [...edits]
    .sort((a, b) => b.range[0] - a.range[0])
    .reduce((out, { range, text: value }) => out.slice(0, range[0]) + value + out.slice(range[1]), text);
}

/** A string as YAML reads it back as that string: plain when it can be, quoted otherwise (an all-digit hash). */
function yamlString(value: string): string {
  return parse(value) === value ? value : JSON.stringify(value);
}
