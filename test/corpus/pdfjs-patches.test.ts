/**
 * rge's edits to pdfjs-dist's two built modules (src/corpus/pdfjs-patches.ts, docs/adr/0024): each
 * applies to the pinned pdfjs-dist, a changed anchor is named, a fallback to pdfjs-dist's own files is
 * said once, and the API edit's copy of plain messages gives what a structured clone gives. The patched
 * and the original code are compared in pdfjs-patches-compare.test.ts.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN_EDITS, type SourceEdit, WORKER_EDITS } from '../../src/corpus/pdfjs-edits.ts';
import {
  applyEdits,
  originalMainPath,
  originalWorkerPath,
  patchedCopy,
  patchedPdfjs,
} from '../../src/corpus/pdfjs-patches.ts';
import { makeRupeeFontPdf, makeTextPdf } from '../helpers/make-pdf.ts';
import { inChild, ROOT } from '../helpers/pdfjs-child.ts';

/** The pinned pdfjs-dist's two modules with their edits, and each file's name as errors give it. */
const MODULES = [
  { what: 'pdf.mjs', original: originalMainPath(), edits: MAIN_EDITS },
  { what: 'pdf.worker.mjs', original: originalWorkerPath(), edits: WORKER_EDITS },
] as const;

/** The helper of the API edit, taken from the patched module and run on its own. */
function copyHelper() {
  const patched = applyEdits(readFileSync(originalMainPath(), 'utf8'), MAIN_EDITS);
  const helper = patched.slice(
    patched.indexOf('const RGE_NOT_PLAIN'),
    patched.indexOf('class LoopbackPort {'),
  );
  return new Function(`${helper}\nreturn { rgeCopyPlain, RGE_NOT_PLAIN };`)() as {
    rgeCopyPlain: (v: unknown) => unknown;
    RGE_NOT_PLAIN: symbol;
  };
}

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rge-pdfjs-patches-'));
  await writeFile(join(dir, 'rupee.pdf'), makeRupeeFontPdf());
  await writeFile(join(dir, 'prose.pdf'), await makeTextPdf(['Alpha page one.', '', 'Revenue of 1,234.']));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the edits to the pinned pdfjs-dist', () => {
  it('applies each edit where its text is found once, and names an edit whose text is missing or repeated', () => {
    const edits = [
      { name: 'first', find: 'alpha', replace: 'ALPHA' },
      { name: 'second', find: 'beta()', replace: 'beta(x)' },
    ];
    expect(applyEdits('alpha; beta(); gamma', edits)).toBe('ALPHA; beta(x); gamma');
    expect(() => applyEdits('alpha; gamma', edits, 'w.mjs')).toThrow(
      'w.mjs: the patch "second" does not find its text',
    );
    expect(() => applyEdits('alpha; beta(); beta()', edits, 'w.mjs')).toThrow(
      'w.mjs: the patch "second" finds its text more than once',
    );
  });

  it('every edit finds its text exactly once in the pinned pdfjs-dist, and the copies are cached by hash', async () => {
    // the pdfjs-dist installed is the one package.json pins (what npm ci installs)
    const pinned = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).dependencies['pdfjs-dist'];
    const installed = JSON.parse(
      readFileSync(join(originalMainPath(), '../../package.json'), 'utf8'),
    ).version;
    expect(installed).toBe(pinned);
    for (const { original, edits } of MODULES) {
      const patched = applyEdits(readFileSync(original, 'utf8'), edits);
      for (const edit of edits) expect(patched.includes(edit.find)).toBe(false);
    }
    const paths = await patchedPdfjs();
    expect(readFileSync(paths.worker, 'utf8')).toBe(
      applyEdits(readFileSync(originalWorkerPath(), 'utf8'), WORKER_EDITS),
    );
    expect(readFileSync(paths.main, 'utf8')).toBe(
      applyEdits(readFileSync(originalMainPath(), 'utf8'), MAIN_EDITS),
    );
    expect(await patchedPdfjs()).toEqual(paths);
    // another edit list, another file
    const fewer = await patchedCopy(originalWorkerPath(), WORKER_EDITS.slice(0, 2), 'pdfjs-worker');
    expect(fewer).not.toBe(paths.worker);
  });

  it('names the edit when its anchor in the pinned pdfjs-dist is changed, for each of the edits', () => {
    for (const { what, original, edits } of MODULES) {
      const source = readFileSync(original, 'utf8');
      for (const edit of edits) {
        // one character of its text changed, as a pdfjs-dist upgrade would change it
        const at = source.indexOf(edit.find);
        const mid = Math.floor(edit.find.length / 2);
        const changed = `${edit.find.slice(0, mid)}${edit.find[mid] === '#' ? '@' : '#'}${edit.find.slice(mid + 1)}`;
        const moved = source.slice(0, at) + changed + source.slice(at + edit.find.length);
        expect(() => applyEdits(moved, edits, what)).toThrow(
          `${what}: the patch "${edit.name}" does not find its text`,
        );
      }
    }
  });
});

