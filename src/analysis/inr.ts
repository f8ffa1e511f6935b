/** Rupee figures as Indian reports print them. Pure. */

/** Indian digit grouping with two decimals: 900122.5 -> "9,00,122.50". */
export function formatInr(value: number, decimals = 2): string {
  const negative = value < 0;
  const [whole, frac] = Math.abs(value).toFixed(decimals).split('.') as [string, string | undefined];
  const last3 = whole.slice(-3);
  const rest = whole.slice(0, -3).replace(/\B(?=(\d{2})+(?!\d))/g, ',');
  const grouped = rest ? `${rest},${last3}` : last3;
  return `${negative ? '-' : ''}${grouped}${frac !== undefined ? `.${frac}` : ''}`;
}
