/**
 * Where the models fail, by kind (the second screen): the counts of each failure kind per subject, then
 * one example of each kind seen (src/report/failures.ts says what a kind is). In summary.json, `failures`.
 */
import { FAILING_BELOW } from '../evidence.ts';
import {
  FAILURE_KIND_MEANING,
  type FailureExample,
  type FailureKind,
  type FailureKinds,
  failureKinds,
} from '../failures.ts';
import type { ReportSection } from '../section.ts';
import { oneLine } from './format.ts';

export interface FailureKindsData {
  /** the failing cases by kind (one kind each, in a stated precedence), per subject, one example a kind */
  failures: FailureKinds;
}

/** The question, what it expected, then the gold answer and each gold quote on lines of their own. */
export function questionLines(q: NonNullable<FailureExample['question']>): string[] {
  return [
    `Question: ${oneLine(q.text)} Expected: ${q.expected_behavior}.`,
    '',
    q.gold_answer === ''
      ? 'Gold answer: none (a logged trace no golden question matched: correctness not judged)'
      : `Gold answer: ${oneLine(q.gold_answer)}`,
    '',
    ...(q.gold_quotes.length > 0
      ? ['Gold quotes:', '', ...q.gold_quotes.map((x) => `- "${oneLine(x)}"`), '']
      : []),
  ];
}

function exampleLines(kind: FailureKind, count: number, e: FailureExample): string[] {
  return [
    `### ${kind}: ${count.toLocaleString('en')} case${count === 1 ? '' : 's'}; for example ${e.cell} (${e.category}, GFS ${e.gfs === null ? 'unscored' : e.gfs.toFixed(3)})`,
    '',
    ...(e.question ? questionLines(e.question) : []),
    'Answer:',
    '',
    `> ${oneLine(e.answer) || '(empty answer)'}`,
    '',
    `Why ${kind}: ${oneLine(e.why)}.`,
    '',
  ];
}

/** The section's markdown: the counts of each kind per subject, then one example of each kind seen. */
export function failureKindsMarkdown(f: FailureKinds): string[] {
  const subjects = Object.keys(f.bySubject).sort();
  if (subjects.length === 0) return [];
  const total = (pick: (x: FailureKinds['bySubject'][string]) => number) =>
    subjects.reduce((sum, m) => sum + pick(f.bySubject[m] as FailureKinds['bySubject'][string]), 0);
  const failingAll = total((x) => x.failing);
  const n = (x: number) => x.toLocaleString('en');
  const out = [
    '## Where the models fail, by kind',
    '',
    `${n(failingAll)} of ${n(total((x) => x.cases))} cases fail: unscored, or mean correctness or grounding below ${FAILING_BELOW} of 2. Each failing case is counted once, under the first kind in this table's order that applies to it.`,
    '',
    `| kind | ${subjects.join(' | ')} | all | what it means |`,
    `|---|${subjects.map(() => '---:').join('|')}|---:|---|`,
  ];
  for (const k of f.precedence)
    out.push(
      `| ${k} | ${subjects.map((m) => n(f.bySubject[m]?.kinds[k] ?? 0)).join(' | ')} | ${n(total((x) => x.kinds[k]))} | ${FAILURE_KIND_MEANING[k]} |`,
    );
  out.push(
    `| **failing** | ${subjects.map((m) => `**${n(f.bySubject[m]?.failing ?? 0)}** of ${n(f.bySubject[m]?.cases ?? 0)}`).join(' | ')} | **${n(failingAll)}** | |`,
    '',
  );
  for (const k of f.precedence) {
    const e = f.examples[k];
    if (e)
      out.push(
        ...exampleLines(
          k,
          total((x) => x.kinds[k]),
          e,
        ),
      );
  }
  return out;
}

const section: ReportSection<FailureKindsData> = {
  id: 'failure-kinds',
  place: 'below',
  compute: (c) => ({ failures: failureKinds(c.rows) }),
  render: (s) => failureKindsMarkdown(s.failures),
};
export default section;
