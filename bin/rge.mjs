#!/usr/bin/env node
// The rge command. It runs dist/main.mjs, the bundle `npm ci` builds (scripts/build-dist.mjs), while every
// source file it was built from is unchanged (sha1 in dist/manifest.json); otherwise the TypeScript
// sources through tsx's loader, so an edit is never ignored (docs/adr/0012-cli-start-up.md).
// RGE_DIST_DIR names another bundle folder (tests and the start-up bench).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const root = new URL('../', import.meta.url);
const dist = process.env.RGE_DIST_DIR
  ? pathToFileURL(`${process.env.RGE_DIST_DIR.replace(/\/?$/, '/')}`)
  : new URL('dist/', root);

/** The bundle's entry URL when it matches the sources, else null. */
function freshBundle() {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(new URL('manifest.json', dist), 'utf8'));
  } catch {
    return null;
  }
  for (const [file, sha1] of Object.entries(manifest.inputs ?? {})) {
    let bytes;
    try {
      bytes = readFileSync(new URL(file, root));
    } catch {
      return null;
    }
    if (createHash('sha1').update(bytes).digest('hex') !== sha1) return null;
  }
  return new URL(manifest.entry, dist).href;
}

let entry = freshBundle();
if (entry === null) {
  const { register } = await import('tsx/esm/api');
  register();
  entry = new URL('src/cli/main.ts', root).href;
}
const { main, endWhenDone } = await import(entry);
// the exit code, and an end even if something a module system left behind still holds the process open
endWhenDone(await main(process.argv));
