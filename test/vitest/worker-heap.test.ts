/** RGE_WORKER_HEAP_MB: the eval workers' heap limit (src/vitest/worker-heap.ts). */
import { describe, expect, it } from 'vitest';
import { DEFAULT_WORKER_HEAP_MB, workerHeapArgs } from '../../src/vitest/worker-heap.ts';

describe('workerHeapArgs', () => {
  it('gives the default limit, a chosen one, or none', () => {
    expect(workerHeapArgs({})).toEqual([`--max-old-space-size=${DEFAULT_WORKER_HEAP_MB}`]);
    expect(workerHeapArgs({ RGE_WORKER_HEAP_MB: '2048' })).toEqual(['--max-old-space-size=2048']);
    expect(workerHeapArgs({ RGE_WORKER_HEAP_MB: '0' })).toEqual([]);
  });

  it('refuses what is not a whole number of megabytes, naming the variable', () => {
    for (const bad of ['-1', '1.5', 'lots', '64'])
      expect(() => workerHeapArgs({ RGE_WORKER_HEAP_MB: bad })).toThrow(/RGE_WORKER_HEAP_MB/);
  });
});
