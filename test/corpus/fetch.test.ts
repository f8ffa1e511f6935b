import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { strToU8, zipSync } from 'fflate';
import PDFDocument from 'pdfkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registerFetchCommand } from '../../src/cli/corpus-fetch.ts';
import type { CliIO } from '../../src/cli/io.ts';
import { BROWSER_USER_AGENT, type RetryNotice, retryAfterMs } from '../../src/corpus/download.ts';
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

/** Retries back off 1 ms, 2 ms, ... here, so that a test of a failing url does not wait for seconds. */
function fetchInto(sources: SourcesFile, extra: Partial<Parameters<typeof fetchSources>[1]> = {}) {
  return fetchSources(sources, {
    destDir: dest,
    sourcesPath: join(work, 'sources.yaml'),
    retryDelayMs: 1,
    ...extra,
  });
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
    // a 404 is final; a 500 may be transient, so it was asked four times (three retries) before failing
    expect(results[1]?.error).toBe(
      `HTTP 500 Internal Server Error for ${server.url('/broken.pdf')} (4 attempts)`,
    );
    expect(server.requests.filter((r) => r.path === '/missing.pdf')).toHaveLength(1);
    expect(server.requests.filter((r) => r.path === '/broken.pdf')).toHaveLength(4);
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
    expect(result?.error).toContain('no url, path or mirror copy');
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

  it('prints one line per document and fails naming the first failed document', async () => {
    server.route('/ar.pdf', serveBytes(pdf));
    await writeSources(
      `  - {company: reliance, fy: FY24, file: ${FILE}, url: "${server.url('/ar.pdf')}", sha256: ${sha256(pdf)}}\n` +
        `  - {company: itc, fy: FY24, file: itc.pdf, url: "${server.url('/gone.pdf')}", sha256: ${sha256(pdf)}}\n` +
        '  - {company: zomato, fy: FY24, file: zomato.pdf}\n',
    );
    const io = captureIO(work);
    // one error (exit 1 through src/cli/main.ts) naming the sources file, the document and why
    await expect(runCli(io, '--sources', 'sources.yaml', '--dest', 'out', '--quiet')).rejects.toThrow(
      /\/sources\.yaml: itc\.pdf: HTTP 404 Not Found for http:\/\/127\.0\.0\.1:\d+\/gone\.pdf \(1 of 3 document\(s\) failed\)$/,
    );

    expect(await readFile(join(work, 'out', FILE))).toEqual(pdf);
    const lines = io.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^downloaded +reliance FY24 ${FILE} +${sha256(pdf)}$`));
    expect(lines[1]).toMatch(
      /^failed +itc +FY24 itc\.pdf +HTTP 404 Not Found for http:\/\/127\.0\.0\.1:\d+\/gone\.pdf$/,
    );
    expect(lines[2]).toMatch(/^unpinned +zomato +FY24 zomato\.pdf +no url, path or mirror copy/);
    expect(lines[3]).toBe('3 documents: 1 downloaded, 1 failed, 1 unpinned');
  });

  it('exits 1 when documents are left unpinned: the corpus is incomplete', async () => {
    await writeSources(`  - {company: zomato, fy: FY24, file: zomato.pdf}\n`);
    const io = captureIO(work);
    await expect(runCli(io, '--sources', 'sources.yaml', '--dest', 'out', '--quiet')).rejects.toThrow(
      /\/sources\.yaml: 1 of 1 document\(s\) not fetched \(unpinned, listed above\): the corpus is incomplete; give each a url \(or path\) in the sources file and run `rge corpus fetch --pin`/,
    );
    expect(io.stdout).toContain('1 documents: 1 unpinned');
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

  it('pins a ZIP download and says which PDF it took out of it', async () => {
    const zip = zipOf({ 'AR_24576.pdf': pdf });
    server.route('/AR_24576.zip', serveBytes(zip));
    await writeFile(
      join(work, 'sources.yaml'),
      `version: 1\ndocuments:\n  - company: hdfc-bank\n    fy: FY24\n    url: ${server.url('/AR_24576.zip')}\n    sha256: null\n    accessed_on: null\n    file: ${FILE}\n`,
    );
    const io = captureIO(work);
    await runCli(io, '--pin', '--dest', 'out', '--sources', 'sources.yaml', '--quiet');
    expect(io.stdout.split('\n')[0]).toBe(
      `pinned     hdfc-bank FY24 ${FILE}  ${sha256(zip)}  (ZIP; PDF "AR_24576.pdf" sha256 ${sha256(pdf)})`,
    );
    expect(io.exitCode).toBe(0);
    expect(await readFile(join(work, 'out', FILE))).toEqual(pdf);
    expect(server.requests[0]?.headers['user-agent']).toBe(BROWSER_USER_AGENT);
    expect((await loadSources(join(work, 'sources.yaml'))).documents[0]).toMatchObject({
      sha256: sha256(zip),
      pdf_sha256: sha256(pdf),
    });
  });

  it('sends --user-agent instead of the browser one', async () => {
    server.route('/ar.pdf', serveBytes(pdf));
    await writeSources(
      `  - {company: reliance, fy: FY24, file: ${FILE}, url: "${server.url('/ar.pdf')}", sha256: ${sha256(pdf)}}\n`,
    );
    const io = captureIO(work);
    await runCli(io, '--sources', 'sources.yaml', '--dest', 'out', '--user-agent', 'rge-test/1', '--quiet');
    expect(io.exitCode).toBe(0);
    expect(server.requests[0]?.headers['user-agent']).toBe('rge-test/1');
  });

  it('treats a bad --retries or an empty --user-agent as a usage error', async () => {
    await writeSources(`  - {company: reliance, fy: FY24, file: ${FILE}}\n`);
    await expect(runCli(captureIO(work), '--sources', 'sources.yaml', '--retries', 'two')).rejects.toThrow(
      /--retries must be a non-negative integer, got "two"/,
    );
    await expect(runCli(captureIO(work), '--sources', 'sources.yaml', '--user-agent', ' ')).rejects.toThrow(
      UsageError,
    );
  });

  it('treats a missing --from folder or sources file as a usage error', async () => {
    await writeSources(`  - {company: reliance, fy: FY24, file: ${FILE}}\n`);
    await expect(runCli(captureIO(work), '--sources', 'sources.yaml', '--from', 'nowhere')).rejects.toThrow(
      UsageError,
    );
    await expect(runCli(captureIO(work), '--sources', 'missing.yaml')).rejects.toThrow(/no sources file/);
  });
});

/** A ZIP built here, as NSE's archive serves annual reports: the PDF inside, maybe other entries. */
function zipOf(entries: Record<string, Uint8Array | string>): Buffer {
  const files: Record<string, Uint8Array> = {};
  for (const [name, body] of Object.entries(entries))
    files[name] = typeof body === 'string' ? strToU8(body) : body;
  return Buffer.from(zipSync(files, { level: 6 }));
}

describe('fetchSources with a ZIP holding the PDF', () => {
  const ZIP_FILE = 'reliance-FY24-annual-report.zip';
  const sourcesYaml = (url: string, extra = '') => `# test copy
version: 1
documents:
  - company: reliance
    fy: FY24
    url: ${url} # a ZIP holding the PDF
    sha256: null
    accessed_on: null
    file: ${FILE}
${extra}`;

  async function pinFrom(url: string, extra = '') {
    const sourcesPath = join(work, 'sources.yaml');
    await writeFile(sourcesPath, sourcesYaml(url, extra));
    const results = await fetchSources(await loadSources(sourcesPath), {
      destDir: dest,
      sourcesPath,
      pin: true,
      today: '2026-11-30',
      retryDelayMs: 1,
    });
    return { result: results[0], sourcesPath };
  }

  it('pins the ZIP by its bytes, takes out its PDF as the document file, and verifies both later', async () => {
    // Detected by its first bytes, not its name: the url ends in .pdf, behind a redirect.
    const zip = zipOf({ 'docs/': '', 'docs/AR_2023_24.pdf': pdf, 'readme.txt': 'annual report' });
    server.route('/nse/AR_24576.pdf', serveBytes(zip));
    server.route('/go', redirectTo('/nse/AR_24576.pdf'));
    const { result, sourcesPath } = await pinFrom(server.url('/go'));

    expect(result).toMatchObject({
      status: 'pinned',
      sha256: sha256(zip),
      zip: { entry: 'docs/AR_2023_24.pdf', pdfSha256: sha256(pdf) },
    });
    expect(await readFile(join(dest, FILE))).toEqual(pdf);
    expect(await readFile(join(dest, ZIP_FILE))).toEqual(zip);
    expect(existsSync(join(dest, `${FILE}.part`))).toBe(false);
    // pdf_sha256 is inserted as a line after sha256; nothing else moves
    expect(await readFile(sourcesPath, 'utf8')).toBe(
      sourcesYaml(server.url('/go'))
        .replace('sha256: null', `sha256: ${sha256(zip)}\n    pdf_sha256: ${sha256(pdf)}`)
        .replace('accessed_on: null', 'accessed_on: 2026-11-30'),
    );

    const pinned = await loadSources(sourcesPath);
    expect(pinned.documents[0]).toMatchObject({ sha256: sha256(zip), pdf_sha256: sha256(pdf) });
    const requests = server.requests.length;
    const [present] = await fetchInto(pinned);
    expect(present).toMatchObject({ status: 'present', sha256: sha256(zip) });

    // The PDF lost: taken out of the kept ZIP again, without a request.
    await rm(join(dest, FILE));
    const [extracted] = await fetchInto(pinned);
    expect(extracted).toMatchObject({ status: 'present', zip: { entry: 'docs/AR_2023_24.pdf' } });
    expect(await readFile(join(dest, FILE))).toEqual(pdf);
    expect(server.requests).toHaveLength(requests);

    // Both lost: downloaded again and verified against the ZIP's pin.
    await rm(join(dest, FILE));
    await rm(join(dest, ZIP_FILE));
    const [downloaded] = await fetchInto(pinned);
    expect(downloaded).toMatchObject({ status: 'downloaded', sha256: sha256(zip) });
    expect(await readFile(join(dest, FILE))).toEqual(pdf);
  });

  it('skips macOS resource forks when looking for the one PDF', async () => {
    const zip = zipOf({ 'AR.pdf': pdf, '__MACOSX/._AR.pdf': 'fork', '._AR.pdf': 'fork' });
    server.route('/ar.zip', serveBytes(zip));
    const { result } = await pinFrom(server.url('/ar.zip'));
    expect(result).toMatchObject({ status: 'pinned', zip: { entry: 'AR.pdf' } });
  });

  it('refuses a ZIP with no PDF, naming the url and its entries, and keeps nothing', async () => {
    server.route('/empty.zip', serveBytes(zipOf({ 'index.html': '<p>moved</p>', 'notes.txt': 'x' })));
    const url = server.url('/empty.zip');
    const { result, sourcesPath } = await pinFrom(url);
    expect(result?.status).toBe('failed');
    expect(result?.error).toBe(`the ZIP from ${url} holds no PDF (entries: "index.html", "notes.txt")`);
    expect(await readdir(dest)).toEqual([]);
    expect(await readFile(sourcesPath, 'utf8')).toBe(sourcesYaml(url));
  });

  it('refuses a ZIP with several PDFs unless zip_entry names the report', async () => {
    const zip = zipOf({ 'AR-part1.pdf': pdf, 'Notice-AGM.pdf': pdf.subarray(0, 2000) });
    server.route('/two.zip', serveBytes(zip));
    const url = server.url('/two.zip');
    const { result } = await pinFrom(url);
    expect(result?.status).toBe('failed');
    expect(result?.error).toBe(
      `the ZIP from ${url} holds 2 PDFs ("AR-part1.pdf", "Notice-AGM.pdf"); ` +
        'set zip_entry for reliance FY24 in sources.yaml to the one that is the report',
    );
    expect(await readdir(dest)).toEqual([]);

    const chosen = await pinFrom(url, '    zip_entry: AR-part1.pdf\n');
    expect(chosen.result).toMatchObject({ status: 'pinned', zip: { entry: 'AR-part1.pdf' } });
    expect(await readFile(join(dest, FILE))).toEqual(pdf);

    const missing = await pinFrom(url, '    zip_entry: AR.pdf\n');
    expect(missing.result?.error).toContain('has no entry "AR.pdf" (zip_entry)');
  });

  it('refuses a ZIP whose one .pdf entry is not a PDF, and bytes that are neither PDF nor ZIP', async () => {
    server.route('/fake.zip', serveBytes(zipOf({ 'AR.pdf': '<html>login</html>' })));
    const fake = await pinFrom(server.url('/fake.zip'));
    expect(fake.result?.error).toBe(
      `entry "AR.pdf" of the ZIP from ${server.url('/fake.zip')} is not a PDF (it starts with "<html>login</html>")`,
    );
    server.route('/junk', serveBytes(Buffer.from('GIF89a....')));
    const junk = await pinFrom(server.url('/junk'));
    expect(junk.result?.error).toBe(
      `refusing to pin ${FILE}: the bytes from ${server.url('/junk')} are not a PDF nor a ZIP (they start with "GIF89a....")`,
    );
    expect(await readdir(dest)).toEqual([]);
  });

  it('refuses a pinned ZIP whose PDF is not the pinned pdf_sha256', async () => {
    const zip = zipOf({ 'AR.pdf': pdf });
    server.route('/ar.zip', serveBytes(zip));
    const doc = sourceDoc({ url: server.url('/ar.zip'), sha256: sha256(zip), pdf_sha256: 'ef'.repeat(32) });
    const [result] = await fetchInto(sourcesOf(doc));
    expect(result?.status).toBe('failed');
    expect(result?.error).toContain(
      `has sha256 ${sha256(pdf)}, not the pinned pdf_sha256 ${'ef'.repeat(32)}`,
    );
    expect(await readdir(dest)).toEqual([]);
  });
});

describe('fetchSources against hosts that refuse, fail and stall', () => {
  /** Like NSE's archive: 403 unless the client looks like a browser. */
  function browsersOnly(body: Buffer) {
    const serve = serveBytes(body);
    return (req: IncomingMessage, res: ServerResponse) => {
      const ua = req.headers['user-agent'] ?? '';
      if (!ua.startsWith('Mozilla/5.0') || !(req.headers.accept ?? '').includes('application/pdf')) {
        res.writeHead(403, 'Forbidden').end('<html>Access Denied</html>');
        return;
      }
      serve(req, res);
    };
  }

  it('sends a browser-like User-Agent and Accept by default, which a refusing host serves', async () => {
    server.route('/ar.pdf', browsersOnly(pdf));
    const doc = sourceDoc({ url: server.url('/ar.pdf'), sha256: sha256(pdf) });
    const [result] = await fetchInto(sourcesOf(doc));
    expect(result).toMatchObject({ status: 'downloaded', sha256: sha256(pdf) });
    expect(server.requests[0]?.headers['user-agent']).toBe(BROWSER_USER_AGENT);
  });

  it('gets a 403, not retried, with a non-browser User-Agent', async () => {
    server.route('/ar.pdf', browsersOnly(pdf));
    const doc = sourceDoc({ url: server.url('/ar.pdf'), sha256: sha256(pdf) });
    const [result] = await fetchInto(sourcesOf(doc), { userAgent: 'rge-corpus-fetch/0.1' });
    expect(result?.error).toBe(`HTTP 403 Forbidden for ${server.url('/ar.pdf')}`);
    expect(server.requests).toHaveLength(1);
  });

  it('retries 503s with backoff and succeeds, reporting each retry', async () => {
    let calls = 0;
    const serve = serveBytes(pdf);
    server.route('/ar.pdf', (req, res) => {
      if (++calls <= 2) res.writeHead(503, 'Service Unavailable').end();
      else serve(req, res);
    });
    const doc = sourceDoc({ url: server.url('/ar.pdf'), sha256: sha256(pdf) });
    const notices: RetryNotice[] = [];
    const [result] = await fetchInto(sourcesOf(doc), { onRetry: (n) => notices.push(n) });
    expect(result).toMatchObject({ status: 'downloaded', sha256: sha256(pdf) });
    expect(server.requests).toHaveLength(3);
    expect(notices.map((n) => [n.attempt, n.error, n.retryAfterMs])).toEqual([
      [1, `HTTP 503 Service Unavailable for ${server.url('/ar.pdf')}`, 0],
      [2, `HTTP 503 Service Unavailable for ${server.url('/ar.pdf')}`, 0],
    ]);
  });

  it('honours Retry-After on a 429, and gives up at once when it asks for longer than the cap', async () => {
    let calls = 0;
    const serve = serveBytes(pdf);
    server.route('/ar.pdf', (req, res) => {
      if (++calls === 1) res.writeHead(429, { 'retry-after': '1' }).end();
      else serve(req, res);
    });
    server.route('/later.pdf', (_req, res) => {
      res.writeHead(429, 'Too Many Requests', { 'retry-after': '3600' }).end();
    });
    const doc = sourceDoc({ url: server.url('/ar.pdf'), sha256: sha256(pdf) });
    const later = sourceDoc({
      fy: 'FY23',
      file: 'later.pdf',
      url: server.url('/later.pdf'),
      sha256: sha256(pdf),
    });
    const notices: RetryNotice[] = [];
    const [ok, refused] = await fetchInto(sourcesOf(doc, later), { onRetry: (n) => notices.push(n) });
    expect(ok).toMatchObject({ status: 'downloaded', sha256: sha256(pdf) });
    expect(notices.map((n) => n.retryAfterMs)).toEqual([1000]);
    expect(refused?.error).toBe(
      `HTTP 429 Too Many Requests for ${server.url('/later.pdf')}; the server asks to retry after 3600 s, ` +
        'longer than the 120 s rge waits',
    );
    expect(server.requests.filter((r) => r.path === '/later.pdf')).toHaveLength(1);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-30T10:00:00Z');
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs('Mon, 30 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Mon, 30 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBe(0);
    expect(retryAfterMs(undefined, now)).toBe(0);
  });

  it('retries a reset connection, and resumes a cut body with a Range request in the same run', async () => {
    let calls = 0;
    const half = Math.floor(pdf.length / 2);
    const cut = cutAfter(pdf, half);
    const serve = serveBytes(pdf);
    server.route('/ar.pdf', (req, res) => {
      calls++;
      if (calls === 1) req.socket.destroy();
      else if (calls === 2) cut(req, res);
      else serve(req, res);
    });
    const doc = sourceDoc({ url: server.url('/ar.pdf'), sha256: sha256(pdf) });
    const notices: RetryNotice[] = [];
    const [result] = await fetchInto(sourcesOf(doc), { onRetry: (n) => notices.push(n) });
    expect(result).toMatchObject({ status: 'downloaded', sha256: sha256(pdf) });
    expect(notices[0]?.error).toMatch(/^request to .* failed: socket hang up/);
    expect(notices[1]?.error).toMatch(/interrupted after \d+ bytes/);
    expect(server.requests[2]?.headers.range).toMatch(/^bytes=\d+-$/);
    expect(await readFile(join(dest, FILE))).toEqual(pdf);
  });

  it('waits out a slow server that keeps sending, however long the whole body takes', async () => {
    // 12 pieces 100 ms apart: 1.1 s in all, above the 600 ms idle timeout, never idle that long.
    const pieces = 12;
    server.route('/slow.pdf', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': pdf.length });
      const size = Math.ceil(pdf.length / pieces);
      let sent = 0;
      const timer = setInterval(() => {
        res.write(pdf.subarray(sent, sent + size));
        sent += size;
        if (sent >= pdf.length) {
          clearInterval(timer);
          res.end();
        }
      }, 100);
      res.on('close', () => clearInterval(timer));
    });
    const doc = sourceDoc({ url: server.url('/slow.pdf'), sha256: sha256(pdf) });
    const [result] = await fetchInto(sourcesOf(doc), { fetchTimeoutMs: 600, retries: 0 });
    expect(result).toMatchObject({ status: 'downloaded', sha256: sha256(pdf) });
    expect(server.requests).toHaveLength(1);
  });

  it('tries alt_urls in order when url fails, and says which one delivered', async () => {
    server.route('/mirror.pdf', serveBytes(pdf));
    const doc = sourceDoc({
      url: server.url('/gone.pdf'),
      alt_urls: [server.url('/also-gone.pdf'), server.url('/mirror.pdf')],
      sha256: sha256(pdf),
    });
    const [result] = await fetchInto(sourcesOf(doc));
    expect(result).toMatchObject({ status: 'downloaded', sha256: sha256(pdf), from: 'alt_urls[1]' });
    expect(server.requests.map((r) => r.path)).toEqual(['/gone.pdf', '/also-gone.pdf', '/mirror.pdf']);

    await rm(dest, { recursive: true });
    const none = sourceDoc({
      url: server.url('/gone.pdf'),
      alt_urls: [server.url('/also-gone.pdf')],
      sha256: sha256(pdf),
    });
    const [failed] = await fetchInto(sourcesOf(none));
    expect(failed?.error).toBe(
      `url: HTTP 404 Not Found for ${server.url('/gone.pdf')}; ` +
        `alt_urls[0]: HTTP 404 Not Found for ${server.url('/also-gone.pdf')}`,
    );
  });
});

describe('fetchSources from a local path', () => {
  it('with --pin, copies the path (relative to sources.yaml) and records its sha256; a later fetch copies it again', async () => {
    await mkdir(join(work, 'downloads'));
    await writeFile(join(work, 'downloads', 'APSEZ AR 2023-24.pdf'), pdf);
    const sourcesPath = join(work, 'sources.yaml');
    const text = `version: 1
documents:
  - company: adani-ports
    fy: FY24
    url: null # not found in public sources
    path: downloads/APSEZ AR 2023-24.pdf
    sha256: null
    accessed_on: null
    file: adani-ports-FY24-annual-report.pdf
`;
    await writeFile(sourcesPath, text);
    const [pinned] = await fetchSources(await loadSources(sourcesPath), {
      destDir: dest,
      sourcesPath,
      pin: true,
      today: '2026-11-30',
    });
    expect(pinned).toMatchObject({ status: 'pinned', sha256: sha256(pdf), from: 'path' });
    expect(await readFile(join(dest, 'adani-ports-FY24-annual-report.pdf'))).toEqual(pdf);
    const reloaded = await loadSources(sourcesPath);
    expect(reloaded.documents[0]).toMatchObject({ sha256: sha256(pdf), accessed_on: '2026-11-30' });
    expect(isPinned(reloaded.documents[0] as SourceDocument)).toBe(true);

    await rm(dest, { recursive: true });
    const [copied] = await fetchSources(reloaded, { destDir: dest, sourcesPath });
    expect(copied).toMatchObject({ status: 'copied', sha256: sha256(pdf) });
    expect(server.requests).toHaveLength(0);
  });

  it('fails naming the resolved path when the file is not there', async () => {
    const doc = sourceDoc({ path: 'downloads/missing.pdf', sha256: sha256(pdf) });
    const [result] = await fetchInto(sourcesOf(doc));
    expect(result?.status).toBe('failed');
    expect(result?.error).toBe(`path ${join(work, 'downloads/missing.pdf')}: no such file`);
  });
});
