import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRge as rge } from '../helpers/cli.ts';
import { makeTextPdf } from '../helpers/make-pdf.ts';

const INFOSYS = 'infosys-q4fy24-condensed-consolidated-indas-fs.pdf';

describe('company names for rge corpus ingest --pdfs', () => {
  let work: string;
  const ingest = (dir: string, index: string, ...extra: string[]) =>
    rge(
      work,
      'corpus',
      'ingest',
      '--pdfs',
      dir,
      '--index',
      index,
      '--embedder',
      'bm25',
      '--cache-dir',
      'cache',
      '-q',
      ...extra,
    );

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'rge-companies-'));
    for (const dir of ['auto', 'csv', 'bad']) {
      await mkdir(join(work, dir));
      await writeFile(
        join(work, dir, INFOSYS),
        await makeTextPdf(['DIVIDEND\nThe Board recommended a final dividend of Rs 20 per equity share.']),
      );
      await writeFile(
        join(work, dir, 'Globex_2023.pdf'),
        await makeTextPdf(['CORPORATE GOVERNANCE\nThe statutory auditor is Deloitte Haskins and Sells LLP.']),
      );
    }
    await writeFile(
      join(work, 'auto', 'companies.yaml'),
      `${INFOSYS}:\n  company: infosys\n  name: Infosys Limited\n  fy: FY24\n`,
    );
    await writeFile(join(work, 'names.csv'), `file,company,fy\n${INFOSYS},Infosys Limited,FY2024\n`);
    await writeFile(join(work, 'bad.csv'), `${INFOSYS},Infosys Limited\nGlobex_2023.pdf\n`);
  });
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it("reads the folder's companies.yaml; a file it does not name keeps its stem; retrieve shows the name", async () => {
    const r = await ingest('auto', 'idx-auto');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`ok      ${INFOSYS} (Infosys Limited, infosys FY24)`);
    expect(r.out).toContain('ok      Globex_2023.pdf (globex-2023 FY23)');
    const q = await rge(work, 'retrieve', 'final dividend', '--index', 'idx-auto', '--k', '1', '--no-color');
    expect(q.code).toBe(0);
    const lines = q.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^1\. infosys-FY24-[0-9a-f]{8} {2}p\. 1 {2}score /);
    expect(lines[1]).toBe('   Infosys Limited (infosys) FY24 · DIVIDEND');
    expect(lines[2]).toContain('**final** **dividend**');
    const j = await rge(work, 'retrieve', 'statutory auditor', '--index', 'idx-auto', '--k', '1', '--json');
    expect(JSON.parse(j.out)[0]).toMatchObject({ company: 'globex-2023', fy: 'FY23' });
  });

  it('takes --company-from a CSV, which --company then filters by', async () => {
    const r = await ingest('csv', 'idx-csv', '--company-from', 'names.csv');
    expect(r.code).toBe(0);
    expect(r.out).toContain(`ok      ${INFOSYS} (Infosys Limited, infosys-limited FY24)`);
    const q = await rge(
      work,
      'retrieve',
      'dividend',
      '--index',
      'idx-csv',
      '--company',
      'infosys-limited',
      '--json',
    );
    const rows = JSON.parse(q.out) as { company: string; fy: string }[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((h) => h.company === 'infosys-limited' && h.fy === 'FY24')).toBe(true);
  });

  it('a bad CSV line is an error naming file:line, exit 1, and no index is written', async () => {
    const r = await ingest('bad', 'idx-bad', '--company-from', 'bad.csv');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(
      new RegExp(
        `^rge: ${join(work, 'bad.csv').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: expected file,company`,
      ),
    );
    const idx = await rge(work, 'index', 'checksum', '--index', 'idx-bad');
    expect(idx.code).toBe(2);
    expect(idx.err).toBe('rge: --index idx-bad: no such folder\n');
  });

  it('a map entry for a file not in the folder names its line; a missing --company-from is a usage error', async () => {
    await writeFile(join(work, 'typo.csv'), `${INFOSYS},Infosys\nGlobx_2023.pdf,Globex\n`);
    const r = await ingest('bad', 'idx-typo', '--company-from', 'typo.csv');
    expect(r.code).toBe(1);
    expect(r.err).toContain(`${join(work, 'typo.csv')}:2: Globx_2023.pdf is not a PDF in`);
    const missing = await ingest('bad', 'idx-missing', '--company-from', 'nope.csv');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('nope.csv');
  });
});
