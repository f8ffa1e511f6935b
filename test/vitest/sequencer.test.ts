/**
 * The unit project's file order (test/helpers/sequencer.ts): on a fresh clone (no results cache) the
 * files measured slowest start first; once Vitest has a duration for every file, its order stands.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import SlowFirstSequencer, { SLOW_FILES } from '../helpers/sequencer.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A specification as the sequencer reads it, with a file size for Vitest's fresh-clone rule. */
const spec = (path: string) =>
  ({
    moduleId: join(ROOT, path),
    project: { name: 'unit', config: { sequence: { groupOrder: 0 }, isolate: false } },
  }) as unknown as TestSpecification;

function sequencer(durations: Record<string, number> | null): SlowFirstSequencer {
  const sizes: Record<string, number> = { 'test/big.test.ts': 50_000, 'test/small.test.ts': 100 };
  const ctx = {
    config: { root: ROOT, sequence: {} },
    cache: {
      getFileTestResults: (key: string) => {
        const d = durations?.[key.replace(/^unit:/, '')];
        return d === undefined ? undefined : { duration: d, failed: false };
      },
      getFileStats: (key: string) => ({ size: sizes[key.replace(/^unit:/, '')] ?? 1_000 }),
    },
  } as unknown as Vitest;
  return new SlowFirstSequencer(ctx);
}

describe('the unit project file order', () => {
  it('names files that exist', () => {
    expect(SLOW_FILES.length).toBeGreaterThan(5);
    for (const f of SLOW_FILES) expect(existsSync(join(ROOT, f)), f).toBe(true);
  });

  it('starts the slowest files first on a fresh clone, where Vitest would start the largest', async () => {
    const files = [
      'test/big.test.ts',
      SLOW_FILES[2] as string,
      'test/small.test.ts',
      SLOW_FILES[0] as string,
    ];
    const order = (await sequencer(null).sort(files.map(spec))).map((s) => s.moduleId.slice(ROOT.length));
    expect(order.slice(0, 2)).toEqual([SLOW_FILES[0], SLOW_FILES[2]]);
    expect(order.slice(2)).toEqual(['test/big.test.ts', 'test/small.test.ts']);
  });

  it("keeps Vitest's order (longest last time first) once every file has a duration", async () => {
    const durations = {
      'test/big.test.ts': 90_000,
      [SLOW_FILES[0] as string]: 1_000,
      'test/small.test.ts': 5,
    };
    const files = Object.keys(durations);
    const order = (await sequencer(durations).sort(files.map(spec))).map((s) =>
      s.moduleId.slice(ROOT.length),
    );
    expect(order).toEqual(['test/big.test.ts', SLOW_FILES[0], 'test/small.test.ts']);
  });
});
