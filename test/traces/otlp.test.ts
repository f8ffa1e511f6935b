/** OTLP times: nanoseconds since the epoch as milliseconds, without losing the millisecond. */
import { describe, expect, it } from 'vitest';
import { nanosToMs } from '../../src/traces/otlp.ts';

describe('nanosToMs', () => {
  it('reads a decimal string of nanoseconds exactly to the millisecond (a 19-digit number is past 2^53)', () => {
    // Number('1796557327610000000') is 1796557327609999872: its start would read as .609
    expect(new Date(nanosToMs('1796557327610000000') as number).toISOString()).toBe(
      '2026-12-06T11:42:07.610Z',
    );
    expect(nanosToMs('1796557327610500000')).toBe(1796557327610.5);
    expect(nanosToMs('0')).toBe(0);
  });

  it("reads a number of nanoseconds and protobuf's {low, high}", () => {
    expect(nanosToMs(1_500_000)).toBe(1.5);
    expect(nanosToMs({ low: 1_000_000, high: 0 })).toBe(1);
    expect(nanosToMs('')).toBeNull();
    expect(nanosToMs(null)).toBeNull();
  });
});
