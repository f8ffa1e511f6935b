/** rolldown's allocator options around the import that loads Vite (src/vitest/allocator.ts). */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ALLOCATOR_ENV, withAllocatorEnv } from '../../src/vitest/allocator.ts';

describe('withAllocatorEnv', () => {
  it('sets the options only while loading, and leaves a variable the user set', async () => {
    const env: NodeJS.ProcessEnv = { MIMALLOC_PURGE_DELAY: '250', PATH: '/bin' };
    const seen = await withAllocatorEnv(async () => ({ ...env }), env);
    expect(seen).toEqual({ MIMALLOC_ALLOW_THP: '0', MIMALLOC_PURGE_DELAY: '250', PATH: '/bin' });
    expect(env).toEqual({ MIMALLOC_PURGE_DELAY: '250', PATH: '/bin' });
  });

  it('takes them out again when the load fails', async () => {
    const env: NodeJS.ProcessEnv = {};
    await expect(
      withAllocatorEnv(async () => {
        throw new Error('no vite');
      }, env),
    ).rejects.toThrow('no vite');
    expect(env).toEqual({});
  });

  it("reaches rolldown's mimalloc when Vite loads, and not the processes started after", () => {
    // MIMALLOC_VERBOSE makes mimalloc print each option as it reads it from the environment
    const script = [
      "import { spawnSync } from 'node:child_process';",
      "import { withAllocatorEnv } from './src/vitest/allocator.ts';",
      "await withAllocatorEnv(() => import('vitest/node'));",
      "const child = spawnSync(process.execPath, ['-p', 'JSON.stringify(Object.keys(process.env).filter((k) => k.startsWith(\"MIMALLOC_\")))'], { encoding: 'utf8' });",
      'process.stdout.write(child.stdout);',
    ].join('\n');
    const env: NodeJS.ProcessEnv = { ...process.env, MIMALLOC_VERBOSE: '1' };
    for (const name of Object.keys(ALLOCATOR_ENV)) delete env[name];
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain("option 'allow_thp': 0");
    expect(r.stderr).toContain("option 'purge_delay': 0");
    expect(JSON.parse(r.stdout)).toEqual(['MIMALLOC_VERBOSE']);
  });
});
