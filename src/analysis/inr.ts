/** Rupee figures as Indian reports print them. Pure. */

/** Digit grouping of a non-negative decimal string: Indian (12,34,567.89) or western (1,234,567.89). */
export function groupDigits(fixed: string, indian: boolean): string {
  const [whole = '', frac] = fixed.split('.');
  const head = indian ? whole.slice(0, -3) : '';
  const tail = indian ? whole.slice(-3) : whole;
  const left = head.replace(/\B(?=(?:\d{2})+$)/g, ',');
  const right = tail.replace(/\B(?=(?:\d{3})+$)/g, ',');
  return (left ? `${left},${right}` : right) + (frac === undefined ? '' : `.${frac}`);
}

/** Indian digit grouping with two decimals: 900122.5 -> "9,00,122.50". */
export function formatInr(value: number, decimals = 2): string {
  return `${value < 0 ? '-' : ''}${groupDigits(Math.abs(value).toFixed(decimals), true)}`;
}
