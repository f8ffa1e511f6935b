/**
 * The HTTP way in against real loopback servers: the request rge sends, retries of 429 (obeying
 * retry-after), 5xx, dropped connections and timeouts, no retry of another 4xx, the concurrency limit
 * counted at the server, answers off the contract, keys never in a message, and the pre-flight.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ContractError,
  checkReachable,
  type HttpSystemOptions,
  httpSystem,
  SystemFailure,
  type SystemQuestion,
} from '../../src/system/index.ts';
import { type LoopbackServer, startLoopbackServer, withBody } from '../helpers/http-server.ts';

const question = (id = 'gd-001'): SystemQuestion => ({
  id,
  text: 'What was revenue?',
  run_index: 2,
  seed: 5,
});
const ANSWER = { answer: 'Revenue was 10 [c1].', contexts: [{ id: 'c1', text: 'Revenue: 10', page: 3 }] };
const KEY = 'sk-rge-test-4f9c2a7b1e8d';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A loopback server whose `/ask` is `handler`; its requests (path, headers, body) in `seen`. */
async function endpoint(
  handler: (req: IncomingMessage, res: ServerResponse, body: string, n: number) => void,
): Promise<LoopbackServer & { seen: { at: number; body: string; headers: IncomingMessage['headers'] }[] }> {
  const server = await startLoopbackServer();
  servers.push(server);
  const seen: { at: number; body: string; headers: IncomingMessage['headers'] }[] = [];
  server.route(
    '/ask',
    withBody((req, res, body) => {
      seen.push({ at: Date.now(), body, headers: req.headers });
      handler(req, res, body, seen.length);
    }),
  );
  return Object.assign(server, { seen });
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

function system(url: string, overrides: Partial<HttpSystemOptions> = {}) {
  return httpSystem({
    url,
    headers: {},
    timeoutMs: 30_000,
    maxAttempts: 3,
    minBackoffMs: 10,
    maxBackoffMs: 20,
    concurrency: 4,
    rpm: null,
    ...overrides,
  });
}

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the question to fail');
    },
    (e: unknown) => e as SystemFailure,
  );

describe('httpSystem: the request and the answer', () => {
  it("POSTs the question as JSON with the system's headers, and checks the JSON reply", async () => {
    const server = await endpoint((_req, res) => json(res, 200, ANSWER));
    const sut = system(server.url('/ask'), { headers: { 'x-api-key': KEY, 'X-Tenant': 'acme' } });
    expect(sut.kind).toBe('http');
    expect(await sut.answer(question())).toEqual(ANSWER);
    const [request] = server.seen;
    expect(JSON.parse(request?.body ?? '')).toEqual(question());
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['x-api-key']).toBe(KEY);
    expect(request?.headers['x-tenant']).toBe('acme');
  });

  it('an answer off the contract names the field and the question; so do duplicate context ids', async () => {
    const server = await endpoint((req, res, body) => {
      const q = JSON.parse(body) as SystemQuestion;
      if (q.id === 'gd-2') json(res, 200, { ...ANSWER, contexts: [...ANSWER.contexts, ...ANSWER.contexts] });
      else json(res, 200, { answer: 7, contexts: [], confidence: 0.9 });
      req.resume();
    });
    const sut = system(server.url('/ask'));
    const err = await failureOf(sut.answer(question('gd-1')));
    expect(err).toBeInstanceOf(ContractError);
    expect((err as unknown as ContractError).issues.map((i) => i.path)).toEqual(['answer', '']);
    expect(err.message).toMatch(
      /^question gd-1: the answer does not fit the contract: answer: .*not part of the contract: confidence/,
    );
    await expect(sut.answer(question('gd-2'))).rejects.toThrow(
      'question gd-2: the answer does not fit the contract: contexts.1.id: duplicate context id "c1"',
    );
    expect(server.seen).toHaveLength(2); // a misfit answer is not retried
  });

  it('a 2xx reply that is not JSON fails the question at once, with an excerpt', async () => {
    const server = await endpoint((_req, res) => res.writeHead(200).end('<html>Gateway login</html>'));
    const err = await failureOf(system(server.url('/ask')).answer(question('gd-3')));
    expect(err).toBeInstanceOf(SystemFailure);
    expect(err.message).toBe(
      `http ${server.url('/ask')}: question gd-3: HTTP 200 but the body is not JSON: <html>Gateway login</html>`,
    );
    expect(server.seen).toHaveLength(1);
  });
});

