/**
 * A local HTTP server for a page a person works in (the question review of `rge questions review`):
 * 127.0.0.1 only, JSON replies, one self-contained page. Requests whose Host is not this server (DNS
 * rebinding) and POSTs that are not JSON (cross-site forms) are refused; an `HttpError` thrown by the
 * routes becomes its status and `{ error }`, anything else a 500 reported to `onError`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RgeError } from './errors.ts';

/** A request the routes refuse: its HTTP status and message, and any more JSON fields to send. */
export class HttpError extends Error {
  constructor(
    message: string,
    readonly status = 400,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export interface LocalServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1_000_000;

/** The page's headers: no caching, a policy allowing only its own inline script and style and this server. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'",
} as const;

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(JSON.stringify(body));
}

/** A POST's JSON body (at most 1 MB); an `HttpError` for another content type, too large, or not JSON. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
    throw new HttpError('send the submission as application/json', 415);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError('the submission is too large', 413);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw new HttpError(`not JSON (${(err as Error).message})`);
  }
}

/** Starts a server on 127.0.0.1 (port 0: any free port) over `route`. */
export async function startLocalServer(
  route: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  opts: { port?: number; onError?: (message: string) => void } = {},
): Promise<LocalServer> {
  let port = 0;
  const server = createServer((req, res) => {
    const host = req.headers.host ?? '';
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      sendJson(res, 403, { error: `host ${host} is not this server` });
      return;
    }
    route(req, res).catch((err: unknown) => {
      if (err instanceof HttpError) sendJson(res, err.status, { ...err.extra, error: err.message });
      else {
        const message = err instanceof Error ? err.message : String(err);
        opts.onError?.(message);
        sendJson(res, 500, { error: message });
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new RgeError(err.code === 'EADDRINUSE' ? `port ${opts.port} is in use; try --port 0` : err.message, {
          exitCode: err.code === 'EADDRINUSE' ? 2 : 1,
        }),
      ),
    );
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
