/**
 * Company names for a folder of PDFs ingested without a sources.yaml: which company (slug and display
 * name) and fiscal year each file is. Given by `--company-from FILE` (a CSV `file,company[,fy]` or a
 * YAML map) or by a `companies.yaml` in the folder; a file neither names keeps `documentIdentity`'s
 * file-stem company and year from its name.
 *
 * CSV: one `file,company[,fy]` per line; an optional header line `file,company[,fy]`; blank lines and
 * `#` comments are skipped; a field may be double-quoted (`"Infosys Limited, Bengaluru"`). `company` is
 * a display name or a slug; the slug is its slugify.
 *
 * YAML: a map from file name to either a display name or
 * `{ company: <slug>, name: <display name>, fy: FY24 }` (all optional but one of company and name).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { isMap, isPair, isScalar, LineCounter, parseDocument } from 'yaml';
import { RgeError } from '../util/errors.ts';
import { slugify } from './naming.ts';

/** The file a folder's company map is read from when no --company-from is given. */
export const COMPANIES_FILE = 'companies.yaml';

export interface CompanyEntry {
  /** the company slug chunk ids and --company use */
  company: string;
  /** the display name, when one was given */
  name: string | null;
  /** the fiscal year, when given (else read from the file name) */
  fy: string | null;
  /** where it was given: file and line, for errors about the entry */
  line: number;
}

export type CompanyMap = Map<string, CompanyEntry>;

/** "FY24", "fy2024", "FY2023-24" -> FY24; null when it is none of these. */
function normaliseFy(raw: string): string | null {
  const m = /^fy\s?(?:(?:19|20)\d{2}\s?[-–]\s?(\d{2})|(?:19|20)(\d{2})|(\d{2}))$/i.exec(raw.trim());
  if (!m) return null;
  return `FY${m[1] ?? m[2] ?? m[3]}`;
}

/** A slug and display name from what a user wrote as the company. */
function entryFrom(
  company: string | undefined,
  name: string | undefined,
  fy: string | undefined,
  where: { file: string; line: number },
): CompanyEntry {
  const display = (name ?? company ?? '').trim();
  const slug = slugify(company ?? name ?? '');
  if (slug === '') throw new RgeError('the company is empty', where);
  let year: string | null = null;
  if (fy !== undefined && fy.trim() !== '') {
    year = normaliseFy(fy);
    if (year === null) throw new RgeError(`fy must look like FY24 or FY2024, got "${fy}"`, where);
  }
  return {
    company: slug,
    name: display !== '' && display !== slug ? display : null,
    fy: year,
    line: where.line,
  };
}

/** The fields of one CSV line (double quotes around a field, "" for a quote inside one); null if a quote is left open. */
function csvFields(line: string): string[] | null {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) return null;
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += line[i++];
      }
      while (i < line.length && line[i] !== ',') field += line[i++];
    } else {
      while (i < line.length && line[i] !== ',') field += line[i++];
    }
    fields.push(field.trim());
    if (i >= line.length) return fields;
    i++; // the comma
  }
}

export function parseCompanyCsv(text: string, file: string): CompanyMap {
  const map: CompanyMap = new Map();
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const where = { file, line: i + 1 };
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const fields = csvFields(line);
    if (fields === null) throw new RgeError('a quoted field is not closed', where);
    if (map.size === 0 && fields[0]?.toLowerCase() === 'file' && fields[1]?.toLowerCase() === 'company')
      continue;
    if (fields.length < 2 || fields.length > 3)
      throw new RgeError(`expected file,company[,fy], got ${fields.length} field(s): ${line}`, where);
    const [name, company, fy] = fields as [string, string, string | undefined];
    if (name === '') throw new RgeError('the file name is empty', where);
    if (map.has(name))
      throw new RgeError(`${name} is named twice (first on line ${map.get(name)?.line})`, where);
    map.set(name, entryFrom(company, undefined, fy, where));
  }
  return map;
}

export function parseCompanyYaml(text: string, file: string): CompanyMap {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter });
  const lineOf = (offset: number | undefined) =>
    offset === undefined ? 1 : lineCounter.linePos(offset).line;
  const first = doc.errors[0];
  if (first)
    throw new RgeError(`invalid YAML: ${first.message.split('\n')[0]}`, { file, line: lineOf(first.pos[0]) });
  const map: CompanyMap = new Map();
  if (doc.contents === null) return map;
  if (!isMap(doc.contents))
    throw new RgeError('expected a map from file name to company', {
      file,
      line: lineOf(doc.contents.range?.[0]),
    });
  for (const pair of doc.contents.items) {
    if (!isPair(pair) || !isScalar(pair.key)) continue;
    const where = { file, line: lineOf(pair.key.range?.[0]) };
    const name = String(pair.key.value);
    const value = pair.value;
    if (isScalar(value) && typeof value.value === 'string') {
      map.set(name, entryFrom(undefined, value.value, undefined, where));
      continue;
    }
    if (!isMap(value)) throw new RgeError(`${name}: expected a company name or { company, name, fy }`, where);
    const fields: Record<string, string> = {};
    for (const p of value.items) {
      if (!isPair(p) || !isScalar(p.key)) continue;
      const key = String(p.key.value);
      const at = { file, line: lineOf(p.key.range?.[0]) };
      if (!['company', 'name', 'fy'].includes(key))
        throw new RgeError(`${name}: unknown field "${key}" (company, name, fy)`, at);
      if (!isScalar(p.value) || p.value.value === null)
        throw new RgeError(`${name}: ${key} must be a string`, at);
      fields[key] = String(p.value.value);
    }
    if (fields.company === undefined && fields.name === undefined)
      throw new RgeError(`${name}: give company or name`, where);
    map.set(name, entryFrom(fields.company, fields.name, fields.fy, where));
  }
  return map;
}

/** Reads a company map, CSV or YAML by its extension. */
export async function loadCompanyMap(path: string): Promise<CompanyMap> {
  if (!existsSync(path)) throw new RgeError('company map not found', { file: path });
  const text = await readFile(path, 'utf8');
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return parseCompanyCsv(text, path);
  if (ext === '.yaml' || ext === '.yml') return parseCompanyYaml(text, path);
  throw new RgeError('a company map is a .csv (file,company[,fy]) or a .yaml file', { file: path });
}
