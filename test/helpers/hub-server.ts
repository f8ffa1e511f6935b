import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type LoopbackServer, startLoopbackServer } from './http-server.ts';

/**
 * A loopback stand-in for the Hugging Face hub: serves a model's files at
 * `/{model}/resolve/{revision}/{file}` the way huggingface.co does for transformers.js: content-type,
 * content-length, etag, `x-repo-commit` (the commit the revision resolved to) and byte ranges
 * (transformers.js reads a file's size with `Range: bytes=0-0` before downloading it). Anything else
 * is a 404, as on the hub.
 */
export interface HubServer {
  /** the value for `remoteHost` / HF_ENDPOINT, with a trailing slash */
  host: string;
  /** every request the server saw, in order */
  requests: LoopbackServer['requests'];
  /** the URL of one file of the served revision */
  url(file: string): string;
  /** from now on, answer requests for `file` with this status (and no body) */
  failWith(file: string, status: number): void;
  /** from now on, answer requests for `file` with `handler` (`serve` answers as the hub would) */
  route(file: string, handler: (req: IncomingMessage, res: ServerResponse, serve: () => void) => void): void;
  close(): Promise<void>;
}

export const HUB_COMMIT = '0123456789abcdef0123456789abcdef01234567';

export async function startHubServer(opts: {
  model: string;
  revision?: string;
  files: ReadonlyMap<string, Buffer>;
  commit?: string;
}): Promise<HubServer> {
  const server = await startLoopbackServer();
  const revision = opts.revision ?? 'main';
  const commit = opts.commit ?? HUB_COMMIT;
  const pathOf = (file: string) => `/${opts.model}/resolve/${encodeURIComponent(revision)}/${file}`;
  for (const [file, body] of opts.files) server.route(pathOf(file), serveHubFile(file, body, commit));
  return {
    host: server.url('/'),
    requests: server.requests,
    url: (file) => server.url(pathOf(file)),
    failWith(file, status) {
      server.route(pathOf(file), (_req, res) => {
        res.writeHead(status, { 'x-error-code': status === 404 ? 'EntryNotFound' : 'ServerError' }).end();
      });
    },
    route(file, handler) {
      const body = opts.files.get(file) ?? Buffer.alloc(0);
      const hub = serveHubFile(file, body, commit);
      server.route(pathOf(file), (req, res) => handler(req, res, () => hub(req, res)));
    },
    close: () => server.close(),
  };
}

function serveHubFile(file: string, body: Buffer, commit: string) {
  const headers = {
    'content-type': file.endsWith('.json') ? 'application/json; charset=utf-8' : 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('hex')}"`,
    'x-repo-commit': commit,
    'accept-ranges': 'bytes',
  };
  return (req: IncomingMessage, res: ServerResponse) => {
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      const end = Math.min(range[2] ? Number(range[2]) : body.length - 1, body.length - 1);
      if (start > end) {
        res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
        return;
      }
      res.writeHead(206, {
        ...headers,
        'content-length': end - start + 1,
        'content-range': `bytes ${start}-${end}/${body.length}`,
      });
      res.end(body.subarray(start, end + 1));
      return;
    }
    res.writeHead(200, { ...headers, 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
}
