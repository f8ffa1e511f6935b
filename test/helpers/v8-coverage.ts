import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One script's block coverage, as V8 gives it (Node writes it under NODE_V8_COVERAGE at exit). */
export interface ScriptCoverage {
  url: string;
  functions: { functionName: string; ranges: { startOffset: number; endOffset: number; count: number }[] }[];
}

/** The coverage of the script at `url` in the files a process wrote into `dir` (NODE_V8_COVERAGE), or null. */
export function scriptCoverage(dir: string, url: string): ScriptCoverage | null {
  for (const name of readdirSync(dir)) {
    const { result } = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { result: ScriptCoverage[] };
    const script = result.find((s) => s.url === url);
    if (script) return script;
  }
  return null;
}

/**
 * How many times the code at `offset` (a character of the script's source) ran: the count of the
 * innermost range that holds it (V8 nests block ranges inside their function's range, and reports a
 * function that never ran with count 0).
 */
export function countAt(script: ScriptCoverage, offset: number): number {
  let count = 0;
  let size = Number.POSITIVE_INFINITY;
  for (const f of script.functions) {
    for (const r of f.ranges) {
      if (r.startOffset <= offset && offset < r.endOffset && r.endOffset - r.startOffset < size) {
        size = r.endOffset - r.startOffset;
        count = r.count;
      }
    }
  }
  return count;
}
