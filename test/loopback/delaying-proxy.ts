/**
 * A delaying proxy on 127.0.0.1 in front of a loopback server: it forwards every request to the server
 * as it is, except those a test picks, which it can
 * - `fail`: answer with an error status itself (the request never reaches the server);
 * - `hold`: forward at once, and hold the server's reply for `ms` before relaying it (a client whose
 *   timeout is shorter gives up while the server has already done the work);
 * - `late`: forward only after `ms`, whether or not the client still waits (a request that reaches the
 *   provider after the client gave up on it, and after whatever the client did next);
 * - `reset`: forward at once, and reset the client's connection without a reply once the server has
 *   answered (a connection lost after the request was sent).
 * It is how the moment a batch is created is tried from outside: the client cannot know whether a batch
 * it gave up on exists.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProxyAction =
  | { kind: 'pass' }
  | { kind: 'fail'; status: number }
  | { kind: 'hold'; ms: number }
  | { kind: 'late'; ms: number }
  | { kind: 'reset' };

/** What the proxy saw of a request, and what became of it. */
export interface ProxiedRequest {
  method: string;
  /** path and query string, as received */
  path: string;
  action: ProxyAction['kind'];
  /** the status the server answered (0: not forwarded, or not answered yet) */
  upstreamStatus: number;
  /** the status relayed to the client (0: none: the client had gone, or its connection was reset) */
  relayedStatus: number;
  /** the client closed its connection before the reply was relayed */
  clientGone: boolean;
}

export interface DelayingProxy {
  /** the server's URL with the proxy's origin (its path kept: OpenAI's ends in /v1) */
  url: string;
  requests: ProxiedRequest[];
  /** Resolves once every request the proxy has received has reached its end (relayed, failed, dropped). */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/** Decides a request's fate from its method and path (the path without the query string). */
export type ProxyRule = (request: { method: string; path: string }) => ProxyAction;

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve(Buffer.concat(chunks)));
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Upstream {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Sends the request to the server and reads its whole reply. */
function forward(target: URL, req: IncomingMessage, body: Buffer): Promise<Upstream> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && !HOP_BY_HOP.has(name))
      headers[name] = Array.isArray(value) ? value.join(', ') : value;
  headers['content-length'] = String(body.length);
  return new Promise((resolve, reject) => {
    const out = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const h: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers))
            if (value !== undefined && !HOP_BY_HOP.has(name))
              h[name] = Array.isArray(value) ? value.join(', ') : value;
          resolve({ status: res.statusCode ?? 502, headers: h, body: Buffer.concat(chunks) });
        });
        res.on('error', reject);
      },
    );
    out.on('error', reject);
    out.end(body);
  });
}

function relay(res: ServerResponse, up: Upstream): boolean {
  if (res.destroyed || res.headersSent) return false;
  res.writeHead(up.status, { ...up.headers, 'content-length': String(up.body.length) });
  res.end(up.body);
  return true;
}

/** The error a `fail` answers with: a JSON body every SDK reads a message from. */
function failBody(status: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      error: {
        code: status,
        type: status === 429 ? 'rate_limit_error' : 'api_error',
        status: status === 503 ? 'UNAVAILABLE' : 'INTERNAL',
        message: `The delaying proxy answered ${status} (injected by the test).`,
      },
    }),
  );
}

/** Starts the proxy in front of `targetUrl` (a loopback server's `url`). */
export async function startDelayingProxy(targetUrl: string, rule: ProxyRule): Promise<DelayingProxy> {
  const target = new URL(targetUrl);
  const requests: ProxiedRequest[] = [];
  const pending = new Set<Promise<void>>();
  let closed = false;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = req.url ?? '/';
    const method = req.method ?? 'GET';
    const body = await readBody(req);
    const action = rule({ method, path: path.split('?')[0] ?? path });
    const seen: ProxiedRequest = {
      method,
      path,
      action: action.kind,
      upstreamStatus: 0,
      relayedStatus: 0,
      clientGone: false,
    };
    requests.push(seen);
    res.once('close', () => {
      if (!res.writableFinished) seen.clientGone = true;
    });
    if (action.kind === 'fail') {
      const failed = { status: action.status, headers: { 'content-type': 'application/json' } };
      if (relay(res, { ...failed, body: failBody(action.status) })) seen.relayedStatus = action.status;
      return;
    }
    if (action.kind === 'late') await sleep(action.ms);
    if (closed) return;
    let up: Upstream;
    try {
      up = await forward(target, req, body);
    } catch {
      res.destroy();
      return;
    }
    seen.upstreamStatus = up.status;
    if (action.kind === 'hold') await sleep(action.ms);
    if (action.kind === 'reset') {
      res.destroy();
      return;
    }
    if (relay(res, up)) seen.relayedStatus = up.status;
  };

  const server = createServer((req, res) => {
    const done = handle(req, res).catch(() => {
      res.destroy();
    });
    pending.add(done);
    void done.finally(() => pending.delete(done));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const path = target.pathname.replace(/\/+$/, '');
  return {
    url: `http://127.0.0.1:${port}${path}`,
    requests,
    settled: async () => {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        closed = true;
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
