/**
 * The gate's verdict in a few lines (`rge eval watch`, after each run): the verdict, each subject's
 * overall slice and every failing category, and what changed between the runs. `rge gate` prints the
 * whole table (gate.ts `gateMarkdown`); the numbers here are the same rows.
 */
import { f3, signed } from './format.ts';
import type { GateResult, GateRow } from './gate.ts';

function rowLine(r: GateRow): string {
  const verdict = r.fails ? 'REGRESSION' : r.tooSmallToTell ? 'within noise: too small to tell' : r.verdict;
  return (
    `  ${r.subject} (${r.slice}): GFS ${f3(r.baseline)} -> ${f3(r.current)}, ${signed(r.delta)} ` +
    `[${signed(r.low)}, ${signed(r.high)}] over ${r.cells} cells: ${verdict}`
  );
}

/** The verdict against `baselineName`, each subject's overall slice and the failing ones, the changes. */
export function gateBrief(result: GateResult, baselineName: string): string[] {
  const failing = [
    ...result.rows,
    ...(result.passAll ?? []).map((r) => ({ ...r, slice: `${r.slice}, pass^k` })),
  ]
    .filter((r) => r.fails)
    .map((r) => `${r.subject} (${r.slice})`);
  const head = result.passed
    ? `gate against ${baselineName}: pass`
    : `gate against ${baselineName}: REGRESSION in ${failing.join(', ')}`;
  const shown = result.rows.filter((r) => r.slice === 'overall' || r.fails);
  return [
    head,
    ...shown.map(rowLine),
    ...(result.changed.length > 0 ? [`  changed between the runs: ${result.changed.join('; ')}`] : []),
  ];
}
