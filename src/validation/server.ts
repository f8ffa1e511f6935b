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
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  HttpError,
  type LocalServer,
  PAGE_HEADERS,
  readJsonBody as readBody,
  sendJson as send,
  startLocalServer,
} from '../util/local-server.ts';
import { validationPageHtml } from './page.ts';
import { SubmissionError, type ValidationSession } from './sessions.ts';

export type ValidationServer = LocalServer;

async function route(session: ValidationSession, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  const method = req.method ?? 'GET';
  const item = /^\/api\/items\/(\d+)(\/verdicts)?$/.exec(path);
  if (method === 'GET' && path === '/') {
    res.writeHead(200, PAGE_HEADERS);
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

/** Starts the server on 127.0.0.1 (port 0: any free port); util/local-server.ts guards the host and the body. */
export async function startValidationServer(
  session: ValidationSession,
  opts: { port?: number; onError?: (message: string) => void } = {},
): Promise<ValidationServer> {
  await session.state(); // a bad labels file is an error now, naming file:line, not a 500 later
  return startLocalServer(async (req, res) => {
    try {
      await route(session, req, res);
    } catch (err) {
      throw err instanceof SubmissionError ? new HttpError(err.message, err.status) : err;
    }
  }, opts);
}
