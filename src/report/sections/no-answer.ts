/**
 * Under the failing cases by kind, the cases the subjects gave no answer for: not among the kinds (there
 * is no answer to classify), scored 0 in the ranking, their reasons under Errors. Computes nothing of its
 * own: the counts are the header's and the first screen's.
 */
import type { ReportSection } from '../section.ts';
import type { AnswerData } from './answer.ts';
import type { HeaderData } from './header.ts';

function noAnswerLines(s: HeaderData & AnswerData): string[] {
  const failed = s.models.filter((m) => (s.outcomes[m]?.failed ?? 0) > 0);
  if (failed.length === 0) return [];
  return [
    `Besides these, the subjects gave no answer for ${s.cases.failed.toLocaleString('en')} case${s.cases.failed === 1 ? '' : 's'}, their own failure${s.cases.failed === 1 ? '' : 's'} (a crash, a timeout, a non-zero exit, a malformed reply, an HTTP error, a contract violation), scored 0 in the ranking, each listed under Errors with its reason: ${failed.map((m) => `${m} ${(s.outcomes[m]?.failed ?? 0).toLocaleString('en')}`).join(', ')}.`,
    '',
  ];
}

const section: ReportSection<object, HeaderData & AnswerData> = {
  id: 'no-answer',
  place: 'below',
  render: noAnswerLines,
};
export default section;
