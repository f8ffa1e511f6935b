import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BgeM3Options, createBgeM3Embedder } from '../../src/retrieval/bge-m3.ts';
import { BGE_M3_MODEL, DOWNLOAD_RECORD, defaultTransformersCacheDir } from '../../src/retrieval/hub.ts';
import { buildIndex } from '../../src/retrieval/index.ts';
import { RgeError } from '../../src/util/errors.ts';
import { captureStream } from '../helpers/capture-stream.ts';
import { runRge } from '../helpers/cli.ts';
import { HUB_COMMIT, type HubServer, startHubServer } from '../helpers/hub-server.ts';
import { makeTinyModel, type TinyModel } from '../helpers/tiny-onnx.ts';
import { testChunks } from './chunks.ts';

/**
 * The download path end to end: transformers.js fetches a tiny ONNX feature-extraction model (made by
 * the test, run by onnxruntime-node) from a loopback server laid out like the hub.
 */

let root: string;
let model: TinyModel;
let hub: HubServer;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'rge-bge-dl-'));
  model = makeTinyModel(['revenue', 'profit', 'dividend', 'share', 'rose', 'fell']);
  hub = await startHubServer({ model: BGE_M3_MODEL, files: model.files });
});
afterAll(async () => {
  await hub.close();
  await rm(root, { recursive: true, force: true });
});

/** options that ignore the machine's environment (its caches, RGE_OFFLINE, HF_ENDPOINT) */
function opts(cacheDir: string, extra: Partial<BgeM3Options> = {}): BgeM3Options {
  return { cacheDir, hub: hub.host, env: {}, ...extra };
}

function closeTo(actual: Float32Array, expected: Float32Array): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((x, i) => {
    expect(x).toBeCloseTo(expected[i] as number, 5);
  });
}

/** what a cache folder holds besides the model: nothing, or a half-written model, must be absent */
function cacheEntries(cacheDir: string): string[] {
  return existsSync(cacheDir) ? readdirSync(cacheDir).sort() : [];
}

describe('bge-m3 download on first use', () => {
  const cache = () => join(root, 'cache');

  it('announces the size, downloads into the cache, records the commit, and the model runs', async () => {
    const progress = captureStream();
    const before = hub.requests.length;
    const embedder = await createBgeM3Embedder(opts(cache(), { progress }));

    const total = [...model.files.values()].reduce((a, b) => a + b.length, 0);
    const sizeLine =
      /bge-m3: downloading Xenova\/bge-m3 \(revision main, fp32\) from (\S+): (\d+) files, ([\d.]+) kB, into (\S+)\n/.exec(
        progress.text,
      );
    expect(sizeLine, progress.text).not.toBeNull();
    expect(sizeLine?.[1]).toBe(hub.host);
    expect(Number(sizeLine?.[2])).toBe(4);
    expect(Math.abs(Number(sizeLine?.[3]) * 1000 - total)).toBeLessThan(100);
    expect(sizeLine?.[4]).toBe(join(cache(), BGE_M3_MODEL));
    // the size line comes before the download: the file bodies are fetched after it is written
    expect(progress.text).toContain(`downloaded `);
    expect(progress.text).toContain(`(commit ${HUB_COMMIT})`);

    const dir = join(cache(), BGE_M3_MODEL);
    for (const [file, body] of model.files) expect(readFileSync(join(dir, file)).equals(body)).toBe(true);
    const record = JSON.parse(readFileSync(join(dir, DOWNLOAD_RECORD), 'utf8'));
    expect(record).toMatchObject({
      model: BGE_M3_MODEL,
      revision: 'main',
      commit: HUB_COMMIT,
      dtype: 'fp32',
    });
    expect(cacheEntries(cache())).toEqual(['Xenova']);

    expect(embedder.revision).toBe(HUB_COMMIT);
    expect(embedder.modelDir).toBe(dir);
    expect(embedder.dimensions).toBe(model.hidden);
    closeTo(await embedder.embedQuery('Profit rose'), model.expectedVector('profit'));
    const [a, b] = await embedder.embedPassages(['dividend per share', 'revenue fell']);
    closeTo(a as Float32Array, model.expectedVector('dividend'));
    closeTo(b as Float32Array, model.expectedVector('revenue'));

    const paths = hub.requests.slice(before).map((r) => r.path);
    for (const file of model.files.keys()) expect(paths).toContain(`/${BGE_M3_MODEL}/resolve/main/${file}`);
    expect(paths.every((p) => p.startsWith(`/${BGE_M3_MODEL}/resolve/main/`))).toBe(true);
  });

  it('loads from the cache the second time without a request or a size line', async () => {
    const progress = captureStream();
    const before = hub.requests.length;
    const embedder = await createBgeM3Embedder(opts(cache(), { progress }));
    closeTo(await embedder.embedQuery('share'), model.expectedVector('share'));
    expect(hub.requests.length).toBe(before);
    expect(progress.text).toBe('');
    expect(embedder.revision).toBe(HUB_COMMIT);
  });
});

