/**
 * Inter-judge agreement (methodology 8.4): per subject, Cohen's kappa between its two judges, the mean over
 * subjects, and per pair of judges on the whole run and on the labelled responses; then the same on the
 * ordinal scale (src/report/diagnostics.ts). In summary.json, `judgeAgreement`.
 */
import { formatKappa, formatOrdinal, type KappaShown, kappaFootnote } from '../../validation/kappa-format.ts';
import { interJudgeAgreement, type JudgeAgreement, type KappaCell as KappaCellView } from '../diagnostics.ts';
import type { ReportSection } from '../section.ts';
import { tableHead } from './format.ts';

export interface AgreementData {
  /** per subject (its two judges), then averaged over subjects; beside the same on the labelled responses */
  judgeAgreement: JudgeAgreement;
}

const DIMS = ['correctness', 'grounding', 'calibration'] as const;

function agreementSection(s: AgreementData): string[] {
  const a = s.judgeAgreement;
  const out: string[] = ['## Inter-judge agreement', ''];
  out.push(
    "Per subject, Cohen's kappa between its two judges (its cross-family panel) over its responses, and the mean over subjects (methodology 8.4's figure). Then per pair of judges, pooled over the subjects it judged: on the whole run, and on the responses people labelled (the same figure `rge judge audit` prints); a difference above 0.15 between the two is flagged.",
    '',
  );
  out.push(...tableHead(['figure', 'judges', ...DIMS, 'n']));
  const row = (what: string, judges: string, cells: Record<string, KappaShown>, note = (_d: string) => '') =>
    `| ${what} | ${judges} | ${DIMS.map((d) => `${formatKappa(cells[d] as KappaShown)}${note(d)}`).join(' | ')} | ${cells.correctness?.n ?? 0} |`;
  for (const [subject, x] of Object.entries(a.bySubject))
    out.push(row(`subject ${subject}`, x.judges.join(' / '), x.dimensions));
  out.push(row('**mean over subjects**', '', a.mean));
  for (const p of a.byPair) {
    out.push(row(`pair, whole run (${p.subjects.join(', ')})`, p.judges.join(' / '), p.main));
    if (p.labelled)
      out.push(
        row('pair, labelled responses', p.judges.join(' / '), p.labelled, (d) =>
          p.divergent.includes(d as never) ? ' ⚠ diverges' : '',
        ),
      );
  }
  out.push(
    '',
    `${kappaFootnote('n the responses both judges scored')} The mean's interval comes from the same resamples of questions, each subject's kappa recomputed on them.`,
    '',
  );
  out.push(...ordinalAgreementTable(a));
  return out;
}

/** The same rows on the ordinal scale: quadratic-weighted kappa / ordinal alpha (recorded beside kappa). */
function ordinalAgreementTable(a: JudgeAgreement): string[] {
  const out = [
    "The same figures on the ordinal scale, where a 0-vs-2 disagreement costs more than a 1-vs-2 one: quadratic-weighted kappa / Krippendorff's ordinal alpha, each with its BCa 95% interval (same resamples and seed). Recorded beside Cohen's kappa, which stays the pre-registered figure.",
    '',
    ...tableHead(['figure', 'judges', ...DIMS]),
  ];
  type Cells = Record<string, KappaCellView>;
  const row = (what: string, judges: string, cells: Cells) =>
    `| ${what} | ${judges} | ${DIMS.map((d) => {
      const c = cells[d];
      return c ? `${formatOrdinal(c.n, c.quadraticKappa)} / ${formatOrdinal(c.n, c.alpha)}` : 'n/a';
    }).join(' | ')} |`;
  for (const [subject, x] of Object.entries(a.bySubject))
    out.push(row(`subject ${subject}`, x.judges.join(' / '), x.dimensions));
  out.push(row('**mean over subjects**', '', a.mean));
  for (const p of a.byPair) {
    out.push(row(`pair, whole run (${p.subjects.join(', ')})`, p.judges.join(' / '), p.main));
    if (p.labelled) out.push(row('pair, labelled responses', p.judges.join(' / '), p.labelled));
  }
  out.push('');
  return out;
}

const section: ReportSection<AgreementData> = {
  id: 'agreement',
  place: 'below',
  compute: (c) => ({ judgeAgreement: interJudgeAgreement(c.bySubject, c.opts.validation?.labels ?? []) }),
  render: agreementSection,
};
export default section;
