/**
 * No function in src/ (nor in examples/) is longer than 80 lines (issue 36), counted from its first line
 * to its last with the TypeScript compiler API: function declarations and expressions, arrow functions, methods,
 * constructors and accessors, nested ones counted on their own. The only exceptions are numeric kernels
 * whose ADR says why they stay whole (`EXEMPT`); an exemption must match a function that is still too
 * long, so the list cannot go stale. Shown to fail on planted files.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

const MAX_FUNCTION_LINES = 80;

/**
 * Numeric kernels allowed over the limit, each named `file function` with the ADR that says why it
 * stays whole. None today: clusterBootstrapCI and kappaInterval were split (docs/adr/0004-statistics.md,
 * amendment of 2026-12-03).
 */
const EXEMPT: readonly { fn: string; adr: string }[] = [];

interface LongFunction {
  /** relative to the folder checked, with forward slashes */
  file: string;
  line: number;
  name: string;
  lines: number;
}

/** `file:line name (N lines)`, as the failures list them. */
const where = (f: LongFunction) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`;
/** The key of a function in EXEMPT: its file and name, not its line, which moves. */
const key = (f: LongFunction) => `${f.file} ${f.name}`;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.[cm]?[jt]s$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** A function's name: its own, its variable's or property's, else `(anonymous in <enclosing>)`. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText();
  for (let up: ts.Node | undefined = parent; up; up = up.parent)
    if (ts.isFunctionLike(up) && up !== node)
      return `(anonymous in ${nameOf(up as ts.FunctionLikeDeclaration)})`;
  return '(anonymous)';
}

/** Every function of the source files under `base`/`folder` longer than `limit` lines. */
function longFunctions(base: string, folder: string, limit = MAX_FUNCTION_LINES): LongFunction[] {
  const found: LongFunction[] = [];
  for (const path of sourceFiles(join(base, folder))) {
    const file = relative(base, path).split('\\').join('/');
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
        const lines = last - first + 1;
        if (lines > limit) found.push({ file, line: first, name: nameOf(node), lines });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

/**
 * What is wrong with the long functions found, given the exemptions: a function not exempt; an
 * exemption that matches no long function; an exemption whose ADR does not name it.
 */
function problems(
  found: readonly LongFunction[],
  exempt: readonly { fn: string; adr: string }[],
  readAdr: (path: string) => string | null,
): string[] {
  const keys = new Set(found.map(key));
  const allowed = new Set(exempt.map((e) => e.fn));
  return [
    ...found
      .filter((f) => !allowed.has(key(f)))
      .map((f) => `${where(f)}: over ${MAX_FUNCTION_LINES} lines; split it`),
    ...exempt
      .filter((e) => !keys.has(e.fn))
      .map((e) => `EXEMPT ${e.fn}: no longer over ${MAX_FUNCTION_LINES} lines; remove it from EXEMPT`),
    ...exempt
      .filter((e) => !readAdr(e.adr)?.includes(e.fn.split(' ').at(-1) as string))
      .map((e) => `EXEMPT ${e.fn}: ${e.adr} does not say why it stays whole`),
  ];
}

const readAdr = (path: string) => {
  try {
    return readFileSync(join(root, path), 'utf8');
  } catch {
    return null;
  }
};

describe(`functions in src/ (at most ${MAX_FUNCTION_LINES} lines)`, () => {
  it('are all within the limit, but for numeric kernels their ADR exempts', () => {
    expect(problems(longFunctions(root, 'src'), EXEMPT, readAdr)).toEqual([]);
  });

  it('holds for the examples too (examples/, no exemptions)', () => {
    expect(longFunctions(root, 'examples').map(where)).toEqual([]);
  });

  it('has exemptions only for numeric kernels (src/stats) that name an ADR', () => {
    for (const e of EXEMPT) {
      expect(e.fn).toMatch(/^src\/stats\//);
      expect(e.adr).toMatch(/^docs\/adr\/\d{4}-/);
    }
  });

  describe('the check fails on what it forbids', () => {
    const planted = mkdtempSync(join(tmpdir(), 'rge-function-length-'));
    afterAll(() => rmSync(planted, { recursive: true, force: true }));
    /** a function declaration of exactly `lines` lines (a header, statements, the closing brace) */
    const fn = (name: string, lines: number) =>
      `export function ${name}(): number {\n${'  void 0;\n'.repeat(lines - 3)}  return 1;\n}\n`;
    writeFileSync(
      join(planted, 'long.ts'),
      `// planted\n${fn('planted', 81)}${fn('atTheLimit', 80)}export const outer = () => [1].map(() => {\n${'  void 0;\n'.repeat(80)}  return 2;\n});\n`,
    );

    it('finds a function over the limit, and an anonymous one by its enclosing function', () => {
      const found = longFunctions(planted, '.');
      expect(found.map(where)).toEqual([
        'long.ts:2 planted (81 lines)',
        'long.ts:163 outer (83 lines)',
        'long.ts:163 (anonymous in outer) (83 lines)',
      ]);
    });

    it('lists each offender as file:line name (N lines), and a stale or unexplained exemption', () => {
      const found = longFunctions(planted, '.');
      expect(
        problems(
          found,
          [
            { fn: 'long.ts gone', adr: 'docs/adr/0004-statistics.md' },
            { fn: 'long.ts outer', adr: 'docs/adr/0004-statistics.md' },
          ],
          readAdr,
        ),
      ).toEqual([
        'long.ts:2 planted (81 lines): over 80 lines; split it',
        'long.ts:163 (anonymous in outer) (83 lines): over 80 lines; split it',
        'EXEMPT long.ts gone: no longer over 80 lines; remove it from EXEMPT',
        'EXEMPT long.ts gone: docs/adr/0004-statistics.md does not say why it stays whole',
        'EXEMPT long.ts outer: docs/adr/0004-statistics.md does not say why it stays whole',
      ]);
    });

    it('passes when every offender is exempt with an ADR that names it', () => {
      const found = longFunctions(planted, '.');
      const adr = 'docs/adr/planted.md';
      expect(
        problems(
          found,
          [
            { fn: 'long.ts planted', adr },
            { fn: 'long.ts outer', adr },
            { fn: 'long.ts (anonymous in outer)', adr },
          ],
          (path) => (path === adr ? 'planted, outer and (anonymous in outer) stay whole because...' : null),
        ),
      ).toEqual([]);
    });
  });
});
