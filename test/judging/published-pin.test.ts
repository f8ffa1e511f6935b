import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

describe('configs/published.yaml', () => {
  it('pins the canonical judge prompt (rge judge prompt --check)', async () => {
    const out: string[] = [];
    const io: CliIO = {
      out: (t) => out.push(t),
      err: (t) => out.push(t),
      cwd: fileURLToPath(new URL('../../', import.meta.url)),
      exitCode: 0,
    };
    const code = await main(['node', 'rge', 'judge', 'prompt', '--check', 'configs/published.yaml'], io);
    expect(out.join(''), 'run `rge judge prompt --write-config configs/published.yaml`').toMatch(/current/);
    expect(code).toBe(0);
  });
});
