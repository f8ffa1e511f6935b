/**
 * Fills a results folder with many runs fast, for the scale bench (issue 41: "the fixture world's
 * answers replayed or its runs multiplied; no model calls"): a folder whose cell stores hold runs
 * 0..from-1 of some questions (a real cold `rge eval run --runs <from>`) gets runs from..to-1 appended,
 * run r replaying run (r mod from): the same answer (text, usage, retrieval) under run index r, and each
 * of its verdicts and its checks (what the checks stage stored for it: the same text, question and
 * passages) under the new answer's key. A judge's request does not hold the run index (the judge
 * sees the question, the passages and the answer: src/run/session/work.ts `verdictCellOf`), so a replayed
 * verdict's request hash is its source's and the warm run finds every cell by the keys it computes
 * itself (answerKey, verdictKey, checkKey); the bench asserts that every case is reused. The replayed
 * answers equal their base run's, so the runs are not independent samples: the figures are of cost, not
 * statistics.
 *
 * Records are written run by run in one append per store file, never the whole store in memory: the
 * source records (runs < from) are read once.
 */
import { appendFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  AnswerRecord,
  answerKey,
  CheckRecord,
  checkKey,
  VerdictRecord,
  verdictKey,
} from '../src/store/cells.ts';
import { scanLines } from '../src/store/jsonl.ts';
import { resultsLayout } from '../src/store/layout.ts';

function readAll<T>(file: string, parse: (json: unknown) => T): T[] {
  const out: T[] = [];
  scanLines(file, 0, Number.MAX_SAFE_INTEGER, (raw) => out.push(parse(JSON.parse(raw))));
  return out;
}

const jsonlIn = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort();

/** Appends runs from..to-1 to every answer store of `resultsDir`, with their verdicts. Returns the answers added. */
export function multiplyRuns(resultsDir: string, { from, to }: { from: number; to: number }): number {
  if (!(Number.isInteger(from) && from >= 1 && Number.isInteger(to) && to >= from))
    throw new RangeError(`multiplyRuns: need 1 <= from <= to, got from ${from}, to ${to}`);
  const layout = resultsLayout(resultsDir);
  const verdictDir = layout.cells('verdicts');
  // the verdicts of each source answer, by its key: [store file, record]
  const verdictsOf = new Map<string, [string, VerdictRecord][]>();
  for (const file of jsonlIn(verdictDir))
    for (const v of readAll(join(verdictDir, file), (j) => VerdictRecord.parse(j))) {
      const list = verdictsOf.get(v.identity.answer_key) ?? [];
      list.push([file, v]);
      verdictsOf.set(v.identity.answer_key, list);
    }
  const answerDir = layout.cells('answers');
  const checkDir = layout.cells('checks');
  let added = 0;
  for (const file of jsonlIn(answerDir)) {
    const base = readAll(join(answerDir, file), (j) => AnswerRecord.parse(j)).filter(
      (a) => a.identity.run_index < from,
    );
    // the checks of each source answer (the cold run's checks stage stored them), by its key
    const checksFile = join(checkDir, file);
    const checksOf = new Map(
      (existsSync(checksFile) ? readAll(checksFile, (j) => CheckRecord.parse(j)) : []).map((c) => [
        c.identity.answer_key,
        c,
      ]),
    );
    for (let r = from; r < to; r++) {
      const answers: string[] = [];
      const checks: string[] = [];
      const verdicts = new Map<string, string[]>();
      for (const a of base) {
        if (a.identity.run_index !== r % from) continue;
        const identity = { ...a.identity, run_index: r };
        const answer = AnswerRecord.parse({ ...a, identity, key: answerKey(identity) });
        answers.push(JSON.stringify(answer));
        const c = checksOf.get(a.key);
        if (c) {
          const cIdentity = { ...c.identity, answer_key: answer.key };
          checks.push(
            JSON.stringify(CheckRecord.parse({ ...c, identity: cIdentity, key: checkKey(cIdentity) })),
          );
        }
        for (const [store, v] of verdictsOf.get(a.key) ?? []) {
          const vIdentity = { ...v.identity, answer_key: answer.key };
          const verdict = VerdictRecord.parse({ ...v, identity: vIdentity, key: verdictKey(vIdentity) });
          const lines = verdicts.get(store) ?? [];
          lines.push(JSON.stringify(verdict));
          verdicts.set(store, lines);
        }
      }
      if (answers.length > 0) appendFileSync(join(answerDir, file), `${answers.join('\n')}\n`);
      if (checks.length > 0) appendFileSync(checksFile, `${checks.join('\n')}\n`);
      for (const [store, lines] of verdicts) appendFileSync(join(verdictDir, store), `${lines.join('\n')}\n`);
      added += answers.length;
    }
  }
  return added;
}