describe("the fallback to pdfjs-dist's own files", () => {
  it("runs pdfjs-dist's own files when an edit does not apply, and says so once on stderr, naming the edit", async () => {
    // a pdfjs-dist whose worker module has one edit's anchor changed, in the main thread and the corpus threads
    const edit = WORKER_EDITS.find((e) => e.name.startsWith('a text style names its font')) as SourceEdit;
    const other = join(await mkdtemp(join(dir, 'other-')), 'pdf.worker.mjs');
    const source = readFileSync(originalWorkerPath(), 'utf8');
    await writeFile(other, source.replace(edit.find, edit.find.replace('font.', 'this.font.')));
    const body = (threads: boolean) => `
      const { extractMany } = await import('./src/corpus/workers.ts');
      const { extractPdf } = await import('./src/corpus/pdf.ts');
      const { workerPatched } = await import('./src/corpus/pdfjs.ts');
      const many = ${threads} ? await extractMany(files, { concurrency: 2, rangePages: 1 }) : [];
      const one = await extractPdf(files[0]);
      console.log(JSON.stringify({ patched: workerPatched(), one: one.pages[0].text, many: many.map((r) => r.result.pages.length) }));`;
    const files = [join(dir, 'rupee.pdf'), join(dir, 'prose.pdf')];
    const opts = { env: { RGE_TEST_PDFJS_WORKER: other }, preload: './test/helpers/pdfjs-other-worker.mjs' };
    const [threads, mainOnly] = await Promise.all([
      inChild('patched', files, body(true), opts),
      inChild('patched', files, body(false), opts),
    ]);
    const said = `rge: pdf.js runs pdfjs-dist's own files, not rge's patched copies (the same text, slower; RGE_PDFJS_PATCHES=0 chooses them without this message): pdf.worker.mjs: the patch "${edit.name}" does not find its text\n`;
    // two corpus threads (4 page ranges), then the main thread, fell back: said once; the main thread alone: once
    expect(threads.stderr).toBe(said);
    expect(mainOnly.stderr).toBe(said);
    const [t, m] = [threads, mainOnly].map((c) => JSON.parse(c.stdout));
    expect(t.many).toEqual([1, 3]);
    // the same text, the rupee glyph repaired from the operator list as without the patches
    for (const c of [t, m]) {
      expect(c.patched).toBe(false);
      expect(c.one).toMatch(/₹\s?41,599\.84 lakhs/);
    }
  });
});

describe("the API edit's copy of plain messages", () => {
  it('copies a plain message as a structured clone would', () => {
    const { rgeCopyPlain, RGE_NOT_PLAIN } = copyHelper();
    const bare = Object.assign(Object.create(null) as object, { k: 1 });
    const plain: unknown[] = [
      { sourceName: 'api', targetName: 'worker', action: 'GetPage', callbackId: 7, data: { pageIndex: 4 } },
      {
        callbackId: 7,
        isReply: true,
        data: { rotate: 0, ref: { num: 3, gen: 0 }, userUnit: 1, view: [0, 0, 612, 792] },
      },
      {
        stream: 3,
        streamId: 1,
        desiredSize: 1e9,
        nested: [[1, [2, [3]]], { a: null, b: undefined, c: -0, d: Number.NaN }],
      },
      { big: 10n, s: 'ü', t: true, f: false, empty: [], none: {} },
      bare,
      [],
      'a string',
      42,
      null,
    ];
    for (const value of plain) {
      const copy = rgeCopyPlain(value);
      expect(copy).not.toBe(RGE_NOT_PLAIN);
      expect(copy).toStrictEqual(structuredClone(value));
      if (typeof value === 'object' && value !== null) {
        expect(copy).not.toBe(value);
        // a null-prototype object comes out an ordinary one, as from structuredClone
        expect(Object.getPrototypeOf(copy)).toBe(Object.getPrototypeOf(structuredClone(value)));
      }
    }
    // deep: changing the sent message afterwards does not reach the copy
    const sent = { data: { view: [0, 0, 612, 792] } };
    const copy = rgeCopyPlain(sent) as typeof sent;
    sent.data.view[2] = 1;
    expect(copy.data.view).toEqual([0, 0, 612, 792]);
  });

  it('leaves anything else to structuredClone', () => {
    const { rgeCopyPlain, RGE_NOT_PLAIN } = copyHelper();
    const shared = { x: 1 };
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    // [1, <hole>, 3]
    const holey: number[] = [];
    holey[0] = 1;
    holey[2] = 3;
    const withProp = Object.assign([1, 2], { extra: true });
    // as many keys as its length: a hole and one property
    const holeAndProp = Object.assign(holey.slice(), { x: 5 });
    expect([1 in holeAndProp, Object.keys(holeAndProp).length]).toEqual([false, 3]);
    class Info {
      a = 1;
    }
    const notPlain: unknown[] = [
      { fn: () => 1 },
      { sym: Symbol('s') },
      { bytes: new Uint8Array(4) },
      { map: new Map() },
      { date: new Date(0) },
      { error: new Error('boom') },
      { info: new Info() },
      { a: shared, b: shared },
      cycle,
      holey,
      withProp,
      holeAndProp,
      Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i])),
      JSON.parse('{"__proto__": {"polluted": true}}'),
    ];
    for (const value of notPlain) expect(rgeCopyPlain(value)).toBe(RGE_NOT_PLAIN);
  });
});
