import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { transferToFixedLength, withResolvers } from '../../src/corpus/pdfjs.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

describe('pdf.js modern build on Node 20', () => {
  it('loads with no warning printed, gives the console back, and still prints other warnings', async () => {
    const script = `
      const warn = console.warn;
      const { pdfjs } = await import('./src/corpus/pdfjs.ts');
      console.log(JSON.stringify({
        restored: console.warn === warn,
        getDocument: typeof pdfjs.getDocument,
        version: pdfjs.version,
        withResolvers: typeof Promise.withResolvers,
        transfer: typeof ArrayBuffer.prototype.transferToFixedLength,
        domMatrix: typeof DOMMatrix,
      }));
      console.warn('Warning: another message');`;
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: ROOT,
      },
    );
    expect(JSON.parse(stdout)).toEqual({
      restored: true,
      getDocument: 'function',
      version: '5.4.296',
      withResolvers: 'function',
      transfer: 'function',
      domMatrix: 'function',
    });
    expect(stderr).toBe('Warning: another message\n');
  });

  it('reads text without loading @napi-rs/canvas (patched copies), loads it on the first drawing global, and at import with pdfjs-dist own files', async () => {
    const script = `
      const { createRequire } = await import('node:module');
      const canvasLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('@napi-rs/canvas'));
      const { extractPdf } = await import('./src/corpus/pdf.ts');
      const { makeTextPdf } = await import('./test/helpers/make-pdf.ts');
      const { writeFile, mkdtemp } = await import('node:fs/promises');
      const { join } = await import('node:path');
      const { tmpdir } = await import('node:os');
      const file = join(await mkdtemp(join(tmpdir(), 'rge-canvas-')), 'a.pdf');
      await writeFile(file, await makeTextPdf(['Revenue grew 12% to 1,234 crore.']));
      const doc = await extractPdf(file);
      const afterText = canvasLoaded();
      const m = new DOMMatrix([2, 0, 0, 3, 4, 5]);
      console.log(JSON.stringify({
        text: doc.pages[0].text.includes('Revenue grew 12%'),
        afterText,
        afterDrawing: canvasLoaded(),
        matrix: [m.a, m.d, m.e, m.f],
        path: new Path2D() instanceof Path2D,
        imageData: new ImageData(2, 2).data.length,
      }));`;
    const child = async (patches: string | undefined) => {
      const env = { ...process.env };
      if (patches === undefined) delete env.RGE_PDFJS_PATCHES;
      else env.RGE_PDFJS_PATCHES = patches;
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', script],
        {
          cwd: ROOT,
          env,
        },
      );
      return JSON.parse(stdout);
    };
    const drawing = { text: true, afterDrawing: true, matrix: [2, 3, 4, 5], path: true, imageData: 16 };
    expect(await child(undefined)).toEqual({ ...drawing, afterText: false });
    expect(await child('0')).toEqual({ ...drawing, afterText: true });
  });

  it('transferToFixedLength: the bytes in a new buffer, cut or zero-filled, the old one detached', () => {
    const make = () => new Uint8Array([1, 2, 3, 4, 5]).buffer;
    const same = make();
    const moved = transferToFixedLength.call(same);
    expect([...new Uint8Array(moved)]).toEqual([1, 2, 3, 4, 5]);
    expect(same.byteLength).toBe(0);
    expect([...new Uint8Array(transferToFixedLength.call(make(), 3))]).toEqual([1, 2, 3]);
    expect([...new Uint8Array(transferToFixedLength.call(make(), 7))]).toEqual([1, 2, 3, 4, 5, 0, 0]);
    expect(() => transferToFixedLength.call(make(), -1)).toThrow(RangeError);
  });

  it('withResolvers: a promise settled from outside', async () => {
    const ok = withResolvers.call<
      PromiseConstructor,
      [],
      { promise: Promise<number>; resolve: (v: number) => void }
    >(Promise);
    ok.resolve(7);
    expect(await ok.promise).toBe(7);
    const bad = withResolvers.call(Promise);
    bad.reject(new Error('no'));
    await expect(bad.promise).rejects.toThrow('no');
  });
});
