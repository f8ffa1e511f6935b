/** Input checks shared by `src/stats`: each throws a RangeError or TypeError naming the function and the argument. */

export function assertArray(fn: string, name: string, xs: unknown): asserts xs is readonly unknown[] {
  if (!Array.isArray(xs)) throw new TypeError(`${fn}: ${name} must be an array`);
}

/** A non-empty array of finite numbers. */
export function assertFiniteNumbers(fn: string, name: string, xs: unknown, allowEmpty = false): void {
  assertArray(fn, name, xs);
  if (!allowEmpty && xs.length === 0) throw new RangeError(`${fn}: ${name} is empty`);
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    if (typeof x !== 'number') throw new TypeError(`${fn}: ${name}[${i}] is not a number (${typeof x})`);
    if (!Number.isFinite(x)) throw new RangeError(`${fn}: ${name}[${i}] is ${x}; values must be finite`);
  }
}

export function assertSameLength(
  fn: string,
  a: readonly unknown[],
  b: readonly unknown[],
  names = 'a and b',
): void {
  if (a.length !== b.length) {
    throw new RangeError(`${fn}: ${names} must have the same length (got ${a.length} and ${b.length})`);
  }
}

/** The two-sided tail alpha = (1 - confidence) / 2, computed as scipy does. */
export function tailAlpha(fn: string, confidence: number | undefined): number {
  const c = confidence ?? 0.95;
  if (typeof c !== 'number' || !(c > 0 && c < 1)) {
    throw new RangeError(`${fn}: confidence must be a number in (0, 1), got ${String(c)}`);
  }
  return (1 - c) / 2;
}
