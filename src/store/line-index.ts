/**
 * Where each key's line is, for a store of a hundred thousand keys and more, in typed arrays instead of a
 * `Map<string, LineAt>`: a Map costs a key string, a `{ offset, bytes }` object and a table slot per key
 * (about 160 bytes, all on the V8 heap the collector walks); this keeps the key's bytes (a 64-digit hex
 * key, the hash every cell key is, packed to its 32 bytes), the line's offset and length, and one slot
 * of an open-addressing table: about 60 bytes, outside the heap (issue 41). Lookups compare the key's
 * bytes, so an answer is exact, never a hash match.
 */
import type { LineAt } from './jsonl.ts';

const HEX64 = /^[0-9a-f]{64}$/;
const encoder = new TextEncoder();
/** the first byte of a stored key: how the rest is written */
const PACKED_HEX = 1;
const UTF8 = 2;

/** A Uint8Array, Uint32Array or Float64Array grown by half again when full (amortised appends). */
function grown<T extends Uint8Array | Uint32Array | Float64Array>(
  array: T,
  needed: number,
  make: (n: number) => T,
): T {
  if (needed <= array.length) return array;
  const next = make(Math.max(needed, Math.ceil(array.length * 1.5), 16));
  next.set(array);
  return next;
}

/** The value of a lowercase hex digit's char code (the key matched HEX64). */
const hexDigit = (code: number): number => (code <= 57 ? code - 48 : code - 87);

/** FNV-1a over bytes, 32 bits. */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ (bytes[i] as number), 0x01000193);
  return h >>> 0;
}

/**
 * An insertion-ordered map from string keys to line locations (`LineAt`); the first location of a key
 * stays (`add` of a key already there changes nothing), as the stores want.
 */
export class LineIndex {
  private keyBytes = new Uint8Array(0);
  /** where entry i's key starts in keyBytes; entry i's key ends where entry i + 1's starts */
  private keyStart = new Uint32Array(1);
  private offsets = new Float64Array(0);
  private lengths = new Uint32Array(0);
  /** open addressing: entry index + 1, 0 for an empty slot; a power of two at most half full */
  private table = new Uint32Array(16);
  private count = 0;
  private scratch = new Uint8Array(128);

  get size(): number {
    return this.count;
  }

  has(key: string): boolean {
    return this.find(key) >= 0;
  }

  get(key: string): LineAt | undefined {
    const i = this.find(key);
    return i < 0 ? undefined : this.at(i);
  }

  /** Adds a key's location unless the key is there; returns whether it was added. */
  add(key: string, at: LineAt): boolean {
    const n = this.encode(key);
    const hash = hashBytes(this.scratch, 0, n);
    if (this.probe(hash, n) >= 0) return false;
    this.append(hash, n, at);
    return true;
  }

  /** Sets a key's location: a key already there keeps its place in the order, with the new location. */
  set(key: string, at: LineAt): void {
    const n = this.encode(key);
    const hash = hashBytes(this.scratch, 0, n);
    const i = this.probe(hash, n);
    if (i < 0) {
      this.append(hash, n, at);
      return;
    }
    this.offsets[i] = at.offset;
    this.lengths[i] = at.bytes;
  }

  /** Appends the key in scratch (`n` bytes, not there yet) with its location. */
  private append(hash: number, n: number, at: LineAt): void {
    const i = this.count;
    const start = this.keyStart[i] as number;
    this.keyBytes = grown(this.keyBytes, start + n, (size) => new Uint8Array(size));
    this.keyBytes.set(this.scratch.subarray(0, n), start);
    this.keyStart = grown(this.keyStart, i + 2, (size) => new Uint32Array(size));
    this.keyStart[i + 1] = start + n;
    this.offsets = grown(this.offsets, i + 1, (size) => new Float64Array(size));
    this.lengths = grown(this.lengths, i + 1, (size) => new Uint32Array(size));
    this.offsets[i] = at.offset;
    this.lengths[i] = at.bytes;
    this.count++;
    if (this.count * 2 > this.table.length) this.rehash(this.table.length * 2);
    else this.place(hash, i);
  }

  /** Every location, in the order the keys were added. */
  *values(): IterableIterator<LineAt> {
    for (let i = 0; i < this.count; i++) yield this.at(i);
  }

  private at(i: number): LineAt {
    return { offset: this.offsets[i] as number, bytes: this.lengths[i] as number };
  }

  /** The entry of a key, or -1. */
  private find(key: string): number {
    const n = this.encode(key);
    return this.probe(hashBytes(this.scratch, 0, n), n);
  }

  /** The entry whose key is the `n` bytes in scratch, or -1. */
  private probe(hash: number, n: number): number {
    const mask = this.table.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.table[slot] as number;
      if (entry === 0) return -1;
      if (this.keyIs(entry - 1, n)) return entry - 1;
    }
  }

  private keyIs(i: number, n: number): boolean {
    const start = this.keyStart[i] as number;
    if ((this.keyStart[i + 1] as number) - start !== n) return false;
    for (let j = 0; j < n; j++) if (this.keyBytes[start + j] !== this.scratch[j]) return false;
    return true;
  }

  private place(hash: number, i: number): void {
    const mask = this.table.length - 1;
    let slot = hash & mask;
    while (this.table[slot] !== 0) slot = (slot + 1) & mask;
    this.table[slot] = i + 1;
  }

  private rehash(size: number): void {
    this.table = new Uint32Array(size);
    for (let i = 0; i < this.count; i++) {
      const start = this.keyStart[i] as number;
      this.place(hashBytes(this.keyBytes, start, this.keyStart[i + 1] as number), i);
    }
  }

  /** Writes a key's stored form into scratch; returns its length. */
  private encode(key: string): number {
    if (HEX64.test(key)) {
      this.scratch[0] = PACKED_HEX;
      for (let j = 0; j < 32; j++)
        this.scratch[j + 1] = (hexDigit(key.charCodeAt(2 * j)) << 4) | hexDigit(key.charCodeAt(2 * j + 1));
      return 33;
    }
    const most = 1 + key.length * 3;
    if (this.scratch.length < most) this.scratch = new Uint8Array(most);
    this.scratch[0] = UTF8;
    return 1 + encoder.encodeInto(key, this.scratch.subarray(1)).written;
  }
}
