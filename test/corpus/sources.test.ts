import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  isPinned,
  loadSources,
  parseSources,
  recordPin,
  SourcesFileError,
  type SourcesIssue,
} from '../../src/corpus/sources.ts';
import { COMPANIES } from '../../src/fixtures/facts.ts';
import { RgeError } from '../../src/util/errors.ts';

const SHIPPED = join(import.meta.dirname, '../../data/corpus/sources.yaml');

function issuesOf(text: string, file = 'sources.yaml'): SourcesIssue[] {
  try {
    parseSources(text, file);
  } catch (err) {
    expect(err).toBeInstanceOf(SourcesFileError);
    expect(err).toBeInstanceOf(RgeError);
    return [...(err as SourcesFileError).issues];
  }
  throw new Error('expected the sources to be rejected');
}

describe('the shipped data/corpus/sources.yaml', () => {
  /** The documents no public source gave a url for (issue 11's candidate list). */
  const WITHOUT_URL = [
    'adani-ports FY23',
    'adani-ports FY24',
    'ola-electric FY23',
    'nykaa FY23',
    'nykaa FY24',
    'paytm FY23',
  ];
  /** The NSE archive entries seen as ZIP files. */
  const ZIPPED = ['hdfc-bank FY23', 'bharti-airtel FY23', 'tata-motors FY23'];

  it('validates with 20 documents: FY23 and FY24 of each of the ten companies, all unpinned', async () => {
    const sources = await loadSources(SHIPPED);
    expect(sources.version).toBe(1);
    expect(sources.documents).toHaveLength(20);
    const expected = COMPANIES.flatMap((c) => [`${c} FY23`, `${c} FY24`]);
    expect(sources.documents.map((d) => `${d.company} ${d.fy}`)).toEqual(expected);
    for (const doc of sources.documents) {
      expect(doc.file).toBe(`${doc.company}-${doc.fy}-annual-report.pdf`);
      expect(doc.company_name).toMatch(/Limited$/);
      expect(doc).toMatchObject({ sha256: null, accessed_on: null });
      expect(doc.pdf_sha256 ?? null).toBeNull();
      expect(doc.path).toBeUndefined();
      expect(isPinned(doc)).toBe(false);
    }
  });

  it('carries a candidate url for 14 documents, and a note saying so and pointing at `path` for the other 6', async () => {
    const { documents } = await loadSources(SHIPPED);
    const withUrl = documents.filter((d) => d.url !== null);
    expect(withUrl).toHaveLength(14);
    expect(documents.filter((d) => d.url === null).map((d) => `${d.company} ${d.fy}`)).toEqual(WITHOUT_URL);
    for (const doc of documents.filter((d) => d.url === null)) {
      expect(doc.alt_urls).toBeUndefined();
      expect(doc.note).toMatch(/[Nn]o (download )?url/);
      expect(doc.note).toContain('`path`');
    }
    expect(withUrl.flatMap((d) => d.alt_urls ?? [])).toHaveLength(5);
    const allUrls = withUrl.flatMap((d) => [d.url as string, ...(d.alt_urls ?? [])]);
    expect(new Set(allUrls).size).toBe(allUrls.length);
    expect(documents.filter((d) => d.url?.endsWith('.zip')).map((d) => `${d.company} ${d.fy}`)).toEqual(
      ZIPPED,
    );
    // each NSE archive url names the company's symbol and the fiscal year it is filed under
    for (const doc of withUrl.filter((d) => d.url?.includes('nsearchives'))) {
      const year = Number(`20${doc.fy.slice(2)}`);
      expect(doc.url).toContain(`_${year - 1}_${year}_`);
    }
  });

  it('says on each url line how well the url is attested, and which ones are ZIPs', async () => {
    const lines = (await readFile(SHIPPED, 'utf8')).split('\n');
    const urlLines = lines.filter((l) => /^\s+(?:url: |- )https?:\/\//.test(l));
    expect(urlLines).toHaveLength(19);
    for (const line of urlLines) expect(line).toMatch(/ # (?:E2|E1\+|E1|lead)\b/);
    for (const line of urlLines.filter((l) => / # lead/.test(l))) expect(line).toContain('not confirmed');
    for (const line of urlLines.filter((l) => l.includes('.zip')))
      expect(line).toContain('a ZIP holding the PDF');
  });

  it('explains in its header how to pin a document, what FY23 means, and every field', async () => {
    const text = await readFile(SHIPPED, 'utf8');
    const header = text.slice(0, text.indexOf('version: 1'));
    expect(header).toContain('rge corpus fetch --pin');
    expect(header).toContain('FY23 is the fiscal year ended 31 March 2023');
    for (const field of ['url', 'alt_urls', 'path', 'sha256', 'pdf_sha256', 'zip_entry', 'accessed_on'])
      expect(header).toMatch(new RegExp(`^#   ${field} `, 'm'));
    for (const grade of ['E2', 'E1', 'lead']) expect(header).toMatch(new RegExp(`^#   ${grade} `, 'm'));
  });
});

describe('parseSources errors', () => {
  const broken = [
    'version: 1', // 1
    'documents:', // 2
    '  - company: Reliance', // 3  not a slug
    '    fy: 2024', // 4  not FYxx
    '    file: reliance.pdf', // 5
    '    sha256: abc123', // 6  not 64 hex digits
    '    colour: blue', // 7  unknown field
    '  - company: itc', // 8
    '    fy: FY24', // 9
    '    file: reliance.pdf', // 10 duplicate file name
    '  - company: itc', // 11 duplicate (itc, FY24)
    '    fy: FY24', // 12
    '    file: itc-again.pdf', // 13
    '    url: ftp://example.com/itc.pdf', // 14 not http(s)
    '  - company: paytm', // 15 file missing
    '    fy: FY23', // 16
    '',
  ].join('\n');

  it('names file, line and field of every problem, in one pass', () => {
    const issues = issuesOf(broken, 'data/corpus/sources.yaml');
    const located = issues.map((i) => `${i.line} ${i.field}`);
    expect(located).toEqual([
      '3 documents[0].company',
      '4 documents[0].fy',
      '6 documents[0].sha256',
      '7 documents[0].colour',
      '10 documents[1].file',
      '11 documents[2]',
      '14 documents[2].url',
      '15 documents[3].file',
    ]);
    expect(issues.find((i) => i.field === 'documents[0].colour')?.message).toBe('unknown field');
    expect(issues.find((i) => i.field === 'documents[2]')?.message).toBe(
      'duplicate itc FY24 (first at line 8)',
    );
    expect(issues.find((i) => i.field === 'documents[1].file')?.message).toBe(
      'duplicate file name reliance.pdf (first at line 5)',
    );
    expect(issues.find((i) => i.field === 'documents[3].file')?.message).toMatch(
      /^required field is missing/,
    );
  });

  it('formats each problem as file:line: field: message in the error message', () => {
    let message = '';
    try {
      parseSources(broken, 'data/corpus/sources.yaml');
    } catch (err) {
      message = (err as Error).message;
    }
    const lines = message.split('\n');
    expect(lines).toHaveLength(8);
    expect(lines[0]).toBe(
      'data/corpus/sources.yaml:3: documents[0].company: company must be a lowercase slug such as hdfc-bank',
    );
    expect(lines[1]).toBe(
      'data/corpus/sources.yaml:4: documents[0].fy: Invalid input: expected string, received number',
    );
    expect(lines[2]).toBe(
      'data/corpus/sources.yaml:6: documents[0].sha256: sha256 must be 64 lowercase hex digits',
    );
  });

  it('reports the first YAML error at its line, and no field errors of a file that is not YAML', () => {
    const text = [
      'version: 1',
      'documents:',
      '  - company: itc',
      '    fy: FY24',
      '    fy: FY23',
      '    file: [itc.pdf',
      '',
    ].join('\n');
    const issues = issuesOf(text);
    expect(issues.map((i) => `${i.line} ${i.field}`)).toEqual(['5 yaml']);
    expect(issues[0]?.message).toBe('Map keys must be unique (column 5)');
  });

  it('checks alt_urls, path, pdf_sha256 and zip_entry at their lines', () => {
    const text = [
      'version: 1', // 1
      'documents:', // 2
      '  - company: itc', // 3
      '    fy: FY24', // 4
      '    file: itc.pdf', // 5
      '    alt_urls:', // 6
      '      - https://example.com/itc.pdf', // 7
      '      - ftp://example.com/itc.pdf', // 8
      "    path: ''", // 9
      '    pdf_sha256: ABC', // 10
      '    zip_entry: 3', // 11
      '',
    ].join('\n');
    const issues = issuesOf(text);
    expect(issues.map((i) => `${i.line} ${i.field}`)).toEqual([
      '8 documents[0].alt_urls[1]',
      '9 documents[0].path',
      '10 documents[0].pdf_sha256',
      '11 documents[0].zip_entry',
    ]);
    expect(issues[1]?.message).toBe('path must not be empty');
    expect(issues[2]?.message).toBe('sha256 must be 64 lowercase hex digits');
  });

  it('rejects a wrong version and an empty document list at their lines', () => {
    const issues = issuesOf('# header\nversion: 2\ndocuments: []\n');
    expect(issues.map((i) => `${i.line} ${i.field}`)).toEqual(['2 version', '3 documents']);
  });

  it('reports a missing file as a usage error naming the file', async () => {
    const err = await loadSources('/nonexistent/sources.yaml').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RgeError);
    expect((err as RgeError).message).toBe('/nonexistent/sources.yaml: sources file not found');
    expect((err as RgeError).exitCode).toBe(2);
  });
});

describe('recordPin', () => {
  let work: string;
  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), 'rge-sources-'));
  });
  afterEach(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('writes sha256 and accessed_on into a copy of the shipped file, changing nothing else', async () => {
    const path = join(work, 'sources.yaml');
    const original = await readFile(SHIPPED, 'utf8');
    await writeFile(path, original.replace(/(file: itc-FY24-annual-report\.pdf)/, '$1 # keep me'));
    const sha = 'ab'.repeat(32);

    const before = await loadSources(path);
    const index = before.documents.findIndex((d) => d.company === 'itc' && d.fy === 'FY24');
    await recordPin(path, index, { sha256: sha, accessed_on: '2026-11-30' });

    const after = await readFile(path, 'utf8');
    const changed = after.split('\n').filter((line, i) => line !== (original.split('\n')[i] ?? ''));
    expect(changed).toEqual([
      `    sha256: ${sha}`,
      '    accessed_on: 2026-11-30',
      '    file: itc-FY24-annual-report.pdf # keep me',
    ]);
    const reloaded = await loadSources(path);
    expect(reloaded.documents[index]).toMatchObject({
      company: 'itc',
      fy: 'FY24',
      sha256: sha,
      accessed_on: '2026-11-30',
    });
    expect(reloaded.documents.filter((d) => d.sha256 !== null)).toHaveLength(1);
  });

  it('pins a ZIP in the shipped file: sha256 and pdf_sha256 in place, their comments kept', async () => {
    const path = join(work, 'sources.yaml');
    const original = await readFile(SHIPPED, 'utf8');
    await writeFile(path, original);
    const index = (await loadSources(path)).documents.findIndex(
      (d) => d.company === 'hdfc-bank' && d.fy === 'FY23',
    );
    const [zipSha, pdfSha] = ['ab'.repeat(32), 'cd'.repeat(32)];
    await recordPin(path, index, { sha256: zipSha, pdf_sha256: pdfSha, accessed_on: '2026-11-30' });

    const after = (await readFile(path, 'utf8')).split('\n');
    const changed = after.filter((line, i) => line !== (original.split('\n')[i] ?? ''));
    expect(changed).toEqual([
      `    sha256: ${zipSha} # of the ZIP`,
      `    pdf_sha256: ${pdfSha} # of the PDF inside it`,
      '    accessed_on: 2026-11-30',
    ]);
    expect((await loadSources(path)).documents[index]).toMatchObject({ sha256: zipSha, pdf_sha256: pdfSha });
  });

  it('inserts pdf_sha256 as a line after sha256 when a document turns out to be a ZIP, moving nothing else', async () => {
    const path = join(work, 'sources.yaml');
    const original = await readFile(SHIPPED, 'utf8');
    await writeFile(path, original);
    const index = (await loadSources(path)).documents.findIndex(
      (d) => d.company === 'reliance' && d.fy === 'FY24',
    );
    const [zipSha, pdfSha] = ['ab'.repeat(32), 'cd'.repeat(32)];
    await recordPin(path, index, { sha256: zipSha, pdf_sha256: pdfSha, accessed_on: '2026-11-30' });

    const after = await readFile(path, 'utf8');
    const block = (text: string) =>
      text.slice(
        text.indexOf('  - company: reliance\n    company_name: Reliance Industries Limited\n    fy: FY24'),
      );
    expect(after.slice(0, after.length - block(after).length)).toBe(
      original.slice(0, original.length - block(original).length),
    );
    expect(after).toBe(
      original.replace(
        /(fy: FY24\n {4}url: \S+ # E2\n {4}alt_urls:\n {6}- \S+ # E1\n) {4}sha256: null\n {4}accessed_on: null\n/,
        `$1    sha256: ${zipSha}\n    pdf_sha256: ${pdfSha}\n    accessed_on: 2026-11-30\n`,
      ),
    );
    expect(after).not.toBe(original);
  });

  it('sets a stale pdf_sha256 back to null when the download is the PDF itself', async () => {
    const path = join(work, 'sources.yaml');
    await writeFile(
      path,
      `version: 1\ndocuments:\n  - company: itc\n    fy: FY24\n    file: itc.pdf\n    sha256: null\n    pdf_sha256: ${'cd'.repeat(32)}\n    accessed_on: null\n`,
    );
    await recordPin(path, 0, { sha256: 'ab'.repeat(32), accessed_on: '2026-11-30' });
    expect(await readFile(path, 'utf8')).toBe(
      `version: 1\ndocuments:\n  - company: itc\n    fy: FY24\n    file: itc.pdf\n    sha256: ${'ab'.repeat(32)}\n    pdf_sha256: null\n    accessed_on: 2026-11-30\n`,
    );
  });

  it('quotes a hash that YAML would otherwise read as a number', async () => {
    const path = join(work, 'sources.yaml');
    await writeFile(
      path,
      'version: 1\ndocuments:\n  - company: itc\n    fy: FY24\n    file: itc.pdf\n    sha256: null\n    accessed_on: null\n',
    );
    const digits = '1'.repeat(64);
    await recordPin(path, 0, { sha256: digits, accessed_on: '2026-11-30' });
    expect(await readFile(path, 'utf8')).toContain(`sha256: "${digits}"`);
    expect((await loadSources(path)).documents[0]?.sha256).toBe(digits);
  });

  it('adds the keys as lines after the last one when a document does not have them yet, keeping the rest', async () => {
    const path = join(work, 'sources.yaml');
    const before =
      '# pinned corpus\nversion: 1\ndocuments:\n  # ITC\n  - company: itc\n    fy: FY24\n    file: itc.pdf # the report\n  # Zomato\n  - company: zomato\n    fy: FY24\n    file: zomato.pdf';
    await writeFile(path, before);
    await recordPin(path, 0, { sha256: 'cd'.repeat(32), accessed_on: '2026-11-30' });
    await recordPin(path, 1, {
      sha256: 'ef'.repeat(32),
      accessed_on: '2026-11-30',
      pdf_sha256: 'ab'.repeat(32),
    });
    expect(await readFile(path, 'utf8')).toBe(
      before
        .replace(
          '# the report\n',
          `# the report\n    sha256: ${'cd'.repeat(32)}\n    accessed_on: 2026-11-30\n`,
        )
        .concat(
          `\n    sha256: ${'ef'.repeat(32)}\n    pdf_sha256: ${'ab'.repeat(32)}\n    accessed_on: 2026-11-30\n`,
        ),
    );
    expect((await loadSources(path)).documents[0]).toMatchObject({
      sha256: 'cd'.repeat(32),
      accessed_on: '2026-11-30',
    });
  });

  it('re-serialises only a document written in flow style', async () => {
    const path = join(work, 'sources.yaml');
    await writeFile(path, '# corpus\nversion: 1\ndocuments:\n  - {company: itc, fy: FY24, file: itc.pdf}\n');
    await recordPin(path, 0, { sha256: 'cd'.repeat(32), accessed_on: '2026-11-30' });
    const text = await readFile(path, 'utf8');
    expect(text).toContain('# corpus');
    expect((await loadSources(path)).documents[0]).toMatchObject({ sha256: 'cd'.repeat(32) });
  });
});
