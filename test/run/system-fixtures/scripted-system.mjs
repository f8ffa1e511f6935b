#!/usr/bin/env node
/**
 * A scripted command system for the run-level tests (test/run/system-*.test.ts): a process per
 * question (its JSON on stdin, the answer's on stdout) or, with `--pool`, a long-lived process speaking
 * JSON Lines that exits when its stdin ends. Its environment scripts it:
 *
 * - SCRIPTED_DELAY_MS: how long each answer takes (default 0);
 * - SCRIPTED_PLAN: JSON `{ "<question id>": "<behaviour>" }`, one of exit3 (exits 3, saying why on
 *   stderr), not-json (prose on stdout), hang (never answers), misfit (`answer` a number),
 *   duplicates (two contexts with one id); any other question is answered;
 * - SCRIPTED_LOG: gets `<tag> <question id> <run index> <pid>` for each question the system answers or
 *   fails, written before its answer (so a question in flight at a kill may be logged, unstored);
 * - SCRIPTED_PIDS: gets `<pid>` when a process starts; SCRIPTED_TAG: the tag (default `-`).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const delayMs = Number(process.env.SCRIPTED_DELAY_MS ?? 0);
const plan = JSON.parse(process.env.SCRIPTED_PLAN ?? '{}');
const tag = process.env.SCRIPTED_TAG ?? '-';
if (process.env.SCRIPTED_PIDS) appendFileSync(process.env.SCRIPTED_PIDS, `${process.pid}\n`);

const answerOf = (q) => ({
  answer: `The documents do not say what ${q.id} asks [c1].`,
  contexts: [{ id: 'c1', text: `A passage retrieved for ${q.id}.`, source: 'scripted.pdf', page: 1 }],
});

/** The line of stdout a question gets (null: none, it hangs); exits for exit3. */
function reply(q) {
  if (process.env.SCRIPTED_LOG)
    appendFileSync(process.env.SCRIPTED_LOG, `${tag} ${q.id} ${q.run_index} ${process.pid}\n`);
  const behaviour = plan[q.id] ?? 'ok';
  if (behaviour === 'exit3') {
    process.stderr.write(`scripted: the vector store refused ${q.id}\n`);
    process.exit(3);
  }
  if (behaviour === 'hang') return null;
  if (behaviour === 'not-json') return `Here is my answer to ${q.id}: revenue grew.`;
  if (behaviour === 'misfit') return JSON.stringify({ answer: 42, contexts: [] });
  if (behaviour === 'duplicates')
    return JSON.stringify({
      answer: 'Revenue grew [c1].',
      contexts: [
        { id: 'c1', text: 'a' },
        { id: 'c1', text: 'b' },
      ],
    });
  return JSON.stringify(answerOf(q));
}

const later = (f) => setTimeout(f, delayMs);

if (process.argv.includes('--pool')) {
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on('line', (line) =>
    later(() => {
      const out = reply(JSON.parse(line));
      if (out === null) setInterval(() => {}, 1000);
      else process.stdout.write(`${out}\n`);
    }),
  );
  lines.on('close', () => process.exit(0));
} else {
  const q = JSON.parse(readFileSync(0, 'utf8'));
  later(() => {
    const out = reply(q);
    if (out === null) setInterval(() => {}, 1000);
    else process.stdout.write(`${out}\n`);
  });
}
