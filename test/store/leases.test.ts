/**
 * Cell leases (src/run/leases.ts): one owner per (stage, key) across processes; a dead owner's leases
 * are taken over at once, a silent one's once its heartbeat is older than the timeout, a live one's
 * never.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, utimesSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CellLeases, LEASES_JOURNAL, type LeaseEvent, type LeaseOwner } from '../../src/store/leases.ts';
import { bundledModule } from '../../src/util/bundle.ts';
import { deadPid } from '../helpers/dead-pid.ts';
import { root } from '../helpers/live.ts';
import { scratchDirs } from '../helpers/scratch.ts';

const freshDir = scratchDirs('rge-leases-');

/** Writes a claim another owner left, by hand. */
function claimedBy(dir: string, owner: LeaseOwner, keys: string[]): void {
  mkdirSync(dir, { recursive: true });
  const e: LeaseEvent = { t: 'claim', stage: 'answer', keys, owner, at: new Date().toISOString() };
  appendFileSync(join(dir, LEASES_JOURNAL), `${JSON.stringify(e)}\n`);
}

describe('CellLeases', () => {
  it("a key is one owner's until released; a live owner's key is refused to another", async () => {
    const dir = freshDir();
    const a = new CellLeases(dir);
    const b = new CellLeases(dir);
    expect((await a.claim('answer', ['k1', 'k2'])).mine).toEqual(new Set(['k1', 'k2']));
    // claiming again is harmless; b gets only what a does not hold
    expect((await a.claim('answer', ['k1'])).mine).toEqual(new Set(['k1']));
    expect((await b.claim('answer', ['k1', 'k3'])).mine).toEqual(new Set(['k3']));
    // stages are apart: a verdict key is not an answer key
    expect((await b.claim('verdict', ['k1'])).mine).toEqual(new Set(['k1']));
    a.refresh();
    expect(a.heldByOther('answer', 'k3')).toBe(true);
    expect(b.heldByOther('answer', 'k1')).toBe(true);
    await a.release('answer', ['k1']);
    b.refresh();
    expect(b.heldByOther('answer', 'k1')).toBe(false);
    expect((await b.claim('answer', ['k1'])).mine).toEqual(new Set(['k1']));
    // a fresh reader agrees
    const c = new CellLeases(dir);
    expect(c.holder('answer', 'k1')?.token).toBe(b.owner.token);
    expect(c.holder('answer', 'k2')?.token).toBe(a.owner.token);
    await a.close();
    await b.close();
    c.refresh();
    expect(c.holder('answer', 'k1')).toBeUndefined();
    expect(c.holder('answer', 'k2')).toBeUndefined();
  });

  it("a dead owner's leases are taken over at once, and the claim says whose", async () => {
    const dir = freshDir();
    const dead: LeaseOwner = { pid: await deadPid(), host: hostname(), token: 'gone' };
    claimedBy(dir, dead, ['k1', 'k2']);
    const a = new CellLeases(dir);
    // the heartbeat a process killed with SIGKILL leaves behind
    const beat = `${a.heartbeatFile(dead)}.lock`;
    mkdirSync(beat, { recursive: true });
    expect(a.heldByOther('answer', 'k1')).toBe(false);
    const { mine, tookOver } = await a.claim('answer', ['k1']);
    expect(mine).toEqual(new Set(['k1']));
    expect(tookOver).toEqual([dead]);
    expect(existsSync(beat)).toBe(false);
    // the dead owner's release (it cannot send one, but a late one) frees nothing of a's
    appendFileSync(
      join(dir, LEASES_JOURNAL),
      `${JSON.stringify({ t: 'release', stage: 'answer', keys: ['k1'], owner: dead, at: '' })}\n`,
    );
    a.refresh();
    expect(a.holder('answer', 'k1')?.token).toBe(a.owner.token);
    await a.close();
  });

  it("a silent owner's leases (alive, but its heartbeat stopped) are taken over after the timeout", async () => {
    const dir = freshDir();
    // alive: this very process; its heartbeat: a lock whose mtime is set by hand
    const silent: LeaseOwner = { pid: process.pid, host: hostname(), token: 'silent' };
    claimedBy(dir, silent, ['k1']);
    const a = new CellLeases(dir, { silentAfterMs: 2000 });
    const beat = `${a.heartbeatFile(silent)}.lock`;
    mkdirSync(beat, { recursive: true });
    // refreshed a second ago: alive, refused
    const ago = (ms: number) => new Date(Date.now() - ms);
    utimesSync(beat, ago(1000), ago(1000));
    expect((await a.claim('answer', ['k1'])).mine).toEqual(new Set());
    // last refreshed 5 s ago, past the 2 s timeout: taken over (after the 250 ms liveness cache)
    utimesSync(beat, ago(5000), ago(5000));
    await new Promise((r) => setTimeout(r, 300));
    expect((await a.claim('answer', ['k1'])).tookOver).toEqual([silent]);
    // an owner with no heartbeat at all is silent too
    claimedBy(dir, { ...silent, token: 'never-beat' }, ['k2']);
    a.refresh();
    expect((await a.claim('answer', ['k2'])).mine).toEqual(new Set(['k2']));
    await a.close();
  });

  it('the heartbeat of a live owner is kept fresh past the timeout', async () => {
    const dir = freshDir();
    const a = new CellLeases(dir, { silentAfterMs: 2000 });
    await a.claim('answer', ['k1']);
    await new Promise((r) => setTimeout(r, 3000));
    const b = new CellLeases(dir, { silentAfterMs: 2000 });
    expect(b.heldByOther('answer', 'k1')).toBe(true);
    expect((await b.claim('answer', ['k1'])).mine).toEqual(new Set());
    await a.close();
    await b.close();
  });

  it('four processes claiming the same 40 keys at once: each key is won by exactly one', async () => {
    const dir = freshDir();
    const keys = Array.from({ length: 40 }, (_, i) => `key-${i}`);
    const bundle = await bundledModule(join(root, 'test/store/leases/claim-child.ts'));
    const args = bundle ? [bundle] : ['--import', 'tsx', join(root, 'test/store/leases/claim-child.ts')];
    const children = Array.from({ length: 4 }, (_, i) =>
      spawn(process.execPath, args, {
        cwd: root,
        env: {
          ...process.env,
          RGE_LEASE_DIR: dir,
          RGE_LEASE_KEYS: JSON.stringify(keys),
          RGE_LEASE_SEED: `s${i}`,
        },
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    const results = await Promise.all(
      children.map(
        (child) =>
          new Promise<{ pid: number; won: string[] }>((resolve, reject) => {
            let out = '';
            child.stdout.on('data', (d: Buffer) => {
              out += d;
              if (out.includes('\n')) resolve(JSON.parse(out) as { pid: number; won: string[] });
            });
            child.on('error', reject);
            child.on('exit', (code) => reject(new Error(`a child exited (${code}) before it answered`)));
          }),
      ),
    );
    for (const child of children) child.stdin.end();
    const won = results.flatMap((r) => r.won);
    expect(won.sort()).toEqual([...keys].sort());
    expect(new Set(won).size).toBe(keys.length);
    // the journal agrees: one claim per key, each by the child that says it won it
    const reader = new CellLeases(dir);
    for (const r of results) for (const k of r.won) expect(reader.holder('answer', k)?.pid).toBe(r.pid);
  });
});
