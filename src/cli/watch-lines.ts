/**
 * What `rge eval watch` says after a run about its cases: which changed since the run before (their
 * GFS before and after, the largest changes first), in a few lines.
 */
import type { CaseChange, CaseChanges } from '../run/watch/changes.ts';

const gfsText = (x: number | null) => (x === null ? 'unscored' : x.toFixed(3));

const mean = (xs: readonly (number | null)[]): number | null => {
  const scored = xs.filter((x): x is number => x !== null);
  return scored.length === 0 ? null : scored.reduce((a, b) => a + b, 0) / scored.length;
};

/** How far a case's GFS moved (an unscored side counts as the largest move). */
const moved = (c: CaseChange) =>
  c.before === null || c.after === null ? Number.POSITIVE_INFINITY : Math.abs(c.after - c.before);

/** `extractive 20, rag-app 2`: how many of these cases each subject has. */
function bySubject(cases: readonly CaseChange[]): string {
  const counts = new Map<string, number>();
  for (const c of cases) counts.set(c.subject, (counts.get(c.subject) ?? 0) + 1);
  return [...counts].map(([subject, n]) => `${subject} ${n}`).join(', ');
}

/** The changed cases in a few lines: at most `limit` of them named. */
export function changeLines(changes: CaseChanges, limit = 8): string[] {
  const { changed, added, removed, total } = changes;
  if (changed.length === 0 && added.length === 0 && removed === 0)
    return [`no case changed since the last run (${total} cases)`];
  const parts = [
    `${changed.length} of ${total} cases changed since the last run${changed.length > 0 ? ` (${bySubject(changed)})` : ''}`,
    ...(added.length > 0 ? [`${added.length} new (${bySubject(added)})`] : []),
    ...(removed > 0 ? [`${removed} no longer in the run`] : []),
  ];
  const means =
    changed.length > 0
      ? `; mean GFS of the changed cases ${gfsText(mean(changed.map((c) => c.before)))} -> ${gfsText(mean(changed.map((c) => c.after)))}`
      : '';
  const named = [...changed]
    .sort((a, b) => moved(b) - moved(a) || (a.name < b.name ? -1 : 1))
    .slice(0, limit);
  const rest = changed.length - named.length;
  return [
    `${parts.join(', ')}${means}`,
    ...named.map((c) => `  ${c.name}: GFS ${gfsText(c.before)} -> ${gfsText(c.after)}`),
    ...(rest > 0 ? [`  ... and ${rest} more (the report lists every case)`] : []),
  ];
}
