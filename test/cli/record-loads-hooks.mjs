// The module hook of record-loads.mjs: records each resolved URL, then lets the load go on unchanged.
import { appendFileSync } from 'node:fs';

let out = '';

export function initialize(data) {
  out = data.out;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(out, `${resolved.url}\n`);
  return resolved;
}
