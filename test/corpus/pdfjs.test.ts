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
