/**
 * The cross-family panel: the only way judges are chosen. A subject is judged by exactly two judges,
 * neither of the subject's family (a model family never judges itself), and of two different families
 * when the config offers them, so that their agreement is informative. The choice is deterministic:
 * the first eligible judge in configured order, then the first after it of another family (else the
 * next eligible one).
 */
import { RgeError } from '../util/errors.ts';

/** What the panel needs of a judge; a run config's `judges[]` entry and a `Provider` both satisfy it. */
export interface PanelJudge {
  readonly id: string;
  readonly family: string;
}

/** Judges per subject. */
export const PANEL_SIZE = 2;

/** Thrown when fewer than two judges of other families than the subject's exist. */
export class PanelError extends RgeError {
  constructor(message: string) {
    super(message);
    this.name = 'PanelError';
  }
}

/**
 * The two judges of a subject of family `subjectFamily`, in configured order. Throws `PanelError` when
 * fewer than two judges of another family exist.
 */
export function crossFamilyPanel<J extends PanelJudge>(subjectFamily: string, judges: readonly J[]): [J, J] {
  const eligible = judges.filter((j) => j.family !== subjectFamily);
  const [first] = eligible;
  if (first === undefined || eligible.length < PANEL_SIZE)
    throw new PanelError(
      `a subject of family ${subjectFamily} needs ${PANEL_SIZE} judges of other families, ` +
        `found ${eligible.length}${eligible.length > 0 ? ` (${eligible.map((j) => j.id).join(', ')})` : ''}: ` +
        'a family may not judge itself',
    );
  const rest = eligible.slice(1);
  const second = rest.find((j) => j.family !== first.family) ?? (rest[0] as J);
  return [first, second];
}
