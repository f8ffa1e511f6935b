import { readFile } from 'node:fs/promises';
import { type Document, isMap, isScalar, isSeq, LineCounter, parse, parseDocument, type Scalar } from 'yaml';
import { errorMessage, RgeError } from '../util/errors.ts';
import { writeFileAtomic } from '../util/fs.ts';
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

/** A document is pinned when it says where it comes from (url) and which bytes are expected (sha256). */
export function isPinned(doc: SourceDocument): doc is SourceDocument & { url: string; sha256: string } {
  return doc.url !== null && doc.sha256 !== null;
}

/** Reads and validates a sources.yaml; throws `SourcesFileError` naming every problem at once. */
export async function loadSources(path: string): Promise<SourcesFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new RgeError(`cannot read sources file: ${errorMessage(err)}`, { file: path, cause: err });
  }
  return parseSources(text, path);
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
    message: err.message.split('\n')[0] ?? err.message,
  }));
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

/** What `rge corpus fetch --pin` learned about a document. */
export interface Pin {
  sha256: string;
  accessed_on: string;
}

/**
 * Writes a document's sha256 and accessed_on into sources.yaml, keeping comments, key order and the
 * rest of the text byte for byte where the keys already exist; the file is replaced atomically and
 * the result is validated before it is written.
 */
export async function recordPin(path: string, index: number, pin: Pin): Promise<void> {
  const text = await readFile(path, 'utf8');
  const yaml = parseDocument(text);
  if (yaml.errors.length > 0) parseSources(text, path);
  const entry = yaml.getIn(['documents', index], true);
  if (!isMap(entry)) throw new RgeError(`no document at index ${index}`, { file: path });
  const values: [string, string][] = [
    ['sha256', pin.sha256],
    ['accessed_on', pin.accessed_on],
  ];
  const edits = values.map(([key, value]) => ({ node: entry.get(key, true), value }));
  let updated: string;
  if (edits.every((e) => isScalar(e.node) && e.node.range)) {
    updated = spliceScalars(
      text,
      edits.map((e) => ({ range: (e.node as Scalar).range as Range, value: e.value })),
    );
  } else {
    for (const [key, value] of values) entry.set(key, value);
    updated = yaml.toString({ lineWidth: 0 });
  }
  parseSources(updated, path);
  await writeFileAtomic(path, updated);
}

type Range = [number, number, number];

/** Replaces scalar values by their source ranges, last first so earlier offsets stay valid. */
function spliceScalars(text: string, edits: { range: Range; value: string }[]): string {
  return [...edits]
    .sort((a, b) => b.range[0] - a.range[0])
    .reduce(
      (out, { range, value }) => out.slice(0, range[0]) + yamlString(value) + out.slice(range[1]),
      text,
    );
}

/** A string as YAML reads it back as that string: plain when it can be, quoted otherwise (an all-digit hash). */
function yamlString(value: string): string {
  return parse(value) === value ? value : JSON.stringify(value);
}
