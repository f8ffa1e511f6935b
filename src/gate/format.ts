/** How the gate's tables write numbers (src/gate/gate.ts, pass-all.ts); n/a for NaN (an empty slice). */
export const f3 = (x: number) => (Number.isNaN(x) ? 'n/a' : x.toFixed(3));
export const signed = (x: number) =>
  Number.isNaN(x) ? 'n/a' : `${x >= 0 ? '+' : '\u2212'}${Math.abs(x).toFixed(3)}`;
/** a level: 95%, 98.75% */
export const pct = (x: number) => `${Number((x * 100).toFixed(2))}%`;
export const pValueText = (p: number) => (p < 0.001 ? '<0.001' : p.toFixed(3));
