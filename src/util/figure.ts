/**
 * A number as text for a reader: a figure at its own precision, never the binary noise of a
 * computation (206808.53000000003, -1.7100000000000009, 5.390000000000001). Every place that puts a
 * computed number into text a person reads (the report, a judge's rationale, a check's detail) goes
 * through `figureText`, so none prints differently.
 */

/** Significant digits kept: a double carries 15 to 17; the noise of a sum or difference sits past 12. */
export const FIGURE_DIGITS = 12;

/**
 * `x` rounded to FIGURE_DIGITS significant digits, without trailing zeros: 9.5 as `9.5`, 0.1 + 0.2 as
 * `0.3`, -1.7100000000000009 as `-1.71`, 1200 as `1200`; `-0` as `0`; NaN and the infinities as
 * JavaScript writes them.
 */
export function figureText(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const rounded = Number(x.toPrecision(FIGURE_DIGITS));
  return String(rounded === 0 ? 0 : rounded);
}
