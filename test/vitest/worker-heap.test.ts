/** RGE_WORKER_HEAP_MB and RGE_HEAP_GROWTH_PERCENT: the eval processes' heaps (src/vitest/worker-heap.ts). */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/util/errors.ts';
import {
  DEFAULT_HEAP_GROWTH_PERCENT,
  DEFAULT_WORKER_HEAP_MB,
  heapGrowthPercent,
  WORKER_SEMI_SPACE_MB,
  workerHeapArgs,
} from '../../src/vitest/worker-heap.ts';

const growth = `--heap-growing-percent=${DEFAULT_HEAP_GROWTH_PERCENT}`;
const semi = `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`;

describe('workerHeapArgs', () => {
  it('gives the default limit and growth, chosen ones, or V8 defaults', () => {
    expect(workerHeapArgs({})).toEqual([`--max-old-space-size=${DEFAULT_WORKER_HEAP_MB}`, semi, growth]);
    expect(workerHeapArgs({ RGE_WORKER_HEAP_MB: '2048' })).toEqual([
      '--max-old-space-size=2048',
      semi,
      growth,
    ]);
    expect(workerHeapArgs({ RGE_WORKER_HEAP_MB: '0' })).toEqual([growth]);
    expect(workerHeapArgs({ RGE_HEAP_GROWTH_PERCENT: '50' })).toEqual([
      `--max-old-space-size=${DEFAULT_WORKER_HEAP_MB}`,
      semi,
      '--heap-growing-percent=50',
    ]);
    expect(workerHeapArgs({ RGE_WORKER_HEAP_MB: '0', RGE_HEAP_GROWTH_PERCENT: '0' })).toEqual([]);
  });

  it('refuses what is not a whole number of megabytes or a percentage in range, naming the variable', () => {
    for (const bad of ['-1', '1.5', 'lots', '64'])
      expect(() => workerHeapArgs({ RGE_WORKER_HEAP_MB: bad })).toThrow(/RGE_WORKER_HEAP_MB/);
    for (const bad of ['5', '301', '2.5', 'more', '-20']) {
      expect(() => heapGrowthPercent({ RGE_HEAP_GROWTH_PERCENT: bad })).toThrow(/RGE_HEAP_GROWTH_PERCENT/);
      expect(() => workerHeapArgs({ RGE_HEAP_GROWTH_PERCENT: bad })).toThrow(UsageError);
    }
  });

  it('gives node flags that node accepts (a flag it does not know would stop every worker)', () => {
    const args = workerHeapArgs({ RGE_WORKER_HEAP_MB: '256', RGE_HEAP_GROWTH_PERCENT: '30' });
    const r = spawnSync(process.execPath, [...args, '-e', 'process.stdout.write("ok")'], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('ok');
    const unknown = spawnSync(process.execPath, ['--heap-growing-percentage=30', '-e', '1'], {
      encoding: 'utf8',
    });
    expect(unknown.status).not.toBe(0);
  });
});
