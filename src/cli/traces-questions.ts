/**
 * `rge traces questions`: the logged cases of a window (cases.jsonl) as the questions file of a run whose
 * subject is `provider: logged-traces` (src/traces/questions.ts): one question a case, `trace-00001`... in
 * file order, with gold only where the logged question matches a question of `--golden` (its gold then
 * applies); the others have none, and their correctness is not judged.
 */
import { relative, resolve } from 'node:path';
import { loadQuestions } from '../questions/load.ts';
import { hasGold } from '../questions/schema.ts';
import { GOLDEN_MATCH_RULE, GoldenSet } from '../traces/golden.ts';
import { traceQuestions } from '../traces/questions.ts';
import { readTraceCases } from '../traces/sample.ts';
import { writeFileAtomic } from '../util/fs.ts';
import { type CliIO, existingPath } from './io.ts';

export interface TracesQuestionsFlags {
  cases: string;
  out: string;
  golden?: string;
}

/** `rge traces questions` (options in traces-window-commands.ts). */
export async function tracesQuestionsAction(flags: TracesQuestionsFlags, io: CliIO): Promise<void> {
  const casesFile = existingPath(io.cwd, '--cases', flags.cases);
  const golden =
    flags.golden === undefined
      ? null
      : new GoldenSet(
          (await loadQuestions(existingPath(io.cwd, '--golden', flags.golden))).map((r) => r.value),
        );
  const questions = traceQuestions(await readTraceCases(casesFile), golden);
  const out = resolve(io.cwd, flags.out);
  await writeFileAtomic(
    out,
    questions.map((q) => `${JSON.stringify(q)}\n`),
  );
  const withGold = questions.filter(hasGold).length;
  io.out(
    `${questions.length} logged question(s) written to ${relative(io.cwd, out) || out}: ` +
      `${withGold} with the gold of a golden question, ${questions.length - withGold} with none (correctness not judged)\n` +
      (golden === null ? 'no --golden: no question has gold\n' : `golden match: ${GOLDEN_MATCH_RULE}\n`),
  );
}
