/**
 * No file in src/ is longer than 500 lines (issue 54, docs/adr/0038-file-size.md), every file of the
 * folder counted (TypeScript, JavaScript, CSS), as `wc -l` counts a file that ends in a newline. The
 * only exceptions are numeric kernels whose ADR says why they stay whole (`EXEMPT`); an exemption must
 * match a file that is still too long, so the list cannot go stale. Shown to fail on planted files.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

const MAX_FILE_LINES = 500;

/**
 * Numeric kernels allowed over the limit, each a file of src/stats with the ADR that says why it stays
 * whole (the ADR names the file).
 */
const EXEMPT: readonly { file: string; adr: string }[] = [
  { file: 'src/stats/bootstrap.ts', adr: 'docs/adr/0038-file-size.md' },
];

interface LongFile {
  /** relative to the base folder, with forward slashes */
  file: string;
  lines: number;
}

/** `file (N lines)`, as the failures list them. */
const where = (f: LongFile) => `${f.file} (${f.lines} lines)`;

/** A text's lines: its newlines, and a last line without one. */
const lineCount = (text: string) =>
  text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    return e.isDirectory() ? files(path) : [path];
  });
}

/** Every file under `base`/`folder` longer than `limit` lines, by path. */
function longFiles(base: string, folder: string, limit = MAX_FILE_LINES): LongFile[] {
  return files(join(base, folder))
    .map((path) => ({
      file: relative(base, path).split('\\').join('/'),
      lines: lineCount(readFileSync(path, 'utf8')),
    }))
    .filter((f) => f.lines > limit)
    .sort((a, b) => a.file.localeCompare(b.file));
}

/**
 * What is wrong with the long files found, given the exemptions: a file not exempt; an exemption that
 * matches no long file; an exemption whose ADR does not name its file.
 */
function problems(
  found: readonly LongFile[],
  exempt: readonly { file: string; adr: string }[],
  readAdr: (path: string) => string | null,
): string[] {
  const long = new Set(found.map((f) => f.file));
  const allowed = new Set(exempt.map((e) => e.file));
  return [
    ...found
      .filter((f) => !allowed.has(f.file))
      .map((f) => `${where(f)}: over ${MAX_FILE_LINES} lines; split it where it holds two things`),
    ...exempt
      .filter((e) => !long.has(e.file))
      .map((e) => `EXEMPT ${e.file}: no longer over ${MAX_FILE_LINES} lines; remove it from EXEMPT`),
    ...exempt
      .filter((e) => !readAdr(e.adr)?.includes(e.file))
      .map((e) => `EXEMPT ${e.file}: ${e.adr} does not say why it stays whole`),
  ];
}

const readAdr = (path: string) => {
  try {
    return readFileSync(join(root, path), 'utf8');
  } catch {
    return null;
  }
};

describe(`files in src/ (at most ${MAX_FILE_LINES} lines)`, () => {
  it('are all within the limit, but for numeric kernels their ADR exempts', () => {
    expect(problems(longFiles(root, 'src'), EXEMPT, readAdr)).toEqual([]);
  });

  it('has exemptions only for numeric kernels (src/stats) that name an ADR', () => {
    for (const e of EXEMPT) {
      expect(e.file).toMatch(/^src\/stats\//);
      expect(e.adr).toMatch(/^docs\/adr\/\d{4}-/);
    }
  });

  describe('the check fails on what it forbids', () => {
    const planted = mkdtempSync(join(tmpdir(), 'rge-file-length-'));
    afterAll(() => rmSync(planted, { recursive: true, force: true }));
    /** `n` lines, each ended by a newline but (with `unterminated`) the last */
    const lines = (n: number, unterminated = false) =>
      `${'void 0;\n'.repeat(n - 1)}void 0;${unterminated ? '' : '\n'}`;
    mkdirSync(join(planted, 'nested'));
    writeFileSync(join(planted, 'long.ts'), lines(501));
    writeFileSync(join(planted, 'at-the-limit.ts'), lines(500));
    writeFileSync(join(planted, 'unterminated.ts'), lines(501, true));
    writeFileSync(join(planted, 'at-the-limit-unterminated.ts'), lines(500, true));
    writeFileSync(join(planted, 'nested', 'page.css'), lines(502));
    writeFileSync(join(planted, 'empty.ts'), '');

    it('finds every file over the limit, in any folder and of any kind, its last line counted', () => {
      expect(longFiles(planted, '.').map(where)).toEqual([
        'long.ts (501 lines)',
        'nested/page.css (502 lines)',
        'unterminated.ts (501 lines)',
      ]);
    });

    it('lists each offender as file (N lines), and a stale or unexplained exemption', () => {
      expect(
        problems(
          longFiles(planted, '.'),
          [
            { file: 'gone.ts', adr: 'docs/adr/0004-statistics.md' },
            { file: 'long.ts', adr: 'docs/adr/0004-statistics.md' },
          ],
          readAdr,
        ),
      ).toEqual([
        'nested/page.css (502 lines): over 500 lines; split it where it holds two things',
        'unterminated.ts (501 lines): over 500 lines; split it where it holds two things',
        'EXEMPT gone.ts: no longer over 500 lines; remove it from EXEMPT',
        'EXEMPT gone.ts: docs/adr/0004-statistics.md does not say why it stays whole',
        'EXEMPT long.ts: docs/adr/0004-statistics.md does not say why it stays whole',
      ]);
    });

    it('passes when every offender is exempt with an ADR that names it', () => {
      const adr = 'docs/adr/planted.md';
      expect(
        problems(
          longFiles(planted, '.'),
          [
            { file: 'long.ts', adr },
            { file: 'nested/page.css', adr },
            { file: 'unterminated.ts', adr },
          ],
          (path) =>
            path === adr ? 'long.ts, nested/page.css and unterminated.ts stay whole because...' : null,
        ),
      ).toEqual([]);
    });
  });
});
