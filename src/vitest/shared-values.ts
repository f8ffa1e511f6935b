/**
 * One instance of each distinct value (issue 41): strings (a hundred thousand cases name a handful of
 * subjects, judges and hashes) and small records of few distinct values (a check's outcome, a verdict's
 * three scores, a case's scores, a judge's score line), frozen, so that no reader can change what other
 * cases share. Used by the report's compact rows (stored-rows.ts) and by the cases' metadata, in the
 * worker that makes it and in the reporter that holds it for the run (case-meta.ts).
 */
export class Shared {
  private readonly strings = new Map<string, string>();
  private readonly records = new Map<string, object>();

  of(s: string): string {
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    this.strings.set(s, s);
    return s;
  }

  /** A record of few distinct values, by its JSON: the first one seen, frozen. */
  record<T extends object>(value: T): T {
    const key = JSON.stringify(value);
    const known = this.records.get(key);
    if (known !== undefined) return known as T;
    this.records.set(key, deepFreeze(value));
    return value;
  }
}

function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) if (v !== null && typeof v === 'object') deepFreeze(v);
  return Object.freeze(value);
}
