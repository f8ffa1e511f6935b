/**
 * rag-app's command entry, for rge's `command` way in.
 *
 *   node --import tsx examples/rag-app/cli.ts [--corpus DIR] [--prompt FILE] [--cache DIR] < question.json
 *
 * reads one question (JSON) on stdin and writes its answer (JSON, one line) on stdout, then exits 0; a
 * question it cannot read exits 2, a failure 1, with the reason on stderr. With `--pool` it is a
 * long-lived worker speaking JSON Lines: one question a line in, one answer a line out, in order, until
 * stdin closes (then exit 0). A line that is not a question gets `{"error": "..."}` in its place, so
 * the answers after it stay on their questions' lines.
 */
import { createInterface } from 'node:readline';
import { commandLine, runMain, UsageError } from './config.ts';
import { BadQuestion, openRagApp, questionFrom, type RagApp } from './rag.ts';

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text;
}

/** The question in a line of JSON; a bad one is a BadQuestion. */
function parseQuestion(text: string) {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    throw new BadQuestion(`not JSON: ${(e as Error).message}`);
  }
  return questionFrom(body);
}

async function answerOne(app: RagApp): Promise<void> {
  let question: ReturnType<typeof questionFrom>;
  try {
    question = parseQuestion(await readStdin());
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  process.stdout.write(`${JSON.stringify(await app.answer(question))}\n`);
}

/** JSON Lines until stdin closes: each line answered in turn, in order. */
async function answerLines(app: RagApp): Promise<void> {
  const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let reply: unknown;
    try {
      reply = await app.answer(parseQuestion(line));
    } catch (e) {
      reply = { error: (e as Error).message };
    }
    process.stdout.write(`${JSON.stringify(reply)}\n`);
  }
}

await runMain(async () => {
  const { options, pool } = commandLine(process.argv.slice(2), process.env, { pool: true });
  const app = await openRagApp(options);
  await (pool ? answerLines(app) : answerOne(app));
});