describe('no download', () => {
  it.each([
    ['RGE_OFFLINE=1 (--offline)', 'rge-offline', { env: { RGE_OFFLINE: '1' } }],
    ['HF_HUB_OFFLINE=1', 'hf-offline', { env: { HF_HUB_OFFLINE: '1' } }],
    ['allowDownload: false (corpus.allow_download)', 'allow-false', { allowDownload: false }],
  ] as [string, string, Partial<BgeM3Options>][])(
    '%s: no request, and the error says where rge looked',
    async (_name, folder, extra) => {
      const empty = join(root, folder);
      const before = hub.requests.length;
      const err = await createBgeM3Embedder(opts(empty, extra)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RgeError);
      const message = (err as RgeError).message;
      expect(message).toContain(join(empty, BGE_M3_MODEL));
      expect(message).toContain('Downloads are off');
      expect(message).toContain('RGE_BGE_M3_DIR');
      expect((err as RgeError).exitCode).toBe(1);
      expect(hub.requests.length).toBe(before);
      expect(cacheEntries(empty)).toEqual([]);
    },
  );

  it('does not download when an explicit folder is incomplete', async () => {
    const before = hub.requests.length;
    const err = await createBgeM3Embedder(
      opts(join(root, 'unused'), { modelDir: join(root, 'nowhere') }),
    ).catch((e: unknown) => e);
    expect((err as Error).message).toContain(join(root, 'nowhere'));
    expect(hub.requests.length).toBe(before);
  });
});

