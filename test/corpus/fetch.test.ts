import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import PDFDocument from 'pdfkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registerFetchCommand } from '../../src/cli/corpus-fetch.ts';
import type { CliIO } from '../../src/cli/io.ts';
import { fetchSources } from '../../src/corpus/fetch.ts';
import type { SourceDocument, SourcesFile } from '../../src/corpus/schema.ts';
import { isPinned, loadSources } from '../../src/corpus/sources.ts';
import { UsageError } from '../../src/util/errors.ts';
import { sha256 } from '../../src/util/fs.ts';
import {
  cutAfter,
  failWith,
  type LoopbackServer,
  redirectTo,
  serveBytes,
  startLoopbackServer,
} from '../helpers/http-server.ts';

async function makePdf(pages: number): Promise<Buffer> {
  const pdf = new PDFDocument({ compress: false });
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => pdf.on('end', resolve));
  for (let page = 1; page <= pages; page++) {
    if (page > 1) pdf.addPage();
    pdf.fontSize(14).text(`Reliance Industries Limited - Integrated Annual Report 2023-24, page ${page}`);
    pdf.fontSize(10).text('Revenue from operations rose to Rs 9,00,000 crore. '.repeat(40));
  }
  pdf.end();
  await ended;
  return Buffer.concat(chunks);
}

const FILE = 'reliance-FY24-annual-report.pdf';

function sourceDoc(overrides: Partial<SourceDocument> = {}): SourceDocument {
  return {
    company: 'reliance',
    company_name: 'Reliance Industries Limited',
    fy: 'FY24',
    url: null,
    sha256: null,
    accessed_on: null,
    file: FILE,
    ...overrides,
  };
}

function sourcesOf(...documents: SourceDocument[]): SourcesFile {
  return { version: 1, documents };
}

let server: LoopbackServer;
let pdf: Buffer;
let work: string;
let dest: string;

beforeAll(async () => {
  pdf = await makePdf(4);
});

beforeEach(async () => {
  server = await startLoopbackServer();
  work = await mkdtemp(join(tmpdir(), 'rge-fetch-'));
  dest = join(work, 'pdfs');
});

