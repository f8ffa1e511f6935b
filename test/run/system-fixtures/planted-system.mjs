#!/usr/bin/env node
/**
 * Planted systems for the outside checks of a user's system (test/run/planted-systems.integration.test.ts): RAG
 * applications whose right verdicts are known in advance, reached only through rge's documented
 * contract (a process per question, a JSON Lines pool with `--pool`, or HTTP through `plantedReply`).
 * The question file (PLANTED_QUESTIONS, rge's JSONL) is what they "retrieve" from; PLANTED_MODE says
 * how they behave:
 *
 * - faithful: the gold answer, cited, over contexts that are exactly the question's gold quotes (out
 *   of domain: a refusal over no passage): evidence recall 1 in every category;
 * - wrong-contexts: the same answer over the gold quotes of another company's question: ungrounded,
 *   evidence recall 0, a retrieval miss;
 * - crash-every-7: faithful, but every 7th question of the file (the 7th, 14th, ...) exits 3;
 * - refuse: declines every question over the gold quotes: right only out of domain.
 *
 * PLANTED_LOG, when set, gets `<mode> <question id> <run index>` for every question asked.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** The questions of a JSONL file, in file order. */
export function readQuestions(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));
}

const REFUSAL = 'The provided documents do not state this, so I cannot answer it.';

/** Passages as the contract takes them, cited by the answer. */
const contextsOf = (quotes, prefix) =>
  quotes.map((text, i) => ({ id: `${prefix}-${i}`, text, source: `${prefix}.pdf`, page: 1 }));
const cited = (answer, contexts) =>
  contexts.length === 0 ? answer : `${answer} ${contexts.map((c) => `[${c.id}]`).join(' ')}`;

/**
 * The reply to a question (the contract's JSON), or `{ exit: code }` for a crash. `questions` is the
 * whole file, in order (another company's question and the 7th-question rule read it).
 */
export function plantedReply(mode, question, questions) {
  const q = questions.find((x) => x.id === question.id);
  if (!q) return { exit: 4, why: `no question ${question.id} in the planted question file` };
  const position = questions.indexOf(q) + 1;
  if (mode === 'crash-every-7' && position % 7 === 0) return { exit: 3, why: `crashed on ${q.id}` };
  const gold = contextsOf(q.gold_quotes, q.id);
  if (mode === 'refuse') return { answer: REFUSAL, contexts: gold };
  if (q.category === 'out-of-domain') return { answer: REFUSAL, contexts: [] };
  if (mode === 'wrong-contexts') {
    const other = questions.find(
      (x) => x.category !== 'out-of-domain' && !x.companies.some((c) => q.companies.includes(c)),
    );
    const contexts = contextsOf(other.gold_quotes, other.id);
    return { answer: cited(q.gold_answer, contexts), contexts };
  }
  return { answer: cited(q.gold_answer, gold), contexts: gold };
}

function main() {
  const mode = process.env.PLANTED_MODE ?? 'faithful';
  const questions = readQuestions(process.env.PLANTED_QUESTIONS);
  const reply = (line) => {
    const question = JSON.parse(line);
    if (process.env.PLANTED_LOG)
      appendFileSync(process.env.PLANTED_LOG, `${mode} ${question.id} ${question.run_index}\n`);
    const out = plantedReply(mode, question, questions);
    if ('exit' in out) {
      process.stderr.write(`planted: ${out.why}\n`);
      process.exit(out.exit);
    }
    process.stdout.write(`${JSON.stringify(out)}\n`);
  };
  if (process.argv.includes('--pool')) {
    const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
    lines.on('line', reply);
    lines.on('close', () => process.exit(0));
  } else reply(readFileSync(0, 'utf8'));
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) main();
