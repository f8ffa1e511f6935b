/**
 * `rge traces import FILE... --to DIR`: logged traces into cases. Each file is streamed (records.ts), its
 * format given or told from its first record (OTLP, OpenInference, contract JSON Lines), its spans
 * grouped into traces across all files (group.ts; one trace may be split across files), and each trace
 * made a case or left out with its reason. DIR/cases.jsonl (one `TraceCase` a line) and DIR/import.json
 * (`TraceImportReport`) are written whole or not at all; `readTraceCases` reads the cases back.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { errorMessage, RgeError } from '../util/errors.ts';
import { readTextFile, writeFileAtomic } from '../util/fs.ts';
import { TraceCase, TraceImportReport, type TraceOrigin } from './case.ts';
import { contractCase, isContractRecord } from './contract.ts';
import { TraceGroups } from './group.ts';
import { isOpenInferenceRecord, openInferenceSpan } from './openinference.ts';
import { isOtlpRecord, otlpSpans } from './otlp.ts';
import { jsonRecords } from './records.ts';

/** A format of logged traces rge reads. */
export type TraceFormat = TraceOrigin['format'];
export const TRACE_FORMATS = ['otlp', 'openinference', 'contract'] as const satisfies readonly TraceFormat[];

/** The files an import writes in its folder. */
export const CASES_FILE = 'cases.jsonl';
export const IMPORT_REPORT_FILE = 'import.json';

export interface TraceImportOptions {
  /** the format of every file, or 'auto' (default): told from each file's first record */
  format?: TraceFormat | 'auto';
  /** how a file is named in the report and the cases' origins (default: the path as given) */
  name?: (file: string) => string;
}

type LeftOut = TraceImportReport['left_out'][number];

/** The format a record is in, or null. */
export function formatOf(record: unknown): TraceFormat | null {
  if (isOtlpRecord(record)) return 'otlp';
  if (isOpenInferenceRecord(record)) return 'openinference';
  if (isContractRecord(record)) return 'contract';
  return null;
}

/** A record's items: a JSON array's elements, or the spans of a `{data: [...]}` / `{spans: [...]}` wrapper. */
function itemsOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === 'object' && formatOf(value) === null)
    for (const key of ['data', 'spans', 'traces']) {
      const list = (value as Record<string, unknown>)[key];
      if (Array.isArray(list)) return list;
    }
  return [value];
}

const keysOf = (v: unknown) =>
  v !== null && typeof v === 'object' ? Object.keys(v).slice(0, 6).join(', ') || '(none)' : typeof v;

/** Everything one import reads and keeps while it reads. */
interface ImportState {
  groups: TraceGroups;
  leftOut: LeftOut[];
  /** contract lines read: each one trace */
  contractLines: number;
  valid: (c: TraceCase, origin: TraceOrigin) => TraceCase | null;
}

/** One file's records into the groups (spans) or straight out as cases (contract lines). */
async function* importFile(
  path: string,
  name: string,
  given: TraceFormat | null,
  state: ImportState,
): AsyncGenerator<TraceCase, TraceImportReport['files'][number]> {
  const count = { lines: 0 };
  let format = given;
  let spans = 0;
  let firstError: string | null = null;
  for await (const rec of jsonRecords(path, count)) {
    if ('error' in rec) {
      firstError ??= `line ${rec.line}: ${rec.error}`;
      state.leftOut.push({
        trace_id: null,
        problem: 'unreadable',
        message: rec.error,
        file: name,
        line: rec.line,
      });
      continue;
    }
    for (const value of itemsOf(rec.value)) {
      format ??= formatOf(value);
      if (format === null)
        throw new RgeError(
          `not a trace export rge reads (OTLP JSON, OpenInference spans, contract JSON Lines): the first record has ${keysOf(value)}`,
          { file: name, line: rec.line },
        );
      const origin: TraceOrigin = { file: name, format, line: rec.line };
      if (formatOf(value) !== format) {
        state.leftOut.push({
          trace_id: null,
          problem: 'unreadable',
          message: `not a ${format} record (its keys: ${keysOf(value)})`,
          file: name,
          line: rec.line,
        });
        continue;
      }
      if (format === 'contract') {
        state.contractLines++;
        const made = contractCase(value, origin);
        if ('leftOut' in made) state.leftOut.push(made.leftOut);
        else {
          const c = state.valid(made.case, origin);
          if (c) yield c;
        }
        continue;
      }
      const read = format === 'otlp' ? otlpSpans(value) : [openInferenceSpan(value)];
      for (const span of read) state.groups.add(span, origin);
      spans += read.length;
    }
  }
  if (format === null)
    throw new RgeError(`not a trace export rge reads: ${firstError ?? 'no records in it'}`, { file: name });
  return { file: name, format, spans, lines: count.lines };
}