afterEach(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

afterAll(() => {
  pdf = Buffer.alloc(0);
});

function fetchInto(sources: SourcesFile, extra: Partial<Parameters<typeof fetchSources>[1]> = {}) {
  return fetchSources(sources, { destDir: dest, sourcesPath: join(work, 'sources.yaml'), ...extra });
}

describe('fetchSources over HTTP', () => {
  it('downloads a pinned document, verifies its sha256, and finds it present the next time', async () => {
    server.route('/ar.pdf', serveBytes(pdf));
    const doc = sourceDoc({ url: server.url('/ar.pdf'), sha256: sha256(pdf) });

    const [first] = await fetchInto(sourcesOf(doc));
    expect(first).toMatchObject({ status: 'downloaded', sha256: sha256(pdf) });
    expect(await readFile(join(dest, FILE))).toEqual(pdf);
    expect(existsSync(join(dest, `${FILE}.part`))).toBe(false);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');

    const [second] = await fetchInto(sourcesOf(doc));
    expect(second).toMatchObject({ status: 'present', sha256: sha256(pdf) });
    expect(server.requests).toHaveLength(1);
  });

  it('refuses bytes whose sha256 differs from the pin, naming both hashes, and keeps no file', async () => {
    const other = randomBytes(5000);
    server.route('/ar.pdf', serveBytes(other));
    const doc = sourceDoc({ url: server.url('/ar.pdf'), sha256: sha256(pdf) });

    const [result] = await fetchInto(sourcesOf(doc));
    expect(result?.status).toBe('failed');
    expect(result?.error).toContain(`expected ${sha256(pdf)}`);
    expect(result?.error).toContain(`got ${sha256(other)}`);
    expect(existsSync(join(dest, FILE))).toBe(false);
    expect(existsSync(join(dest, `${FILE}.part`))).toBe(false);
  });

  it('reports HTTP errors with the status and the url, and carries on with the next document', async () => {
    server.route('/broken.pdf', failWith(500, 'Internal Server Error'));
    server.route('/ar.pdf', serveBytes(pdf));
    const missing = sourceDoc({
      fy: 'FY23',
      file: 'a.pdf',
      url: server.url('/missing.pdf'),
      sha256: sha256(pdf),
    });
    const broken = sourceDoc({
      fy: 'FY22',
      file: 'b.pdf',
      url: server.url('/broken.pdf'),
      sha256: sha256(pdf),
    });
    const good = sourceDoc({ url: server.url('/ar.pdf'), sha256: sha256(pdf) });

    const results = await fetchInto(sourcesOf(missing, broken, good));
    expect(results.map((r) => r.status)).toEqual(['failed', 'failed', 'downloaded']);
    expect(results[0]?.error).toBe(`HTTP 404 Not Found for ${server.url('/missing.pdf')}`);
    expect(results[1]?.error).toBe(`HTTP 500 Internal Server Error for ${server.url('/broken.pdf')}`);
    expect(existsSync(join(dest, 'a.pdf'))).toBe(false);
  });

  it('keeps the .part of a download cut mid-body and resumes it with a Range request', async () => {
    const half = Math.floor(pdf.length / 2);
    server.route('/ar.pdf', cutAfter(pdf, half));
    const doc = sourceDoc({ url: server.url('/ar.pdf'), sha256: sha256(pdf) });

    const [cut] = await fetchInto(sourcesOf(doc));
    expect(cut?.status).toBe('failed');
    expect(cut?.error).toMatch(/interrupted after \d+ bytes/);
    expect(existsSync(join(dest, FILE))).toBe(false);
    const kept = (await stat(join(dest, `${FILE}.part`))).size;
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(pdf.length);

    server.route('/ar.pdf', serveBytes(pdf));
    const [resumed] = await fetchInto(sourcesOf(doc));
    expect(resumed).toMatchObject({ status: 'downloaded', sha256: sha256(pdf) });
    expect(server.requests.at(-1)?.headers.range).toBe(`bytes=${kept}-`);
    expect(await readFile(join(dest, FILE))).toEqual(pdf);
    expect(existsSync(join(dest, `${FILE}.part`))).toBe(false);
  });

  it('restarts from byte 0 when the server ignores Range and answers 200', async () => {
    server.route('/ar.pdf', cutAfter(pdf, 1000));
    const doc = sourceDoc({ url: server.url('/ar.pdf'), sha256: sha256(pdf) });
    await fetchInto(sourcesOf(doc));
    expect((await stat(join(dest, `${FILE}.part`))).size).toBeGreaterThan(0);

    server.route('/ar.pdf', serveBytes(pdf, { ignoreRange: true }));
    const [result] = await fetchInto(sourcesOf(doc));
    expect(server.requests.at(-1)?.headers.range).toMatch(/^bytes=\d+-$/);
    expect(result).toMatchObject({ status: 'downloaded', sha256: sha256(pdf) });
    expect(await readFile(join(dest, FILE))).toEqual(pdf);
  });

  it('follows up to five redirects and gives up after more', async () => {
    server.route('/ar.pdf', serveBytes(pdf));
    server.route('/r1', redirectTo('/r2', 301));
    server.route('/r2', redirectTo(server.url('/ar.pdf')));
    for (let i = 0; i < 6; i++) server.route(`/loop${i}`, redirectTo(`/loop${i + 1}`));
    const redirected = sourceDoc({ url: server.url('/r1'), sha256: sha256(pdf) });
    const looping = sourceDoc({
      fy: 'FY23',
      file: 'loop.pdf',
      url: server.url('/loop0'),
      sha256: sha256(pdf),
    });

    const [ok, tooMany] = await fetchInto(sourcesOf(redirected, looping));
    expect(ok).toMatchObject({ status: 'downloaded', sha256: sha256(pdf) });
    expect(tooMany?.status).toBe('failed');
    expect(tooMany?.error).toContain('too many redirects');
  });

  it('fails a download whose connection goes quiet for longer than the timeout', async () => {
    server.route('/stalled.pdf', () => {});
    const doc = sourceDoc({ url: server.url('/stalled.pdf'), sha256: sha256(pdf) });
    const [result] = await fetchInto(sourcesOf(doc), { fetchTimeoutMs: 200 });
    expect(result?.status).toBe('failed');
    expect(result?.error).toContain('no data from');
  });

  it('moves an existing file that contradicts the pin aside and fetches the right bytes', async () => {
    server.route('/ar.pdf', serveBytes(pdf));
    await mkdir(dest, { recursive: true });
    await writeFile(join(dest, FILE), 'not the report');
    const doc = sourceDoc({ url: server.url('/ar.pdf'), sha256: sha256(pdf) });

    const [result] = await fetchInto(sourcesOf(doc));
    expect(result?.status).toBe('downloaded');
    expect(await readFile(join(dest, FILE))).toEqual(pdf);
    expect(await readFile(join(dest, `${FILE}.rejected`), 'utf8')).toBe('not the report');
  });
});

describe('fetchSources for unpinned documents', () => {
  const sourcesYaml = (url: string) => `# Corpus sources (test copy)
version: 1
documents:
  # the one document
  - company: reliance
    company_name: Reliance Industries Limited
    fy: FY24
    url: ${url} # company site
    sha256: null # filled by rge corpus fetch --pin
    accessed_on: null
    file: ${FILE}
`;

  it('refuses to fetch a document without sha256 unless asked to pin, and makes no request', async () => {
    const doc = sourceDoc({ url: server.url('/ar.pdf') });
    const [result] = await fetchInto(sourcesOf(doc));
    expect(result?.status).toBe('unpinned');
    expect(result?.error).toContain('--pin');
    expect(server.requests).toHaveLength(0);
    expect(existsSync(join(dest, FILE))).toBe(false);
  });

  it('says so when a document has neither url nor mirror copy', async () => {
    const [result] = await fetchInto(sourcesOf(sourceDoc()), { pin: true });
    expect(result?.status).toBe('unpinned');
    expect(result?.error).toContain('no url and no mirror copy');
  });

  it('with --pin, downloads and records sha256 and accessed_on into sources.yaml, keeping comments', async () => {
    server.route('/ar.pdf', serveBytes(pdf));
    const sourcesPath = join(work, 'sources.yaml');
    const before = sourcesYaml(server.url('/ar.pdf'));
    await writeFile(sourcesPath, before);

    const [result] = await fetchSources(await loadSources(sourcesPath), {
      destDir: dest,
      sourcesPath,
      pin: true,
      today: '2026-11-30',
    });
    expect(result).toMatchObject({ status: 'pinned', sha256: sha256(pdf) });
    expect(await readFile(join(dest, FILE))).toEqual(pdf);

    const after = await readFile(sourcesPath, 'utf8');
    expect(after).toBe(
      before
        .replace('sha256: null #', `sha256: ${sha256(pdf)} #`)
        .replace('accessed_on: null', 'accessed_on: 2026-11-30'),
    );
    const reloaded = await loadSources(sourcesPath);
    expect(reloaded.documents[0]).toMatchObject({ sha256: sha256(pdf), accessed_on: '2026-11-30' });
    expect(isPinned(reloaded.documents[0] as SourceDocument)).toBe(true);

    const [again] = await fetchSources(reloaded, { destDir: dest, sourcesPath });
    expect(again?.status).toBe('present');
  });

  it('with --pin, refuses to pin a page that is not a PDF and leaves sources.yaml alone', async () => {
    server.route('/ar.pdf', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!DOCTYPE html><p>Access denied</p>');
    });
    const sourcesPath = join(work, 'sources.yaml');
    const before = sourcesYaml(server.url('/ar.pdf'));
    await writeFile(sourcesPath, before);

    const [result] = await fetchSources(await loadSources(sourcesPath), {
      destDir: dest,
      sourcesPath,
      pin: true,
    });
    expect(result?.status).toBe('failed');
    expect(result?.error).toContain('not a PDF');
    expect(existsSync(join(dest, FILE))).toBe(false);
    expect(await readFile(sourcesPath, 'utf8')).toBe(before);
  });

  it('with --pin, does not stitch a leftover .part onto the new download', async () => {
    server.route('/ar.pdf', serveBytes(pdf));
    await mkdir(dest, { recursive: true });
    await writeFile(join(dest, `${FILE}.part`), 'bytes of some other file');
    const sourcesPath = join(work, 'sources.yaml');
    await writeFile(sourcesPath, sourcesYaml(server.url('/ar.pdf')));

    const [result] = await fetchSources(await loadSources(sourcesPath), {
      destDir: dest,
      sourcesPath,
      pin: true,
    });
    expect(result).toMatchObject({ status: 'pinned', sha256: sha256(pdf) });
    expect(server.requests[0]?.headers.range).toBeUndefined();
  });
});

