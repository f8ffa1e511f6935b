/**
 * The local server of `rge questions review` (util/local-server.ts: 127.0.0.1 only): the review page
 * and a small JSON API over a review session (session.ts).
 *
 *   GET  /                    the page
 *   GET  /api/state           the order, what is decided, where to resume, the summary
 *   GET  /api/questions/:n    question n of the review order, its decision and its quotes in their pages
 *   POST /api/decisions       { question_id, decision: accepted | rejected (reason, note) | edited (edits) }
 *   POST /api/undo            takes back the latest standing decision
 *
 * Errors are JSON `{ error }`: 400 a bad submission, 422 an edit that failed re-verification (with its
 * `reason`), 404, 405, 413, 415. Nothing is written for any of them.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  HttpError,
  type LocalServer,
  PAGE_HEADERS,
  readJsonBody,
  sendJson,
  startLocalServer,
} from '../../util/local-server.ts';
import { reviewPageHtml } from './page.ts';
import { type QuestionReviewSession, ReviewRefusal } from './session.ts';

/** A session call whose refusal becomes the HTTP error the page shows. */
async function refused<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ReviewRefusal)
      throw new HttpError(err.message, err.status, err.reason ? { reason: err.reason } : {});
    throw err;
  }
}

async function route(
  session: QuestionReviewSession,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  const method = req.method ?? 'GET';
  const question = /^\/api\/questions\/(\d+)$/.exec(path);
  const post = (what: string) => {
    if (method !== 'POST') throw new HttpError(`POST ${what} here`, 405);
  };
  if (method === 'GET' && path === '/') {
    res.writeHead(200, PAGE_HEADERS);
    res.end(reviewPageHtml());
  } else if (method === 'GET' && path === '/api/state') sendJson(res, 200, await session.state());
  else if (method === 'GET' && question)
    sendJson(res, 200, await refused(() => session.view(Number(question[1]))));
  else if (path === '/api/decisions') {
    post('a decision');
    const body = await readJsonBody(req);
    const saved = await refused(() => session.submit(body));
    sendJson(res, 201, { saved, state: await session.state() });
  } else if (path === '/api/undo') {
    post('an undo');
    const undone = await session.undo();
    sendJson(res, 200, { undone, state: await session.state() });
  } else if (path === '/favicon.ico') {
    res.writeHead(204);
    res.end();
  } else throw new HttpError(`no ${method} ${path}`, 404);
}

/** Starts the review server on 127.0.0.1 (port 0: any free port), after reading the review file once. */
export async function startQuestionReviewServer(
  session: QuestionReviewSession,
  opts: { port?: number; onError?: (message: string) => void } = {},
): Promise<LocalServer> {
  await session.state(); // a bad review file is an error now, naming file:line, not a 500 later
  return startLocalServer((req, res) => route(session, req, res), opts);
}
