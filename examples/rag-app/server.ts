/**
 * rag-app's HTTP entry, for rge's `http` way in.
 *
 *   node --import tsx examples/rag-app/server.ts [--port N] [--corpus DIR] [--prompt FILE] [--cache DIR]
 *
 * serves `POST /answer` on 127.0.0.1: the question (JSON) in the body, its answer (JSON) back; 400 for a
 * body that is not a question, 404 for another path, 405 for another method, 413 for a body over 1 MB,
 * 500 (with the reason) when answering fails. It opens the app before it listens, then prints
 * `listening on http://127.0.0.1:PORT` on stdout (`--port 0` picks a free port). SIGTERM or SIGINT
 * stops it gracefully: no new connections, the answers in flight finished, then exit 0.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { commandLine, runMain } from './config.ts';
import { BadQuestion, openRagApp, questionFrom, type RagApp } from './rag.ts';

const MAX_BODY_BYTES = 1 << 20;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, `the body is over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(app: RagApp, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path !== '/answer') throw new HttpError(404, `no ${path} here: POST /answer`);
    if (req.method !== 'POST') throw new HttpError(405, `${req.method} /answer: use POST`);
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req));
    } catch (e) {
      if (e instanceof HttpError) throw e;
      throw new HttpError(400, `the body is not JSON: ${(e as Error).message}`);
    }
    send(res, 200, await app.answer(questionFrom(body)));
  } catch (e) {
    const status = e instanceof HttpError ? e.status : e instanceof BadQuestion ? 400 : 500;
    if (status === 405) res.setHeader('allow', 'POST');
    send(res, status, { error: (e as Error).message });
  }
}

await runMain(async () => {
  const { options, port } = commandLine(process.argv.slice(2), process.env, { port: true });
  const app = await openRagApp(options);
  const server = createServer((req, res) => void handle(app, req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  const stop = () => {
    server.close(() => process.stderr.write('rag-app: stopped\n'));
    server.closeIdleConnections();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
});
