/**
 * The local HTTP server of `rge validation label` and `rge validation review`: 127.0.0.1 only, one self-contained page and a
 * small JSON API over a session (sessions.ts).
 *
 *   GET  /                      the page
 *   GET  /api/session           who, how many, what this person has done, where to resume, the rubric
 *   GET  /api/items/:n          the case of item n (no verdicts in label mode)
 *   GET  /api/items/:n/verdicts the judges' verdicts (label mode: 403 until this person labelled it)
 *   POST /api/labels            label mode: { item_id, correctness, grounding, calibration, rationale }
 *   POST /api/reviews           review mode: { item_id, outcome: { correctness, grounding, calibration }, note }
 *
 * Errors are JSON `{ error }`: 400 a bad submission (nothing written), 403, 404, 405, 413, 415. Requests
 * whose Host is not this server (DNS rebinding) and POSTs that are not JSON (cross-site forms) are refused.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RgeError } from '../util/errors.ts';
import { validationPageHtml } from './page.ts';
import { SubmissionError, type ValidationSession } from './sessions.ts';

export interface ValidationServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1_000_000;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? ''))
    throw new SubmissionError('send the submission as application/json', 415);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new SubmissionError('the submission is too large', 413);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (err) {
    throw new SubmissionError(`not JSON (${(err as Error).message})`);
  }
}

async function route(session: ValidationSession, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  const method = req.method ?? 'GET';
  const item = /^\/api\/items\/(\d+)(\/verdicts)?$/.exec(path);
  if (method === 'GET' && path === '/') {
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy':
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'",
    });
    res.end(validationPageHtml());
  } else if (method === 'GET' && path === '/api/session') send(res, 200, await session.state());
  else if (method === 'GET' && item) {
    const index = Number(item[1]);
    if (item[2])
      send(res, 200, { item_id: session.view(index).item_id, verdicts: await session.verdicts(index) });
    else send(res, 200, session.view(index));
  } else if (path === `/api/${session.mode === 'label' ? 'labels' : 'reviews'}`) {
    if (method !== 'POST') throw new SubmissionError('POST a submission here', 405);
    const record = await session.submit(await readBody(req));
    send(res, 201, { saved: record, state: await session.state() });
  } else if (path === '/favicon.ico') {
    res.writeHead(204);
    res.end();
  } else throw new SubmissionError(`no ${method} ${path}`, 404);
}

/** Starts the server on 127.0.0.1 (port 0: any free port). */
export async function startValidationServer(
  session: ValidationSession,
  opts: { port?: number; onError?: (message: string) => void } = {},
): Promise<ValidationServer> {
  await session.state(); // a bad labels file is an error now, naming file:line, not a 500 later
  let port = 0;
  const server = createServer((req, res) => {
    const host = req.headers.host ?? '';
    if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) {
      send(res, 403, { error: `host ${host} is not this server` });
      return;
    }
    route(session, req, res).catch((err: unknown) => {
      if (err instanceof SubmissionError) send(res, err.status, { error: err.message });
      else {
        const message = err instanceof Error ? err.message : String(err);
        opts.onError?.(message);
        send(res, 500, { error: message });
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
