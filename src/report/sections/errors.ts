/**
 * The cases without a result, with their reasons (a subject's own failure marked so). In summary.json,
 * `diagnostics`: retrieval hit@k, the worst and contested cases in detail, the errors and every cell's
 * scores (src/report/diagnostics.ts), which the header, the retrieval and the drill-down sections show too.
 */
import { type Diagnostics, diagnostics } from '../diagnostics.ts';
import type { ReportSection } from '../section.ts';
import { oneLine } from './format.ts';

export interface ErrorsData {
  /** retrieval hit@k, the worst and contested cases in detail, errors, every cell's scores */
  diagnostics: Diagnostics;
}

const cell = oneLine;

function errorsSection(s: ErrorsData): string[] {
  const e = s.diagnostics.errors;
  const out = [`## Errors: ${e.count}`, ''];
  if (e.count === 0) out.push('Every case of the report produced a result.', '');
  else {
    out.push(
      "A case the subject gave no answer for (its own failure, marked so) is scored 0 in the ranking, the pairwise tests and the gate, and its subject's answered-only GFS is on the first screen. Every other case without a result (the run stopped, a judge's call failed, an error) is not scored as zero: it is listed here and left out of every figure above.",
      '',
    );
    for (const x of e.list.slice(0, 100))
      out.push(
        `- ${cell(x.name)}${x.by === 'subject' ? " (the subject's failure: no answer, scored 0)" : ''}: ${cell(x.message)}`,
      );
    if (e.count > 100) out.push(`- ... ${e.count - 100} more in summary.json`);
    out.push('');
  }
  return out;
}

const section: ReportSection<ErrorsData> = {
  id: 'errors',
  place: 'below',
  compute: (c) => ({ diagnostics: diagnostics(c.rows, c.errors, c.failed) }),
  render: errorsSection,
};
export default section;
