/**
 * pdf.js's own worker code and rge's patched copies side by side, each in a fresh Node process
 * (test/helpers/pdfjs-child.ts): every text item of a set of PDFs, and where the two first differ.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundledModule } from '../../src/util/bundle.ts';
import { inChild, ROOT } from '../helpers/pdfjs-child.ts';

/**
 * Every text item and text style of every page of each PDF, as JSON, from pdf.js's original worker code
 * or rge's, then for each of `drawn` the sha256 of its first page drawn on a canvas and its count of
 * dark pixels; with `coverage`, V8's coverage of the process is written into that folder. The child
 * runs pdfjs.ts bundled, as a corpus thread does, without tsx, which would transform pdf.js's modules
 * (and so V8 would count offsets in its output, not in the patched files).
 */
export async function readAll(
  which: 'original' | 'patched',
  files: readonly string[],
  drawn: readonly string[] = [],
  coverage?: string,
): Promise<string> {
  const bundle = await bundledModule(join(ROOT, 'src/corpus/pdfjs.ts'));
  if (!bundle) throw new Error('src/corpus/pdfjs.ts could not be bundled');
  const body = `
    const { readFileSync } = await import('node:fs');
    const { createHash } = await import('node:crypto');
    const { pdfjs } = await import(${JSON.stringify(pathToFileURL(bundle).href)});
    const open = (file) => pdfjs.getDocument({ data: new Uint8Array(readFileSync(file)), verbosity: 0 }).promise;
    const out = [String(Object.keys(globalThis.pdfjsWorker ?? {}))];
    for (const file of files) {
      const doc = await open(file);
      for (let n = 1; n <= doc.numPages; n++) {
        const page = await doc.getPage(n);
        const content = await page.getTextContent();
        // the styles too, less the font name rge's patch adds, in the order pdf.js gave them
        const styles = Object.entries(content.styles).map(([id, { rgeFontName, ...style }]) => [id, style]);
        out.push(JSON.stringify([file, n, content.items, styles]));
        page.cleanup();
      }
      await doc.destroy();
    }
    for (const file of ${JSON.stringify(drawn)}) {
      const doc = await open(file);
      const page = await doc.getPage(1);
      const viewport = page.getViewport({ scale: 1 });
      const { canvas, context } = doc.canvasFactory.create(viewport.width, viewport.height);
      await page.render({ canvas, canvasContext: context, viewport }).promise;
      const pixels = context.getImageData(0, 0, viewport.width, viewport.height).data;
      let dark = 0;
      for (let i = 0; i < pixels.length; i += 4) if (pixels[i] < 128) dark++;
      out.push(JSON.stringify(['drawn', file, createHash('sha256').update(pixels).digest('hex'), dark]));
      await doc.destroy();
    }
    console.log(out.join('\\n'));`;
  const env: Record<string, string> = coverage ? { NODE_V8_COVERAGE: coverage } : {};
  return (await inChild(which, files, body, { env, plain: true })).stdout;
}

/** The first page whose items differ (its line, both versions cut to 400 characters), or null. */
export function firstDifference(original: string, patched: string) {
  const a = original.split('\n');
  const b = patched.split('\n');
  const at = b.findIndex((line, i) => line !== a[i]);
  if (at < 0 && a.length === b.length) return null;
  const i = at < 0 ? b.length : at;
  return { line: i, original: a[i]?.slice(0, 400), patched: b[i]?.slice(0, 400) };
}
