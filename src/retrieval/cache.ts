import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { sha256, writeFileAtomic } from '../util/fs.ts';

/**
 * On-disk cache of dense passage vectors, keyed by (embedder id, chunk id): one small binary file per
 * chunk under `<root>/<sha256(embedder id) prefix>/<chunk id>.f32`. The file also carries the sha256 of
 * the text that was embedded, so a chunk whose text changed under the same id is embedded again
 * rather than served a stale vector.
 *
 * File layout (little-endian): "RGEV" | u32 format version (1) | u32 dimensions | 32 bytes sha256 of
 * the text | dimensions x f32.
 */
export const DEFAULT_EMBEDDING_CACHE_DIR = '.cache/rge/embeddings';

const MAGIC = 0x56454752; // "RGEV" read as a little-endian u32
const FORMAT = 1;
const HEADER = 4 + 4 + 4 + 32;

export class EmbeddingCache {
  readonly dir: string;

  constructor(
    root: string,
    readonly embedderId: string,
  ) {
    this.dir = join(resolve(root), sha256(embedderId).slice(0, 16));
  }

  private path(chunkId: string): string {
    return join(this.dir, `${chunkId}.f32`);
  }

  /** The cached vector, or null when absent, unreadable or embedded from different text. */
  async get(chunkId: string, text: string): Promise<Float32Array | null> {
    let buf: Buffer;
    try {
      buf = await readFile(this.path(chunkId));
    } catch {
      return null;
    }
    if (buf.length < HEADER || buf.readUInt32LE(0) !== MAGIC || buf.readUInt32LE(4) !== FORMAT) return null;
    const dims = buf.readUInt32LE(8);
    if (buf.length !== HEADER + dims * 4) return null;
    if (!buf.subarray(12, 44).equals(Buffer.from(sha256(text), 'hex'))) return null;
    const out = new Float32Array(dims);
    for (let i = 0; i < dims; i++) out[i] = buf.readFloatLE(HEADER + i * 4);
    return out;
  }

  async set(chunkId: string, text: string, vector: Float32Array): Promise<void> {
    const buf = Buffer.alloc(HEADER + vector.length * 4);
    buf.writeUInt32LE(MAGIC, 0);
    buf.writeUInt32LE(FORMAT, 4);
    buf.writeUInt32LE(vector.length, 8);
    Buffer.from(sha256(text), 'hex').copy(buf, 12);
    for (let i = 0; i < vector.length; i++) buf.writeFloatLE(vector[i] as number, HEADER + i * 4);
    await writeFileAtomic(this.path(chunkId), buf);
  }

  /** Writes a human-readable note of which embedder a folder belongs to (once). */
  async describe(): Promise<void> {
    await writeFileAtomic(
      join(this.dir, 'embedder.json'),
      `${JSON.stringify({ embedderId: this.embedderId })}\n`,
    );
  }
}
