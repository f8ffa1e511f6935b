/**
 * The labelling and review server through its JSON API, without a browser: labels are validated and
 * appended (a bad one is a 400 and nothing is written), the judges' verdicts stay hidden until the item
 * is labelled, the page resumes at the first unlabelled item, and reviews are appended with the hash of
 * the judge outputs they reviewed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { appendFile, mkdtemp, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startLabelling } from '../../src/cli/labelling.ts';
import { RgeError } from '../../src/util/errors.ts';
import {
  ContestedReview,
  HumanLabel,
  judgeOutcomesHash,
  labelSession,
  labelsFile,
  readLabels,
  readReviews,
  reviewSession,
  reviewsFile,
  startValidationServer,
  type ValidationServer,
} from '../../src/validation/index.ts';
import { captureIO, runRge } from '../helpers/cli.ts';
import { handItem, handSample, JUDGE_MARK, judgeOutcome, writeHandSample } from './hand-sample.ts';

async function call(server: ValidationServer, path: string, body?: unknown) {
  const res = await fetch(new URL(path, server.url), {
    ...(body === undefined
      ? {}
      : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) as Record<string, unknown> };
}

const lines = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : ([] as string[]);

const label = (i: number, over: Record<string, unknown> = {}) => ({
  item_id: `extractive/q-${i}/run 0`,
  correctness: 2,
  grounding: 1,
  calibration: 2,
  rationale: `figure matches the gold answer (${i})`,
  ...over,
});

describe('rge validation label: the JSON API', () => {
  let dir: string;
  let server: ValidationServer;
  let file: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-labels-'));
    const sampleFile = await writeHandSample(dir, 6);
    server = await startLabelling(
      { sample: sampleFile, labeller: 'ana', port: '0', labelsDir: dir },
      captureIO(dir),
    );
    file = labelsFile(dir, 'hand-0123456789ab');
  });
  afterEach(async () => {
    await server.close();
  });

  it('serves the page and the session; the case carries no verdict; verdicts are refused before labelling', async () => {
    const page = await fetch(server.url);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('<script type="module">');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/); // self-contained
    const session = await call(server, '/api/session');
    expect(session.json).toMatchObject({ mode: 'label', person: 'ana', total: 6, start: 0, done: {} });
    const item = await call(server, '/api/items/0');
    expect(item.status).toBe(200);
    expect(item.text).not.toContain(JUDGE_MARK);
    expect(item.json).not.toHaveProperty('verdicts');
    expect(item.json).not.toHaveProperty('subject_id'); // blind to the model
    expect(item.json.cited).toEqual(['acme-FY24-0000aaaa']);
    const hidden = await call(server, '/api/items/0/verdicts');
    expect(hidden.status).toBe(403);
    expect(hidden.text).not.toContain(JUDGE_MARK);
    expect((await call(server, '/api/items/99')).status).toBe(404);
  });

  it('appends a validated label, then shows the verdicts of that item (only)', async () => {
    const saved = await call(server, '/api/labels', label(0));
    expect(saved.status).toBe(201);
    expect(lines(file)).toHaveLength(1);
    const stored = HumanLabel.parse(JSON.parse(lines(file)[0] ?? ''));
    expect(stored).toMatchObject({
      kind: 'label',
      sample_id: 'hand-0123456789ab',
      item_id: 'extractive/q-0/run 0',
      answer_key: 'answer-key-0',
      labeller: 'ana',
      correctness: 2,
      grounding: 1,
      calibration: 2,
    });
    const shown = await call(server, '/api/items/0/verdicts');
    expect(shown.status).toBe(200);
    expect(shown.text).toContain(JUDGE_MARK);
    expect((await call(server, '/api/items/1/verdicts')).status).toBe(403);
  });

  it('refuses a bad label with a 400 naming the field, and writes nothing', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [label(0, { correctness: 3 }), /correctness: must be 0, 1 or 2/],
      [label(0, { grounding: '2' }), /grounding: must be 0, 1 or 2/],
      [label(0, { rationale: '   ' }), /rationale: a rationale is required/],
      [label(0, { item_id: 'nope' }), /no item nope/],
      [label(0, { labeller: 'someone-else' }), /labeller/],
    ];
    for (const [body, message] of cases) {
      const res = await call(server, '/api/labels', body);
      expect(res.status).toBe(400);
      expect(String(res.json.error)).toMatch(message);
    }
    const notJson = await fetch(new URL('/api/labels', server.url), {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify(label(0)),
    });
    expect(notJson.status).toBe(415);
    expect((await call(server, '/api/reviews', label(0))).status).toBe(404);
    expect(existsSync(file)).toBe(false);
  });

  it('refuses a request whose Host is not the server (DNS rebinding)', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        new URL('/api/session', server.url),
        { headers: { host: `evil.example:${server.port}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it('resumes at the first unlabelled item, across a restart; a re-label appends and the last wins', async () => {
    for (const i of [0, 1, 3]) expect((await call(server, '/api/labels', label(i))).status).toBe(201);
    expect((await call(server, '/api/session')).json.start).toBe(2);
    await call(server, '/api/labels', label(1, { correctness: 0, rationale: 'on second thought: wrong' }));
    expect(lines(file)).toHaveLength(4);
    await server.close();
    server = await startLabelling(
      { sample: join(dir, 'samples', 'hand-0123456789ab.json'), labeller: 'ana', port: '0', labelsDir: dir },
      captureIO(dir),
    );
    const session = await call(server, '/api/session');
    expect(session.json.start).toBe(2);
    expect(Object.keys(session.json.done as object).sort()).toEqual([
      'extractive/q-0/run 0',
      'extractive/q-1/run 0',
      'extractive/q-3/run 0',
    ]);
    // another labeller starts at the beginning and sees no verdict yet
    const other = await startValidationServer(labelSession(handSample(6), 'ben', dir));
    try {
      expect((await call(other, '/api/session')).json.start).toBe(0);
      expect((await call(other, '/api/items/0/verdicts')).status).toBe(403);
    } finally {
      await other.close();
    }
    const all = await readLabels(dir);
    expect(all).toHaveLength(3);
    expect(all.find((l) => l.item_id === 'extractive/q-1/run 0')).toMatchObject({
      correctness: 0,
      rationale: 'on second thought: wrong',
    });
  });

  it('a cut-off last line (a crash mid-save) is set aside with a note, not a stop; the labels before it stay', async () => {
    for (const i of [0, 1]) expect((await call(server, '/api/labels', label(i))).status).toBe(201);
    await server.close();
    const whole = readFileSync(file, 'utf8');
    const cut = whole.split('\n')[0]?.slice(0, 40) as string;
    await appendFile(file, cut);
    const io = captureIO(dir);
    server = await startLabelling(
      { sample: join(dir, 'samples', 'hand-0123456789ab.json'), labeller: 'ana', port: '0', labelsDir: dir },
      io,
    );
    expect(io.text).toContain(
      'rge validation label: note: labels-hand-0123456789ab.jsonl:3: a cut-off last line (40 bytes, a label being saved ' +
        'when rge stopped) is not a label; it was moved to labels-hand-0123456789ab.jsonl.torn',
    );
    expect(readFileSync(file, 'utf8')).toBe(whole);
    expect(readFileSync(`${file}.torn`, 'utf8')).toBe(`${cut}\n`);
    expect(Object.keys((await call(server, '/api/session')).json.done as object)).toHaveLength(2);
    expect((await call(server, '/api/labels', label(2))).status).toBe(201);
    expect(await readLabels(dir)).toHaveLength(3);
    await server.close();
    const lines3 = readFileSync(file, 'utf8').split('\n');
    await writeFile(file, [lines3[0], cut, ...lines3.slice(1)].join('\n'));
    const bad = startLabelling(
      { sample: join(dir, 'samples', 'hand-0123456789ab.json'), labeller: 'ana', port: '0', labelsDir: dir },
      captureIO(dir),
    );
    await expect(bad).rejects.toThrow(`${file}:2: invalid JSON`);
    await expect(bad).rejects.toThrow('fix or delete that line');
    await writeFile(file, lines3.join('\n'));
    server = await startLabelling(
      { sample: join(dir, 'samples', 'hand-0123456789ab.json'), labeller: 'ana', port: '0', labelsDir: dir },
      captureIO(dir),
    );
  });

  it('starts the page at item 0 when every item is labelled', async () => {
    for (let i = 0; i < 6; i++) await call(server, '/api/labels', label(i));
    expect((await call(server, '/api/session')).json).toMatchObject({ start: 0, total: 6 });
  });
});

describe('the readers for the report', () => {
  it('a bad line of a labels file is an error naming file:line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-labels-'));
    const file = labelsFile(dir, 'x');
    const good: HumanLabel = {
      kind: 'label',
      sample_id: 'x',
      item_id: 'a/q/run 0',
      answer_key: 'k',
      labeller: 'ana',
      correctness: 2,
      grounding: 2,
      calibration: 2,
      rationale: 'ok',
      labelled_at: '2026-01-01T00:00:00.000Z',
    };
    await writeFile(file, `${JSON.stringify(good)}\n${JSON.stringify({ ...good, grounding: 5 })}\n`);
    const err = await readLabels(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RgeError);
    expect((err as Error).message).toBe(
      `${file}:2: grounding: must be 0, 1 or 2; fix or delete that line (one label per line; a later label of the same item replaces an earlier one)`,
    );
    // a torn last line (no newline) is not a label: the readers skip it; a bad line before it is still an error
    await writeFile(file, `${JSON.stringify(good)}\n${JSON.stringify(good).slice(0, 30)}`);
    expect(await readLabels(dir)).toEqual([good]);
    await writeFile(file, `${JSON.stringify(good).slice(0, 30)}\n${JSON.stringify(good)}\n`);
    await expect(readLabels(dir)).rejects.toThrow(`${file}:1: invalid JSON`);
    await writeFile(file, `${JSON.stringify(good)}\n`);
    expect(await readLabels(join(dir, 'absent'))).toEqual([]);
    expect(await readReviews(dir)).toEqual([]);
    await appendFile(reviewsFile(dir), '{"kind":"review"\n');
    await expect(readReviews(dir)).rejects.toThrow(`${reviewsFile(dir)}:1: invalid JSON`);
  });
});

describe('rge validation review: the JSON API', () => {
  it('shows both verdicts from the start and appends a review with the hash of the judge outputs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-reviews-'));
    const item = handItem(7, [judgeOutcome('judge-a', [2, 0, 2]), judgeOutcome('judge-b', [2, 2, 2])]);
    const server = await startValidationServer(
      reviewSession('run-x', [{ item, contestedDimensions: ['grounding'] }], 'rev', dir),
    );
    try {
      const view = await call(server, '/api/items/0');
      expect(view.text).toContain(JUDGE_MARK);
      expect(view.json).toMatchObject({ contested_dimensions: ['grounding'], subject_id: 'extractive' });
      const bad = await call(server, '/api/reviews', {
        item_id: item.item_id,
        outcome: { correctness: 2, grounding: 7, calibration: 2 },
        note: 'x',
      });
      expect(bad.status).toBe(400);
      expect(String(bad.json.error)).toMatch(/outcome.grounding: must be 0, 1 or 2/);
      expect(existsSync(reviewsFile(dir))).toBe(false);
      const body = {
        item_id: item.item_id,
        outcome: { correctness: 2, grounding: 1, calibration: 2 },
        note: 'cites the right chunk',
      };
      expect((await call(server, '/api/reviews', body)).status).toBe(201);
      expect((await call(server, '/api/reviews', { ...body, note: 'second look' })).status).toBe(201);
      const stored = lines(reviewsFile(dir)).map((l) => ContestedReview.parse(JSON.parse(l)));
      expect(stored).toHaveLength(2);
      expect(stored[0]).toMatchObject({
        kind: 'review',
        item_id: item.item_id,
        answer_key: item.answer_key,
        reviewer: 'rev',
        outcome: { correctness: 2, grounding: 1, calibration: 2 },
        judge_outcomes_hash: judgeOutcomesHash(item.verdicts),
      });
      const last = await readReviews(dir);
      expect(last).toHaveLength(1);
      expect(last[0]?.note).toBe('second look');
      expect((await call(server, '/api/session')).json).toMatchObject({ mode: 'review', start: 0 });
      expect(Object.keys((await call(server, '/api/session')).json.done as object)).toEqual([item.item_id]);
      expect((await call(server, '/api/labels', label(0))).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe('rge validation sample|label|review: usage', () => {
  it('every command has --help; the group lists all three, the top level no longer lists label or review', async () => {
    for (const args of [
      ['validation', 'sample'],
      ['validation', 'label'],
      ['validation', 'review'],
      ['validation'],
    ]) {
      const help = await runRge(tmpdir(), ...args, '--help');
      expect(help.code, args.join(' ')).toBe(0);
      expect(help.out).toContain(`Usage: rge ${args.join(' ')}`);
    }
    const group = (await runRge(tmpdir(), 'validation', '--help')).out;
    for (const name of ['sample', 'label', 'review'])
      expect(group).toMatch(new RegExp(`^  ${name} \\[options\\]`, 'm'));
    const top = (await runRge(tmpdir(), '--help')).out;
    expect(top).toMatch(/^ {2}validation /m);
    expect(top).not.toMatch(/^ {2}(label|review) /m);
  });

  it('exits 2 on a bad port or labeller, or with no sample to label', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-labels-'));
    const port = await runRge(dir, 'validation', 'label', '--port', 'x', '--labeller', 'ana');
    expect(port.code).toBe(2);
    expect(port.err).toContain('--port must be an integer');
    const who = await runRge(dir, 'validation', 'label', '--labeller', ' ana');
    expect(who.code).toBe(2);
    expect(who.err).toContain('--labeller must be one line without surrounding spaces');
    const none = await runRge(dir, 'validation', 'label', '--labeller', 'ana');
    expect(none.code).toBe(2);
    expect(none.err).toContain('no validation sample in');
    const missing = await runRge(dir, 'validation', 'label', '--labeller', 'ana', '--sample', 'nope.json');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--sample nope.json: no such file');
    expect(missing.err).not.toContain('note:');
  });

  it('rge label and rge review, the old names, run the same commands after a one-line note naming the new one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-labels-'));
    const label = await runRge(dir, 'label', '--labeller', 'ana', '--sample', 'nope.json');
    expect(label.code).toBe(2);
    expect(label.err).toBe(
      'note: `rge label` is now `rge validation label` (same flags); the old name will go in a later release\n' +
        'rge: --sample nope.json: no such file\n',
    );
    // review's own flags (--reviewer, --port) and the run's (--config): a bad port is its usage error
    const review = await runRge(dir, 'review', '--reviewer', 'ana', '--port', 'x', '--config', 'none.yaml');
    expect(review.code).toBe(2);
    const [note, ...rest] = review.err.split('\n');
    expect(note).toBe(
      'note: `rge review` is now `rge validation review` (same flags); the old name will go in a later release',
    );
    expect(rest.join('\n')).toContain('--port must be an integer');
    for (const name of ['label', 'review']) {
      const help = await runRge(dir, name, '--help');
      expect(help.code).toBe(0);
      expect(help.out).toContain(`Usage: rge ${name}`);
    }
  });
});