/**
 * The cases of logged traces in `files`, as they are made (contract lines at once, span traces once every
 * file is read); the generator's return value is the import's report. A file that is not a trace export
 * is an `RgeError` naming it; a bad line, span or trace is left out, named, and the rest imported.
 */
export async function* importTraces(
  files: readonly string[],
  opts: TraceImportOptions = {},
): AsyncGenerator<TraceCase, TraceImportReport> {
  const t0 = performance.now();
  const name = opts.name ?? ((f: string) => f);
  const given = opts.format && opts.format !== 'auto' ? opts.format : null;
  let cases = 0;
  const leftOut: LeftOut[] = [];
  const state: ImportState = {
    groups: new TraceGroups(leftOut),
    leftOut,
    contractLines: 0,
    valid: (c, origin) => {
      const parsed = TraceCase.safeParse(c);
      if (parsed.success) return parsed.data;
      const why = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
      state.leftOut.push({
        trace_id: c.trace_id,
        problem: 'unknown-schema',
        message: why,
        file: origin.file,
        line: origin.line,
      });
      return null;
    },
  };
  const reports: TraceImportReport['files'] = [];
  for (const file of files) {
    const it = importFile(file, name(file), given, state);
    for (;;) {
      const next = await it.next();
      if (next.done) {
        reports.push(next.value);
        break;
      }
      cases++;
      yield next.value;
    }
  }
  for (const made of state.groups.cases()) {
    if ('leftOut' in made) state.leftOut.push(made.leftOut);
    else {
      const c = state.valid(made.case, made.case.origin);
      if (c) {
        cases++;
        yield c;
      }
    }
  }
  return TraceImportReport.parse({
    files: reports,
    spans: state.groups.spans,
    traces: state.groups.size + state.contractLines,
    cases,
    left_out: state.leftOut,
    seconds: (performance.now() - t0) / 1000,
  });
}

/**
 * Imports `files` into `dir`: DIR/cases.jsonl, streamed to a temporary file renamed into place at the
 * end, then DIR/import.json; an error leaves neither half-written (a cases file of an earlier import
 * stays as it was). Returns the report.
 */
export async function importTracesTo(
  dir: string,
  files: readonly string[],
  opts: TraceImportOptions = {},
): Promise<TraceImportReport> {
  await mkdir(dir, { recursive: true });
  const target = join(dir, CASES_FILE);
  const tmp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  let report: TraceImportReport | undefined;
  // the cases' lines in pieces of about 1 MB: one write per case would be tens of thousands of writes
  async function* lines() {
    const it = importTraces(files, opts);
    let piece = '';
    for (;;) {
      const next = await it.next();
      if (next.done) {
        report = next.value;
        if (piece !== '') yield piece;
        return;
      }
      piece += `${JSON.stringify(next.value)}\n`;
      if (piece.length >= 1 << 20) {
        yield piece;
        piece = '';
      }
    }
  }
  try {
    await pipeline(lines, createWriteStream(tmp));
    await rename(tmp, target);
  } catch (err) {
    await rm(tmp, { force: true });
    if (err instanceof RgeError) throw err;
    throw new RgeError(`cannot write the cases: ${errorMessage(err)}; nothing was written`, {
      file: target,
      cause: err,
    });
  }
  const done = report as TraceImportReport;
  await writeFileAtomic(join(dir, IMPORT_REPORT_FILE), `${JSON.stringify(done, null, 2)}\n`);
  return done;
}

/** The cases of an import folder (DIR/cases.jsonl), one at a time; a line that is not a `TraceCase` is an error naming it. */
export async function* readTraceCases(dir: string): AsyncGenerator<TraceCase> {
  const file = join(dir, CASES_FILE);
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of rl) {
      line++;
      if (text.trim() === '') continue;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (err) {
        throw new RgeError(`not JSON (${errorMessage(err)})`, { file, line });
      }
      const parsed = TraceCase.safeParse(json);
      if (!parsed.success)
        throw new RgeError(
          `not a trace case: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
          { file, line },
        );
      yield parsed.data;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new RgeError('no cases here: run `rge traces import FILE... --to DIR` first', { file });
    throw err;
  } finally {
    rl.close();
  }
}

/** The report of an import folder (DIR/import.json). */
export async function readTraceImportReport(dir: string): Promise<TraceImportReport> {
  const file = join(dir, IMPORT_REPORT_FILE);
  let json: unknown;
  try {
    json = JSON.parse(await readTextFile(file));
  } catch (err) {
    if (err instanceof RgeError) throw err;
    throw new RgeError(`not JSON (${errorMessage(err)})`, { file });
  }
  const parsed = TraceImportReport.safeParse(json);
  if (!parsed.success) throw new RgeError(`not an import report: ${parsed.error.message}`, { file });
  return parsed.data;
}
