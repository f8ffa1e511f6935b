/**
 * Logged traces as a subject (`provider: logged-traces`, issue 56): a system whose answers are already
 * recorded. Asked a question, it gives the logged case of that question (by the question's id,
 * `trace-00001` for the first case of cases.jsonl, as `readTraceCases` numbers them): the application's
 * answer and the contexts its retriever returned, with nothing called and no cost of rge's (the cost the
 * application logged is its own, not the run's). The run judges it as any system: against its own
 * contexts. A question of another id, or whose text is not the logged question, is an error naming both:
 * the questions file is not the one written from these cases (`rge traces questions`).
 */
import { normaliseWhitespace } from '../questions/load.ts';
import type { SystemAnswer, SystemQuestion, SystemUnderTest } from '../system/contract.ts';
import { RgeError } from '../util/errors.ts';
import { type NumberedCase, readTraceCases } from './sample.ts';

export const LOGGED_TRACES_KIND = 'logged-traces';

/** The logged answer, with its own cost left out: the run spends nothing on it. */
function loggedAnswer(c: NumberedCase): SystemAnswer {
  const { cost_usd: _applicationCost, ...answer } = c.case.answer;
  return answer;
}

/** The system of a cases file's logged answers, looked up by question id. */
export function loggedTracesSystem(file: string, cases: readonly NumberedCase[]): SystemUnderTest {
  const byId = new Map(cases.map((c) => [c.questionId, c]));
  return {
    kind: LOGGED_TRACES_KIND,
    async answer(question: SystemQuestion): Promise<SystemAnswer> {
      const c = byId.get(question.id);
      if (c === undefined)
        throw new RgeError(
          `no logged case ${question.id} in ${file} (${cases.length} cases): write the questions file from these cases (rge traces questions)`,
        );
      const same = (t: string) => normaliseWhitespace(t).toLowerCase();
      if (same(c.case.question) !== same(question.text))
        throw new RgeError(
          `${question.id}: the question asked is not the one logged at line ${c.line} of ${file} (trace ${c.case.trace_id}): ` +
            'write the questions file from these cases (rge traces questions)',
        );
      return loggedAnswer(c);
    },
  };
}

/** The logged-traces system of a cases file (read once, each bad line an error naming it). */
export async function openLoggedTraces(file: string): Promise<SystemUnderTest> {
  return loggedTracesSystem(file, await readTraceCases(file));
}