describe('download failures', () => {
  async function failingHub(): Promise<HubServer> {
    return startHubServer({ model: BGE_M3_MODEL, files: model.files });
  }

  it('a missing file (404) names its URL and the model, and leaves nothing in the cache', async () => {
    const h = await failingHub();
    try {
      h.failWith('onnx/model.onnx', 404);
      const cacheDir = join(root, 'cache-404');
      const err = await createBgeM3Embedder({
        cacheDir,
        hub: h.host,
        env: {},
        progress: captureStream(),
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RgeError);
      const message = (err as Error).message;
      expect(message).toContain(h.url('onnx/model.onnx'));
      expect(message).toContain('Xenova/bge-m3');
      expect(message).toContain('404');
      expect(cacheEntries(cacheDir)).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('a server error names the URL, and leaves nothing in the cache', async () => {
    const h = await failingHub();
    try {
      h.failWith('tokenizer.json', 503);
      const cacheDir = join(root, 'cache-503');
      const err = await createBgeM3Embedder({
        cacheDir,
        hub: h.host,
        env: {},
        progress: captureStream(),
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RgeError);
      const message = (err as Error).message;
      expect(message).toContain(h.url('tokenizer.json'));
      expect(message).toContain('Xenova/bge-m3');
      expect(message).toMatch(/503|Service unavailable/);
      expect(cacheEntries(cacheDir)).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('an interrupted download leaves nothing that looks cached, and the next run completes it', async () => {
    const h = await failingHub();
    try {
      const weights = model.files.get('onnx/model.onnx') as Buffer;
      h.route('onnx/model.onnx', (req, res, serve) => {
        if (req.headers.range) return serve(); // the size probe succeeds
        res.writeHead(200, { 'content-length': weights.length, 'content-type': 'application/octet-stream' });
        res.write(weights.subarray(0, Math.floor(weights.length / 2)), () => res.socket?.destroy());
      });
      const cacheDir = join(root, 'cache-cut');
      const progress = captureStream();
      const err = await createBgeM3Embedder({ cacheDir, hub: h.host, env: {}, progress }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(RgeError);
      expect((err as Error).message).toContain('could not download Xenova/bge-m3');
      expect(progress.text).toContain('bge-m3: downloading Xenova/bge-m3');
      expect(cacheEntries(cacheDir)).toEqual([]);

      h.route('onnx/model.onnx', (_req, _res, serve) => serve());
      const embedder = await createBgeM3Embedder({ cacheDir, hub: h.host, env: {}, progress });
      closeTo(await embedder.embedQuery('fell'), model.expectedVector('fell'));
      expect(cacheEntries(cacheDir)).toEqual(['Xenova']);
    } finally {
      await h.close();
    }
  });

  it('an unreachable hub names the address and what to do', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((r) => closed.close(() => r()));
    const cacheDir = join(root, 'cache-refused');
    const err = await createBgeM3Embedder({
      cacheDir,
      hub: `http://127.0.0.1:${port}/`,
      env: {},
      progress: captureStream(),
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RgeError);
    const message = (err as Error).message;
    expect(message).toContain(`http://127.0.0.1:${port}/`);
    expect(message).toContain('ECONNREFUSED');
    expect(message).toContain('--offline');
    expect(cacheEntries(cacheDir)).toEqual([]);
  });
});

// The CLI looks in the transformers.js cache of node_modules first; a machine that has the real model
// there would load it instead of downloading, so the CLI cases run only where it is absent.
const realModelInstalled = existsSync(join(defaultTransformersCacheDir() ?? '/nonexistent', BGE_M3_MODEL));

describe.skipIf(realModelInstalled)('rge retrieve on a bge-m3 index', () => {
  const saved = { ...process.env };
  let index: string;
  let cacheDir: string;

  beforeAll(async () => {
    // an index built with the tiny model from a local folder (the same files the hub serves)
    const local = join(root, 'cli-local', BGE_M3_MODEL);
    for (const [file, body] of model.files) {
      await mkdir(dirname(join(local, file)), { recursive: true });
      await writeFile(join(local, file), body);
    }
    index = join(root, 'cli-index');
    const embedder = await createBgeM3Embedder({ modelDir: local, env: {} });
    await buildIndex(testChunks(), { dir: index, embedder, cacheDir: join(root, 'cli-embeddings') });
    cacheDir = join(root, 'cli-cache');
    for (const key of ['RGE_BGE_M3_DIR', 'HF_HOME', 'RGE_OFFLINE', 'HF_HUB_OFFLINE']) delete process.env[key];
    process.env.TRANSFORMERS_CACHE = cacheDir;
    process.env.HF_ENDPOINT = hub.host;
  });
  afterAll(() => {
    for (const key of ['TRANSFORMERS_CACHE', 'HF_ENDPOINT']) delete process.env[key];
    Object.assign(process.env, saved);
  });

  it('--offline makes no request and exits 1 naming where it looked; the flag does not outlive the command', async () => {
    const before = hub.requests.length;
    const { code, err } = await runRge(root, 'retrieve', 'Net profit', '--index', index, '--offline');
    expect(code).toBe(1);
    expect(err).toContain(join(cacheDir, BGE_M3_MODEL));
    expect(err).toContain('Downloads are off');
    expect(hub.requests.length).toBe(before);
    expect(process.env.RGE_OFFLINE).toBeUndefined();
    expect(cacheEntries(cacheDir)).toEqual([]);
  });

  it('without --offline downloads the model into TRANSFORMERS_CACHE from HF_ENDPOINT and retrieves', async () => {
    const before = hub.requests.length;
    const { code, out, err } = await runRge(root, 'retrieve', 'Net profit', '--index', index, '--json');
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toHaveLength(5);
    expect(hub.requests.length).toBeGreaterThan(before);
    expect(existsSync(join(cacheDir, BGE_M3_MODEL, DOWNLOAD_RECORD))).toBe(true);
  });
});
