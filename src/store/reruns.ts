/**
 * Reruns (`.reruns.jsonl` in the results folder): `rge eval run --rerun SUBJECT` records one for the
 * subject's provider and model, and every later plan gives that model's cells a new identity (its
 * version `+rerun.N`), so they are asked again once and then reused like any other cell. A system
 * subject's reruns are its own (by its subject id): its `model` is a label, which another system may
 * share. The stored answers of earlier epochs stay; nothing is deleted.
 */
import { hostname } from 'node:os';
import { z } from 'zod';
import { findKind } from '../models/kinds.ts';
import { Journal } from './jsonl.ts';
import { resultsLayout } from './layout.ts';

export const RerunEvent = z.strictObject({
  t: z.literal('rerun'),
  provider: z.string(),
  model: z.string(),
  /** the subject id the rerun was asked for (a system's reruns are counted by it; a model's by its model) */
  subject_id: z.string(),
  owner: z.strictObject({ pid: z.number().int(), host: z.string() }),
  at: z.string(),
});
export type RerunEvent = z.infer<typeof RerunEvent>;

/** Whose reruns an event or a subject counts: a system's, by its subject id; a model's, by provider and model. */
type Rerunnable = { id: string; provider: string; model: string };
const slot = (s: Rerunnable) =>
  findKind(s.provider)?.identity === 'subject'
    ? `system\u0000${s.provider}\u0000${s.id}`
    : `${s.provider}\u0000${s.model}`;

export class Reruns {
  private readonly journal: Journal<RerunEvent>;
  private readonly epochs = new Map<string, number>();

  constructor(readonly dir: string) {
    this.journal = new Journal(resultsLayout(dir).reruns, RerunEvent, (e) => {
      const at = slot({ id: e.subject_id, provider: e.provider, model: e.model });
      this.epochs.set(at, (this.epochs.get(at) ?? 0) + 1);
    });
    this.journal.catchUp();
  }

  /** How many reruns of the subject (a system) or its model were asked (0: none; its cells keep their first identity). */
  epochOf(subject: Rerunnable): number {
    this.journal.catchUp();
    return this.epochs.get(slot(subject)) ?? 0;
  }

  /** Records a rerun of a subject (a system) or its model; returns its new epoch. */
  async rerun(subject: Rerunnable): Promise<number> {
    await this.journal.append([
      {
        t: 'rerun',
        provider: subject.provider,
        model: subject.model,
        subject_id: subject.id,
        owner: { pid: process.pid, host: hostname() },
        at: new Date().toISOString(),
      },
    ]);
    return this.epochOf(subject);
  }
}
