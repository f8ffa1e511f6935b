/**
 * The import graph of src/ has no circle and no arrow from a lower stage to a higher one: the rules of
 * .dependency-cruiser.cjs (docs/adr/0015-layout.md), checked with dependency-cruiser over the real tree,
 * and shown to fail on a planted circle, an upward import, a folder without a row and an import from
 * outside src/; inside src/run, the same for its sub-folders (RUN_LAYERS, docs/adr/0039-run-folders.md).
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type IConfiguration, type ICruiseResult } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const config = require(join(root, '.dependency-cruiser.cjs')) as IConfiguration & {
  LAYERS: string[][];
  RUN_LAYERS: string[][];
};

async function violations(baseDir: string, tsConfig?: string): Promise<string[]> {
  const previous = process.cwd();
  process.chdir(baseDir); // the rules' paths (^src/...) are relative to the cruise's base
  try {
    const { output } = await cruise(
      ['src'],
      {
        ruleSet: { forbidden: config.forbidden },
        validate: true,
        ...config.options,
        ...(tsConfig ? {} : { tsConfig: undefined }),
      },
      undefined,
      tsConfig ? { tsConfig: extractTSConfig(tsConfig) } : undefined,
    );
    const result = output as ICruiseResult;
    return result.summary.violations.map(
      (v) =>
        `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (circle: ${v.cycle.map((c) => c.name).join(' -> ')})` : ''}`,
    );
  } finally {
    process.chdir(previous);
  }
}

describe('the import graph of src/', () => {
  it('has no circle, no upward import and no folder outside the layers', async () => {
    expect(await violations(root, join(root, 'tsconfig.json'))).toEqual([]);
  });

  describe('the rules fail on what they forbid', () => {
    const planted = mkdtempSync(join(tmpdir(), 'rge-layout-'));
    afterAll(() => rmSync(planted, { recursive: true, force: true }));
    const write = (file: string, text: string) => {
      mkdirSync(dirname(join(planted, file)), { recursive: true });
      writeFileSync(join(planted, file), text);
    };
    write('src/util/a.ts', "import { b } from './b.ts';\nexport const a = () => b;\n");
    write('src/util/b.ts', "import { a } from './a.ts';\nexport const b = () => a;\n");
    write('src/stats/mean.ts', "import { a } from '../util/a.ts';\nexport const mean = a;\n");
    write('src/judging/verdict.ts', 'export const verdict = 1;\n');
    write(
      'src/providers/judge.ts',
      "import { verdict } from '../judging/verdict.ts';\nexport const j = verdict;\n",
    );
    write('src/elsewhere/x.ts', "import { a } from '../util/a.ts';\nexport const x = a;\n");
    write('scripts/tool.mjs', 'export const tool = 1;\n');
    write('src/util/tool.ts', "import { tool } from '../../scripts/tool.mjs';\nexport const t = tool;\n");
    write('node_modules/planted-package/package.json', '{ "name": "planted-package", "main": "index.js" }\n');
    write('node_modules/planted-package/index.js', 'export const planted = 1;\n');
    write(
      'src/util/packages.ts',
      "import { readFileSync } from 'node:fs';\nimport { planted } from 'planted-package';\n" +
        "import { z } from 'zod';\nexport const p = [readFileSync, planted, z];\n",
    );
    // inside src/run: an upward import, an import of a sibling on its row, a file in no sub-folder
    write('src/run/plan/plan.ts', "import { c } from '../config/config.ts';\nexport const p = c;\n");
    write('src/run/plan/types.ts', 'export const t = 1;\n');
    write('src/run/config/config.ts', "import { t } from '../plan/types.ts';\nexport const c = t;\n");
    write('src/run/case/case.ts', "import { w } from '../watch/inputs.ts';\nexport const k = w;\n");
    write('src/run/watch/inputs.ts', 'export const w = 1;\n');
    write('src/run/loose.ts', "import { w } from './watch/inputs.ts';\nexport const l = w;\n");

    it('a circle, an upward import, a stats import of ours, a folder without a row and an import from outside src', async () => {
      const found = await violations(planted);
      expect(found).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^no-circular: src\/util\/a\.ts -> src\/util\/b\.ts/),
          'layer-providers: src/providers/judge.ts -> src/judging/verdict.ts',
          'stats-imports-nothing-of-ours: src/stats/mean.ts -> src/util/a.ts',
          'no-unknown-folder: src/elsewhere/x.ts -> src/util/a.ts',
          'src-imports-nothing-outside-src: src/util/tool.ts -> scripts/tool.mjs',
          'run-layer-config: src/run/config/config.ts -> src/run/plan/types.ts',
          'run-layer-case: src/run/case/case.ts -> src/run/watch/inputs.ts',
          'run-no-unknown-folder: src/run/loose.ts -> src/run/watch/inputs.ts',
        ]),
      );
      // the import down the sub-folders of src/run is allowed
      expect(found.filter((v) => v.includes('src/run/plan/plan.ts ->'))).toEqual([]);
      // a node builtin and packages are not outside src: one installed, one not (zod: unresolved here)
      expect(found.filter((v) => v.includes('src/util/packages.ts'))).toEqual([]);
    });
  });

  it('every folder of src/ has one row', () => {
    const folders = config.LAYERS.flat();
    expect(new Set(folders).size).toBe(folders.length);
  });

  it('every sub-folder of src/run has one row, and src/run holds no file outside them', () => {
    const rows = config.RUN_LAYERS.flat();
    expect(new Set(rows).size).toBe(rows.length);
    const entries = readdirSync(join(root, 'src/run'), { withFileTypes: true });
    expect(entries.filter((e) => !e.isDirectory()).map((e) => e.name)).toEqual([]);
    expect(entries.map((e) => e.name).sort()).toEqual([...rows].sort());
  });
});
