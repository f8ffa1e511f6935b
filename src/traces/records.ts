/**
 * The JSON records of a trace export, streamed: never the whole file in memory. A file whose first
 * non-blank line is JSON on its own is JSON Lines, read line by line (node:readline); otherwise it is one
 * JSON document, scanned character by character: a top-level array gives its elements one at a time, a
 * top-level object is one record. A line or element that is not JSON (a file cut short, a bad line) is
 * a record with an `error`, located by its line; reading goes on.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** One record of the file, or why the text at `line` is not one. */
export type JsonRecord = { line: number; value: unknown } | { line: number; error: string };

/** What a read counted: lines of the file. */
export interface RecordCount {
  lines: number;
}

const firstChar = (s: string) => s.trimStart()[0];

/** The records of `file`, in order; `count.lines` is the file's line count once the iteration ends. */
export async function* jsonRecords(file: string, count: RecordCount): AsyncGenerator<JsonRecord> {
  // 1 MB reads: an export's lines run to a hundred kilobytes and more (a request of spans each)
  const rl = createInterface({
    input: createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 }),
    crlfDelay: Infinity,
  });
  let line = 0;
  let pending: { line: number; error: string } | null = null;
  let document = false;
  let seen = false;
  for await (const text of rl) {
    line++;
    if (pending) {
      yield pending;
      pending = null;
    }
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      if (!seen && (firstChar(text) === '[' || firstChar(text) === '{')) {
        // a JSON document over many lines: scanned below from its start
        document = true;
        break;
      }
      seen = true;
      pending = { line, error: `not JSON (${(err as Error).message})` };
      continue;
    }
    seen = true;
    yield { line, value };
  }
  rl.close();
  if (document) {
    yield* documentRecords(file, count);
    return;
  }
  count.lines = line;
  if (pending) yield { ...pending, error: `${pending.error}; the file's last line: cut short?` };
}

/** A scanner's place in a JSON document: nesting depth, inside a string or not, the record being read. */
interface ScanState {
  depth: number;
  inString: boolean;
  escape: boolean;
  line: number;
  /** 1 inside a top-level array (each element a record), 0 for a top-level object (the record) */
  base: number;
  top: boolean;
  capture: string[] | null;
  captureLine: number;
}

/** The records of a JSON document: each element of a top-level array, or the top-level object. */
async function* documentRecords(file: string, count: RecordCount): AsyncGenerator<JsonRecord> {
  const s: ScanState = {
    depth: 0,
    inString: false,
    escape: false,
    line: 1,
    base: 0,
    top: false,
    capture: null,
    captureLine: 0,
  };
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const records: JsonRecord[] = [];
    scanChunk(chunk as string, s, records);
    yield* records;
  }
  count.lines = s.line;
  if (s.capture) yield { line: s.captureLine, error: 'the file ends inside this record (cut short?)' };
  else if (!s.top) yield { line: 1, error: 'not JSON: the file starts with neither [ nor {' };
}

function scanChunk(chunk: string, s: ScanState, out: JsonRecord[]): void {
  let from = 0;
  for (let i = 0; i < chunk.length; i++) {
    const c = chunk.charCodeAt(i);
    if (c === 10) s.line++;
    if (s.inString) {
      if (s.escape) s.escape = false;
      else if (c === 92) s.escape = true;
      else if (c === 34) s.inString = false;
      continue;
    }
    if (c === 34) s.inString = true;
    else if (c === 123 || c === 91) {
      if (!s.top) {
        s.top = true;
        s.base = c === 91 ? 1 : 0;
      }
      if (s.depth === s.base && s.capture === null) {
        s.capture = [];
        s.captureLine = s.line;
        from = i;
      }
      s.depth++;
    } else if (c === 125 || c === 93) {
      s.depth--;
      if (s.depth === s.base && s.capture !== null) {
        const text = s.capture.join('') + chunk.slice(from, i + 1);
        s.capture = null;
        try {
          out.push({ line: s.captureLine, value: JSON.parse(text) });
        } catch (err) {
          out.push({ line: s.captureLine, error: `not JSON (${(err as Error).message})` });
        }
      }
    }
  }
  if (s.capture !== null) s.capture.push(chunk.slice(from));
}
