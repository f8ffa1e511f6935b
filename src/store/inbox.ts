/**
 * The replies a process has received, written the moment they arrive (`cells/.inbox/<owner>.jsonl`, one
 * file per process, appended by that process alone, no lock), before the record goes into its cell
 * store under the store's lock. A process killed with SIGKILL between the two would otherwise lose a
 * reply its provider billed, and the process that takes the cell over would pay for it again. The
 * next recovery (a run's start, or a takeover of the dead process's leases) moves a dead process's
 * received replies into their stores, where the ledger settles their calls at what they really cost.
 * What is left is the time from a reply's last byte leaving the provider to its line here.
 *
 * Only a process known to be dead (its pid gone on this host) has its inbox taken: a live one, or one
 * on another host, stores its own replies.
 */
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import type { CallCharge } from '../providers/types.ts';
import { processAlive } from '../util/owner.ts';
import { AnswerRecord, AttemptRecord, type CellStore, type CellStores, VerdictRecord } from './cells.ts';
import { Journal } from './jsonl.ts';
import { resultsLayout } from './layout.ts';
import { LeaseOwner } from './leases.ts';

export const InboxLine = z.discriminatedUnion('t', [
  z.strictObject({ t: z.literal('owner'), owner: LeaseOwner }),
  z.strictObject({ t: z.literal('answer'), record: AnswerRecord }),
  z.strictObject({ t: z.literal('verdict'), record: VerdictRecord }),
  /** a judge's unusable first reply, kept before its retry is asked */
  z.strictObject({ t: z.literal('attempt'), record: AttemptRecord }),
]);
export type InboxLine = z.infer<typeof InboxLine>;

export function inboxDir(resultsDir: string): string {
  return resultsLayout(resultsDir).inbox;
}

/** One process's inbox. */
export class ReplyInbox {
  readonly file: string;
  private started = false;

  constructor(
    private readonly resultsDir: string,
    private readonly owner: LeaseOwner,
  ) {
    this.file = join(
      inboxDir(resultsDir),
      `${owner.host}_${owner.pid}_${owner.token}.jsonl`.replace(/[^A-Za-z0-9._-]+/g, '_'),
    );
  }

  /** records received and not known to be stored */
  private readonly pending = new Set<string>();

  /** Writes a reply's record as it arrives (synchronously: nothing can come between). */
  receive(line: Exclude<InboxLine, { t: 'owner' }>): void {
    this.pending.add(line.record.key);
    if (!this.started) {
      mkdirSync(inboxDir(this.resultsDir), { recursive: true });
      appendFileSync(this.file, `${JSON.stringify({ t: 'owner', owner: this.owner })}\n`);
      this.started = true;
    }
    appendFileSync(this.file, `${JSON.stringify(line)}\n`);
  }

  /** Says a received record is in its store now. */
  stored(key: string): void {
    this.pending.delete(key);
  }

  /**
   * Removes the inbox at the end of a run's stages when every reply in it is stored; one that could not
   * be (a full disk) stays for the next run to store.
   */
  close(): void {
    if (this.started && this.pending.size === 0) {
      rmSync(this.file, { force: true });
      this.started = false;
    }
  }
}

/**
 * Moves the replies of dead processes into their cell stores (the first record of a key stays the
 * cell's; the same call's record is not stored twice) and removes their inboxes; returns how many
 * records were stored.
 */
export async function takeDeadInboxes(resultsDir: string, cells: CellStores): Promise<number> {
  const dir = inboxDir(resultsDir);
  if (!existsSync(dir)) return 0;
  let stored = 0;
  for (const name of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
    const file = join(dir, name);
    if (!ownerIsDead(file)) continue;
    const lines: InboxLine[] = [];
    new Journal(file, InboxLine, (line) => lines.push(line)).catchUp();
    for (const line of lines) {
      if (line.t === 'owner') continue;
      const { provider, model } = line.record.identity;
      const fresh =
        line.t === 'answer'
          ? await storeOnce(cells.answers(provider, model), line.record)
          : line.t === 'verdict'
            ? await storeOnce(cells.verdicts(provider, model), line.record)
            : await storeOnce(cells.attempts(provider, model), line.record);
      if (fresh) stored++;
    }
    rmSync(file, { force: true });
  }
  return stored;
}

/** Stores a record unless its key is stored already; says whether it was new. */
async function storeOnce<R extends { key: string; charges: CallCharge[] }>(
  store: CellStore<R>,
  record: R,
): Promise<boolean> {
  store.refresh();
  const fresh = store.get(record.key) === undefined;
  await store.put(record);
  return fresh;
}

/** Is the inbox's owner (its first line) a process of this host that is gone? Reads only that line. */
function ownerIsDead(file: string): boolean {
  const fd = openSync(file, 'r');
  let first: string;
  try {
    const buf = Buffer.alloc(4096);
    const n = readSync(fd, buf, 0, buf.length, 0);
    first = buf.subarray(0, n).toString('utf8').split('\n')[0] ?? '';
  } finally {
    closeSync(fd);
  }
  let head: InboxLine;
  try {
    head = InboxLine.parse(JSON.parse(first));
  } catch {
    return false; // not even its owner line yet: being written
  }
  return head.t === 'owner' && head.owner.host === hostname() && !processAlive(head.owner);
}