describe('fetchSources --from a mirror folder', () => {
  it('copies <from>/<file> with the same verification, without touching the network', async () => {
    const mirror = join(work, 'mirror');
    await mkdir(mirror);
    await writeFile(join(mirror, FILE), pdf);
    await writeFile(join(mirror, 'wrong.pdf'), 'tampered');
    const good = sourceDoc({ sha256: sha256(pdf) });
    const tampered = sourceDoc({ fy: 'FY23', file: 'wrong.pdf', sha256: sha256(pdf) });

    const [copied, refused] = await fetchInto(sourcesOf(good, tampered), { from: mirror });
    expect(copied).toMatchObject({ status: 'copied', sha256: sha256(pdf) });
    expect(await readFile(join(dest, FILE))).toEqual(pdf);
    expect(refused?.status).toBe('failed');
    expect(refused?.error).toContain(`got ${sha256(Buffer.from('tampered'))}`);
    expect(existsSync(join(dest, 'wrong.pdf'))).toBe(false);
    expect(server.requests).toHaveLength(0);
  });
});

describe('rge corpus fetch', () => {
  function captureIO(cwd: string): CliIO & { stdout: string } {
    const io = {
      stdout: '',
      out: (text: string) => {
        io.stdout += text;
      },
      err: () => {},
      cwd,
      exitCode: 0,
    };
    return io;
  }

  async function runCli(io: CliIO, ...args: string[]): Promise<void> {
    const program = new Command('rge').exitOverride();
    const corpus = program.command('corpus');
    registerFetchCommand(corpus, io);
    for (const cmd of corpus.commands)
      cmd.exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
    await program.parseAsync(['corpus', 'fetch', ...args], { from: 'user' });
  }

  async function writeSources(docs: string): Promise<void> {
    await writeFile(join(work, 'sources.yaml'), `version: 1\ndocuments:\n${docs}`);
  }

  it('prints one line per document and exits 1 when a document failed', async () => {
    server.route('/ar.pdf', serveBytes(pdf));
    await writeSources(
      `  - {company: reliance, fy: FY24, file: ${FILE}, url: "${server.url('/ar.pdf')}", sha256: ${sha256(pdf)}}\n` +
        `  - {company: itc, fy: FY24, file: itc.pdf, url: "${server.url('/gone.pdf')}", sha256: ${sha256(pdf)}}\n` +
        '  - {company: zomato, fy: FY24, file: zomato.pdf}\n',
    );
    const io = captureIO(work);
    await runCli(io, '--sources', 'sources.yaml', '--dest', 'out', '--quiet');

    expect(await readFile(join(work, 'out', FILE))).toEqual(pdf);
    const lines = io.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^downloaded +reliance FY24 ${FILE} +${sha256(pdf)}$`));
    expect(lines[1]).toMatch(
      /^failed +itc +FY24 itc\.pdf +HTTP 404 Not Found for http:\/\/127\.0\.0\.1:\d+\/gone\.pdf$/,
    );
    expect(lines[2]).toMatch(/^unpinned +zomato +FY24 zomato\.pdf +no url and no mirror copy/);
    expect(lines[3]).toBe('3 documents: 1 downloaded, 1 failed, 1 unpinned');
    expect(io.exitCode).toBe(1);
  });

  it('exits 0 when every document is present or fetched', async () => {
    const mirror = join(work, 'mirror');
    await mkdir(mirror);
    await writeFile(join(mirror, FILE), pdf);
    await writeSources(`  - {company: reliance, fy: FY24, file: ${FILE}, sha256: ${sha256(pdf)}}\n`);
    const io = captureIO(work);
    await runCli(io, '--sources', 'sources.yaml', '--dest', 'out', '--from', 'mirror', '--quiet');
    expect(io.stdout).toContain('1 documents: 1 copied');
    expect(io.exitCode).toBe(0);
  });

  it('treats a missing --from folder or sources file as a usage error', async () => {
    await writeSources(`  - {company: reliance, fy: FY24, file: ${FILE}}\n`);
    await expect(runCli(captureIO(work), '--sources', 'sources.yaml', '--from', 'nowhere')).rejects.toThrow(
      UsageError,
    );
    await expect(runCli(captureIO(work), '--sources', 'missing.yaml')).rejects.toThrow(/no sources file/);
  });
});
