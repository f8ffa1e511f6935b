/**
 * Who holds something shared by processes (a budget reservation, a cell lease): a process, by its pid
 * and host, and whether it is still there. A pid on this host answers `kill(pid, 0)` while its process
 * lives; on another host nothing can be asked, so such an owner counts as alive (a lease adds a
 * heartbeat for that: run/leases.ts).
 */
import { hostname } from 'node:os';

export interface ProcessOwner {
  pid: number;
  host: string;
}

/** Is the owner's process running? Always true for another host (it cannot be asked). */
export function processAlive(owner: ProcessOwner): boolean {
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists, under another user
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
