import { createHash } from 'node:crypto';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { ChecksumStream } from '../../src/retrieval/manifest.ts';

type Piece = { text: string } | { u32: number } | { f32: number };

/** The bytes the checksum is defined over, one Buffer per value (what the stream must agree with). */
function concatenated(pieces: readonly Piece[]): string {
  const parts = pieces.map((p) => {
    if ('text' in p) return Buffer.from(p.text, 'utf8');
    const b = Buffer.alloc(4);
    if ('u32' in p) b.writeUInt32LE(p.u32, 0);
    else b.writeFloatLE(p.f32, 0);
    return b;
  });
  return createHash('sha256').update(Buffer.concat(parts)).digest('hex');
}

function streamed(pieces: readonly Piece[]): string {
  const h = new ChecksumStream();
  for (const p of pieces) {
    if ('text' in p) h.text(p.text);
    else if ('u32' in p) h.u32(p.u32);
    else h.f32(p.f32);
  }
  return h.digest();
}

describe('ChecksumStream: the index checksum hashed through one buffer', () => {
  it('gives the digest of the concatenated bytes for every kind of piece, across many buffer flushes', () => {
    const rng = seedrandom('checksum-stream');
    const words = ['acme-FY24-0a1b2c3d', '₹', 'crore', 'revenue', '😀', 'Ω', '\0', ''];
    const pieces: Piece[] = [];
    for (let i = 0; i < 60_000; i++) {
      const r = rng();
      if (r < 0.3) pieces.push({ text: words[Math.floor(rng() * words.length)] as string });
      else if (r < 0.65) pieces.push({ u32: Math.floor(rng() * 2 ** 32) });
      else pieces.push({ f32: (rng() - 0.5) * 1e6 });
    }
    // texts longer than the buffer (hashed past it) and ones that fill it to its last byte
    pieces.splice(100, 0, { text: '₹'.repeat(40_000) }, { text: 'x'.repeat(70_000) });
    pieces.splice(5_000, 0, { text: 'y'.repeat(65_530) }, { u32: 7 });
    expect(streamed(pieces)).toBe(concatenated(pieces));
    expect(streamed([])).toBe(concatenated([]));
  });

  it('changes when one value changes', () => {
    const base: Piece[] = [{ text: 'acme\0' }, { u32: 3 }, { f32: 0.25 }];
    const digest = streamed(base);
    expect(streamed([{ text: 'acme\0' }, { u32: 4 }, { f32: 0.25 }])).not.toBe(digest);
    expect(streamed([{ text: 'acme\0' }, { u32: 3 }, { f32: 0.5 }])).not.toBe(digest);
    expect(streamed([{ text: 'acmf\0' }, { u32: 3 }, { f32: 0.25 }])).not.toBe(digest);
  });
});
