/**
 * A child process for the lease test: claims every key of RGE_LEASE_KEYS one at a time, in a seeded
 * order of its own, in the results folder RGE_LEASE_DIR, and prints the keys it won as JSON. It holds
 * them until its parent closes its stdin, so that the others see it alive.
 */
import seedrandom from 'seedrandom';
import { CellLeases } from '../../../src/store/leases.ts';

const keys = JSON.parse(process.env.RGE_LEASE_KEYS ?? '[]') as string[];
const random = seedrandom(process.env.RGE_LEASE_SEED ?? '');
const order = keys
  .map((k) => ({ k, r: random() }))
  .sort((a, b) => a.r - b.r)
  .map((x) => x.k);
const leases = new CellLeases(process.env.RGE_LEASE_DIR ?? '.');
const won: string[] = [];
await Promise.all(
  order.map(async (key) => {
    if ((await leases.claim('answer', [key])).mine.has(key)) won.push(key);
  }),
);
process.stdout.write(`${JSON.stringify({ pid: process.pid, won })}\n`);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
