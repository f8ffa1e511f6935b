/**
 * Document identity for a folder of PDFs ingested without a sources.yaml (FinanceBench, ERC): the
 * company is the file name stem as a slug, the fiscal year is read from the name when it says it.
 */
import { basename, extname } from 'node:path';

export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * The fiscal year a file name states, as FYxx, or null. "FY2023-24" and "FY24" give FY24,
 * "FY2024" gives FY24, and a plain year between 1990 and 2099 ("3M_2022_10K") gives FY22.
 */
export function fiscalYearFromName(name: string): string | null {
  const stem = basename(name, extname(name));
  const range = /FY\s?(?:19|20)\d{2}\s?[-–_]\s?(\d{2})(?!\d)/i.exec(stem);
  if (range) return `FY${range[1]}`;
  const fy = /FY\s?(?:(?:19|20)(\d{2})|(\d{2}))(?!\d)/i.exec(stem);
  if (fy) return `FY${fy[1] ?? fy[2]}`;
  const year = /(?:^|[^0-9])(?:19[9]\d|20\d{2})(?![0-9])/.exec(stem);
  if (year) return `FY${year[0].replace(/\D/g, '').slice(2)}`;
  return null;
}

export function documentIdentity(path: string): { company: string; fy: string | null; source: string } {
  const source = basename(path);
  const company = slugify(basename(source, extname(source))) || 'document';
  return { company, fy: fiscalYearFromName(source), source };
}
