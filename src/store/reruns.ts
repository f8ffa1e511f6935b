/**
 * Reruns (`.reruns.jsonl` in the results folder): `rge eval run --rerun SUBJECT` records one for the
 * subject's provider and model, and every later plan gives that model's cells a new identity (its
 * version `+rerun.N`), so they are asked again once and then reused like any other cell. The stored
 * answers of earlier epochs stay; nothing is deleted.
 */
import { hostname } from 'node:os';
import { z } from 'zod';
import { Journal } from './jsonl.ts';
import { resultsLayout } from './layout.ts';

export const RerunEvent = z.strictObject({
  t: z.literal('rerun'),
  provider: z.string(),
  model: z.string(),
  /** the subject id the rerun was asked for (informative) */
  subject_id: z.string(),
  owner: z.strictObject({ pid: z.number().int(), host: z.string() }),
  at: z.string(),
});
export type RerunEvent = z.infer<typeof RerunEvent>;

const slot = (provider: string, model: string) => `${provider}\u0000${model}`;

export class Reruns {
  private readonly journal: Journal<RerunEvent>;
  private readonly epochs = new Map<string, number>();

  constructor(readonly dir: string) {
    this.journal = new Journal(resultsLayout(dir).reruns, RerunEvent, (e) =>
      this.epochs.set(slot(e.provider, e.model), (this.epochs.get(slot(e.provider, e.model)) ?? 0) + 1),
    );
    this.journal.catchUp();
  }

  /** How many reruns of the model were asked (0: none; its cells keep their first identity). */
  epochOf(provider: string, model: string): number {
    this.journal.catchUp();
    return this.epochs.get(slot(provider, model)) ?? 0;
  }

  /** Records a rerun of a subject's model; returns its new epoch. */
  async rerun(subject: { id: string; provider: string; model: string }): Promise<number> {
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
    return this.epochOf(subject.provider, subject.model);
  }
}
