import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback HTTP server for tests: real sockets on 127.0.0.1, routes that can change between requests. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface SeenRequest {
  path: string;
  headers: IncomingHttpHeaders;
}

export interface LoopbackServer {
  url(path: string): string;
  route(path: string, handler: Handler): void;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export async function startLoopbackServer(): Promise<LoopbackServer> {
  const routes = new Map<string, Handler>();
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    requests.push({ path, headers: req.headers });
    const handler = routes.get(path);
    if (handler) handler(req, res);
    else res.writeHead(404, 'Not Found').end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    route: (path, handler) => routes.set(path, handler),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A handler that reads the whole request body first, then answers with it. */
export function withBody(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Handler {
  return (req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => handler(req, res, body));
  };
}

/** Serves `body`, honouring `Range: bytes=N-` with a 206 unless `ignoreRange` (then always 200). */
export function serveBytes(body: Buffer, opts: { ignoreRange?: boolean } = {}): Handler {
  return (req, res) => {
    const match = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (match?.[1] !== undefined && !opts.ignoreRange) {
      const start = Number(match[1]);
      if (start >= body.length) {
        res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
        return;
      }
      res.writeHead(206, {
        'content-type': 'application/pdf',
        'content-length': body.length - start,
        'content-range': `bytes ${start}-${body.length - 1}/${body.length}`,
      });
      res.end(body.subarray(start));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length });
    res.end(body);
  };
}

/** Announces the whole body, sends the first `bytes` of it, then destroys the connection. */
export function cutAfter(body: Buffer, bytes: number): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': body.length });
    res.write(body.subarray(0, bytes), () => {
      setTimeout(() => res.socket?.destroy(), 50);
    });
  };
}

export function redirectTo(location: string, status = 302): Handler {
  return (_req, res) => {
    res.writeHead(status, { location }).end();
  };
}

export function failWith(status: number, message: string): Handler {
  return (_req, res) => {
    res.writeHead(status, message).end(message);
  };
}