describe('httpSystem: retries', () => {
  it('a 4xx other than 429 is not retried: the error names the status and an excerpt of the body', async () => {
    const server = await endpoint((_req, res) => json(res, 422, { detail: 'field "text" is required' }));
    const err = await failureOf(system(server.url('/ask')).answer(question('gd-4')));
    expect(err.status).toBe(422);
    expect(err.questionId).toBe('gd-4');
    expect(err.message).toBe(
      `http ${server.url('/ask')}: question gd-4: HTTP 422 (not retried: a client error): {"detail":"field \\"text\\" is required"}`,
    );
    expect(server.seen).toHaveLength(1);
  });

  it('429 with retry-after in seconds: retried after at least that long', async () => {
    const server = await endpoint((_req, res, _body, n) =>
      n === 1 ? json(res, 429, { error: 'slow down' }, { 'retry-after': '1' }) : json(res, 200, ANSWER),
    );
    const retries: string[] = [];
    const sut = system(server.url('/ask'), { onRetry: (line) => retries.push(line) });
    expect(await sut.answer(question('gd-5'))).toEqual(ANSWER);
    const [first, second] = server.seen;
    // the backoff alone is 10-20 ms: the wait is the retry-after's
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1000);
    expect(retries).toEqual([
      `http ${server.url('/ask')}: question gd-5: attempt 1 failed (HTTP 429: {"error":"slow down"}); retrying`,
    ]);
  });

  it('429 with retry-after as an HTTP date: retried no sooner than that date', async () => {
    let until = 0;
    const server = await endpoint((_req, res, _body, n) => {
      if (n > 1) return json(res, 200, ANSWER);
      const date = new Date(Date.now() + 2000).toUTCString(); // whole seconds: 1 to 2 s from now
      until = Date.parse(date);
      json(res, 429, {}, { 'retry-after': date });
    });
    expect(await system(server.url('/ask')).answer(question())).toEqual(ANSWER);
    expect(server.seen[1]?.at ?? 0).toBeGreaterThanOrEqual(until);
  });

  it('5xx is retried up to maxAttempts, then fails naming the status and the question', async () => {
    const server = await endpoint((_req, res) => res.writeHead(503).end('upstream model overloaded'));
    const retries: string[] = [];
    const err = await failureOf(
      system(server.url('/ask'), { onRetry: (l) => retries.push(l) }).answer(question('gd-6')),
    );
    expect(server.seen).toHaveLength(3);
    expect(retries).toHaveLength(2);
    expect(err.status).toBe(503);
    expect(err.message).toBe(
      `http ${server.url('/ask')}: question gd-6: HTTP 503: upstream model overloaded (attempt 3 of 3)`,
    );
  });

  it('a 5xx then a 200: the answer', async () => {
    const server = await endpoint((_req, res, _body, n) =>
      n === 1 ? res.writeHead(500).end('boom') : json(res, 200, ANSWER),
    );
    expect(await system(server.url('/ask')).answer(question())).toEqual(ANSWER);
    expect(server.seen).toHaveLength(2);
  });

  it('a dropped connection and an attempt with no reply in time are retried', async () => {
    const server = await endpoint((req, res, _body, n) => {
      if (n === 1)
        req.socket.destroy(); // no reply at all
      else if (n === 2)
        return; // never replies: the attempt times out
      else json(res, 200, ANSWER);
    });
    const retries: string[] = [];
    const sut = system(server.url('/ask'), { timeoutMs: 500, onRetry: (l) => retries.push(l) });
    expect(await sut.answer(question('gd-7'))).toEqual(ANSWER);
    expect(server.seen).toHaveLength(3);
    expect(retries[0]).toMatch(/question gd-7: attempt 1 failed \(.+\); retrying$/);
    expect(retries[1]).toMatch(/question gd-7: attempt 2 failed \(no reply within 500 ms\); retrying$/);
  });

  it('a refused connection on every attempt fails naming it', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/ask`;
    const err = await failureOf(system(url, { maxAttempts: 2 }).answer(question('gd-8')));
    expect(err.message).toBe(
      `http ${url}: question gd-8: connection refused (ECONNREFUSED) (attempt 2 of 2)`,
    );
  });
});

describe('httpSystem: limits and keys', () => {
  it('never more requests in flight than `concurrency`, counted at the server', async () => {
    let inFlight = 0;
    let most = 0;
    const held: (() => void)[] = [];
    let timer: NodeJS.Timeout | undefined;
    const releaseAll = () => {
      clearTimeout(timer);
      for (const release of held.splice(0)) release();
    };
    // requests are held: two for 500 ms more (time for a third to come if the limit did not hold),
    // a lone one for 2 s; a third at once releases them all
    const server = await endpoint((_req, res) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      held.push(() => {
        inFlight -= 1;
        json(res, 200, ANSWER);
      });
      clearTimeout(timer);
      if (held.length > 2) releaseAll();
      else timer = setTimeout(releaseAll, held.length === 2 ? 500 : 2000);
    });
    const sut = system(server.url('/ask'), { concurrency: 2 });
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => sut.answer(question(`c-${i}`))));
    expect(answers).toHaveLength(6);
    expect(server.seen).toHaveLength(6);
    expect(most).toBe(2);
  });

  it('rpm spaces the requests (60 s / rpm apart)', async () => {
    const server = await endpoint((_req, res) => json(res, 200, ANSWER));
    const sut = system(server.url('/ask'), { rpm: 120, concurrency: 3 });
    await Promise.all([
      sut.answer(question('r-1')),
      sut.answer(question('r-2')),
      sut.answer(question('r-3')),
    ]);
    const at = server.seen.map((s) => s.at);
    // 500 ms apart when sent; a loopback request cannot arrive 150 ms early
    expect((at[1] ?? 0) - (at[0] ?? 0)).toBeGreaterThanOrEqual(350);
    expect((at[2] ?? 0) - (at[1] ?? 0)).toBeGreaterThanOrEqual(350);
  });

  it("a header's key never appears in an error or a retry line, even when the endpoint echoes it", async () => {
    const server = await endpoint((req, res, _body, n) => {
      const echo = `auth=${req.headers.authorization} key=${req.headers['x-api-key']}`;
      res.writeHead(n === 1 ? 500 : 401).end(`invalid credentials: ${echo}`);
    });
    const retries: string[] = [];
    const sut = system(server.url('/ask'), {
      headers: { authorization: `Bearer ${KEY}-bearer`, 'x-api-key': KEY },
      onRetry: (l) => retries.push(l),
    });
    const err = await failureOf(sut.answer(question('gd-9')));
    expect(server.seen[0]?.headers['x-api-key']).toBe(KEY); // the key was sent
    expect(err.message).toContain('HTTP 401 (not retried: a client error): invalid credentials: auth=');
    expect(retries).toHaveLength(1);
    for (const text of [err.message, ...retries]) {
      expect(text).not.toContain(KEY);
      expect(text).toContain('[redacted]');
    }
  });
});

describe('checkReachable: the pre-flight', () => {
  it('any HTTP response from the origin counts, whatever its status', async () => {
    const server = await startLoopbackServer(); // 404 for every path
    servers.push(server);
    await expect(checkReachable(server.url('/v1/answer'), 5000)).resolves.toBeUndefined();
    expect(server.requests.map((r) => r.path)).toEqual(['/']);
  });

  it('a refused connection, a name that does not resolve, no response in time, not http: errors naming the URL', async () => {
    const refused = `http://127.0.0.1:${await closedPort()}/ask`;
    await expect(checkReachable(refused, 5000)).rejects.toThrow(
      `the http system's URL ${refused} is not reachable: connection refused (ECONNREFUSED); no question was asked`,
    );
    await expect(checkReachable('http://rge-no-such-host.invalid/ask', 10_000)).rejects.toThrow(
      /^the http system's URL http:\/\/rge-no-such-host\.invalid\/ask is not reachable: (host|no response)/,
    );
    const silent = await silentServer();
    await expect(checkReachable(`http://127.0.0.1:${silent}/ask`, 300)).rejects.toThrow(
      `the http system's URL http://127.0.0.1:${silent}/ask is not reachable: no response within 300 ms`,
    );
    await expect(checkReachable('ftp://example.com/ask', 1000)).rejects.toThrow(
      "the http system's URL ftp://example.com/ask is not an http:// or https:// URL",
    );
  });

  it('a URL with a user name and password is named without them', async () => {
    const port = await closedPort();
    const err = await checkReachable(`http://user:${KEY}@127.0.0.1:${port}/ask`, 5000).catch((e: Error) => e);
    expect(String(err)).toContain(`URL http://127.0.0.1:${port}/ask is not reachable`);
    expect(String(err)).not.toContain(KEY);
  });
});

/** A port nothing listens on (a server's, closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A TCP server that accepts connections and never says anything; closed after the test. */
async function silentServer(): Promise<number> {
  const sockets: Socket[] = [];
  const server: Server = createServer((s) => sockets.push(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  });
  return (server.address() as { port: number }).port;
}
