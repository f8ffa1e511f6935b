/**
 * How often the lexical judge's grounding evidence misses the claim it evidences (issue 39, defect 1).
 * Over a run's stored rows: of the lexical judge's grounding-2 verdicts, those in which some answer
 * sentence that states numbers has no quote holding all of its numbers (as content words). Before the
 * fix the quote was often the sentence before the supporting one.
 *
 *   npx tsx scripts/lexical-quotes.ts [results-dir] [run-id]     (defaults: data/results, newest run)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contentWords, isRefusal, sentences, stripCitations } from '../src/analysis/index.ts';
import { derivedFrom, statedDecimals } from '../src/judging/heuristic/common.ts';
import { LEXICAL_JUDGE_ID } from '../src/judging/heuristic/index.ts';

interface Row {
  question_id: string;
  subject_id: string;
  answer: string;
  verdicts?: { judgeId: string; verdict?: { grounding: { score: number; evidence: string[] } } }[];
}

const dir = process.argv[2] ?? 'data/results';
const files = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
const run =
  process.argv[3] ??
  files
    .map((f) => f.slice(f.indexOf('_') + 1, -'.jsonl'.length))
    .sort()
    .at(-1);
const numbers = (text: string) => contentWords(text).filter((w) => /^\d/.test(w));

let graded2 = 0;
let missed = 0;
const examples: string[] = [];
for (const file of files.filter((f) => f.endsWith(`_${run}.jsonl`))) {
  for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const row = JSON.parse(line) as Row;
    const v = row.verdicts?.find((x) => x.judgeId === LEXICAL_JUDGE_ID)?.verdict;
    if (v?.grounding.score !== 2 || isRefusal(row.answer)) continue;
    graded2++;
    const quoted = v.grounding.evidence.map(numbers);
    // A number is held by a quote that writes it, or from which it is one arithmetic step (as the judge reads).
    const holds = (q: string[], n: string) =>
      q.includes(n) || derivedFrom(Number(n), statedDecimals(n), q.map(Number));
    const claims = sentences(stripCitations(row.answer), { lines: true })
      .map(numbers)
      .filter((n) => n.length > 0);
    const miss = claims.find((ns) => !quoted.some((q) => ns.every((n) => holds(q, n))));
    if (miss) {
      missed++;
      if (examples.length < 3)
        examples.push(
          `${row.subject_id}/${row.question_id}: [${miss.join(', ')}] quoted as ${JSON.stringify(v.grounding.evidence)}`,
        );
    }
  }
}
console.log(
  `run ${run}: ${missed} of ${graded2} lexical grounding-2 verdicts quote no sentence holding a claim's figures (as written or one step away)`,
);
for (const e of examples) console.log(`  e.g. ${e}`);
