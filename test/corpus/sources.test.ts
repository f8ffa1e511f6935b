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
  it('validates with 20 documents: FY23 and FY24 of each of the ten companies, all unpinned', async () => {
    const sources = await loadSources(SHIPPED);
    expect(sources.version).toBe(1);
    expect(sources.documents).toHaveLength(20);
    const expected = COMPANIES.flatMap((c) => [`${c} FY23`, `${c} FY24`]);
    expect(sources.documents.map((d) => `${d.company} ${d.fy}`)).toEqual(expected);
    for (const doc of sources.documents) {
      expect(doc.file).toBe(`${doc.company}-${doc.fy}-annual-report.pdf`);
      expect(doc.company_name).toMatch(/Limited$/);
      expect(doc).toMatchObject({ url: null, sha256: null, accessed_on: null });
      expect(isPinned(doc)).toBe(false);
    }
  });

  it('explains in its header how to pin a document and what FY23 means', async () => {
    const text = await readFile(SHIPPED, 'utf8');
    expect(text).toContain('rge corpus fetch --pin');
    expect(text).toContain('FY23 is the fiscal year ended 31 March 2023');
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

  it('reports YAML syntax errors and duplicate keys at their line', () => {
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
    const yamlIssues = issues.filter((i) => i.field === 'yaml');
    expect(yamlIssues.map((i) => i.line)).toEqual([5, 7]);
    expect(yamlIssues[0]?.message).toContain('Map keys must be unique');
  });

  it('rejects a wrong version and an empty document list at their lines', () => {
    const issues = issuesOf('# header\nversion: 2\ndocuments: []\n');
    expect(issues.map((i) => `${i.line} ${i.field}`)).toEqual(['2 version', '3 documents']);
  });

  it('reports an unreadable file as an RgeError naming the file', async () => {
    await expect(loadSources('/nonexistent/sources.yaml')).rejects.toThrow(
      /^\/nonexistent\/sources\.yaml: cannot read sources file/,
    );
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

  it('adds the keys when a document does not have them yet, keeping the comments', async () => {
    const path = join(work, 'sources.yaml');
    await writeFile(
      path,
      '# pinned corpus\nversion: 1\ndocuments:\n  # ITC\n  - company: itc\n    fy: FY24\n    file: itc.pdf\n',
    );
    await recordPin(path, 0, { sha256: 'cd'.repeat(32), accessed_on: '2026-11-30' });
    const text = await readFile(path, 'utf8');
    expect(text).toContain('# pinned corpus');
    expect(text).toContain('# ITC');
    expect((await loadSources(path)).documents[0]).toMatchObject({
      sha256: 'cd'.repeat(32),
      accessed_on: '2026-11-30',
    });
  });
});
