/**
 * The judge-error-corrected GFS beside the judges' (prediction-powered inference from the people's labels
 * of the validation sample: src/report/corrected.ts); a note when no response of the run is labelled.
 * In summary.json, `corrected`.
 */
import { figureText } from '../../util/figure.ts';
import { type CorrectedCell, type CorrectedGfs, correctedGfs } from '../corrected.ts';
import { ALL } from '../scores.ts';
import type { ReportSection } from '../section.ts';
import { f3 } from './format.ts';

export interface CorrectedData {
  /** the judge-error-corrected GFS from the people's labels (prediction-powered inference) */
  corrected: CorrectedGfs;
}

function correctedText(c: CorrectedCell): string {
  if (c.estimate === null) return `n/a (${c.reason})`;
  return `${f3(c.estimate)} [${f3(c.low)}, ${f3(c.high)}]${c.excludesJudgeOnly ? ' ⚠ excludes the judges' : ''}`;
}

/** The corrected GFS table with its explanation; a note when no response of the run is labelled. */
function correctedSection(s: CorrectedData): string[] {
  const k = s.corrected;
  const out = ['## Judge-error-corrected GFS (prediction-powered inference)', ''];
  const subjects = Object.keys(k.bySubject);
  if (subjects.length === 0) {
    out.push(
      'No scored response of this run has a human label, so the judges\u2019 GFS is not corrected for their error. Draw the validation sample (`rge validation sample`) and label it (`rge validation label`) to get it.',
      '',
    );
    return out;
  }
  out.push(
    `The GFS above is the judges'. The judges are imperfect (table 5.5), so it may sit above or below what people would score. Here the people's GFS of the ${k.labelled} labelled responses (their rubric scores, averaged over labellers, with the same weights) corrects the judges' mean over every scored cell: corrected = \u03bb \u00d7 (judges' mean over all cells) + (weighted mean over the labelled cells of people \u2212 \u03bb \u00d7 judges), with \u03bb tuned to make the interval as narrow as the data allow (PPI++; \u03bb = 0 would use the people's scores alone, \u03bb = 1 trusts the judges' ranking of cells fully). The validation sample is stratified by category (10/10/20/10) and proportional across subjects, so each labelled cell is weighted by its inclusion probability (its category's share of the subject's cells over its share of the labelled ones) and the estimate targets the whole run. The ${figureText(100 * (1 - k.alpha))}% interval is a normal interval whose standard error counts runs of one question as one cluster. Read it as the range of GFS people would plausibly give this run: it is wider than the judge-only interval because it also carries the uncertainty about the judges' error, and it is trustworthy only as far as the labelled cells are a fair, honestly labelled sample. **A subject whose corrected interval excludes its judge-only GFS is flagged (⚠): the judges' error moves its score by more than noise.** Categories are shown where a subject has at least ${k.minLabelledPerCategory} labelled cells.`,
    '',
  );
  const categories = [
    ...new Set(subjects.flatMap((m) => Object.keys(k.bySubject[m] ?? {}).filter((c) => c !== ALL))),
  ].sort();
  const columns = [ALL, ...categories];
  out.push(`| subject | | ${columns.join(' | ')} |`, `|---|---|${columns.map(() => '---').join('|')}|`);
  for (const m of subjects) {
    const cells = k.bySubject[m] ?? {};
    const row = (label: string, text: (c: CorrectedCell) => string) =>
      `| ${label === 'judge-only' ? m : ''} | ${label} | ${columns.map((c) => (cells[c] ? text(cells[c]) : '')).join(' | ')} |`;
    out.push(
      row('judge-only', (c) => f3(c.judgeOnly)),
      row('corrected', correctedText),
      row('labelled / cells', (c) => `${c.labelled} / ${c.cells} (\u03bb ${f3(c.lambda)})`),
    );
  }
  const flagged = subjects.filter((m) => k.bySubject[m]?.[ALL]?.excludesJudgeOnly);
  const flaggedCategories = subjects.flatMap((m) =>
    categories.filter((c) => k.bySubject[m]?.[c]?.excludesJudgeOnly).map((c) => `${m} (${c})`),
  );
  out.push(
    '',
    flagged.length > 0
      ? `Flagged: ${flagged.join(', ')} (the corrected interval excludes the judge-only GFS).`
      : "No subject's corrected interval (all categories together) excludes its judge-only GFS.",
  );
  if (flaggedCategories.length > 0) out.push(`In a category: ${flaggedCategories.join(', ')}.`);
  out.push('');
  return out;
}

const section: ReportSection<CorrectedData> = {
  id: 'corrected',
  place: 'below',
  compute: (c) => ({
    corrected: correctedGfs(c.bySubject, c.opts.validation?.labels ?? [], c.opts.gfsWeights),
  }),
  render: correctedSection,
};
export default section;
