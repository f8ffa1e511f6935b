/**
 * Evidence: per subject and category, how much of the questions' gold evidence the passages each subject
 * answered from held, and the failing cases by cause (src/report/evidence.ts). In summary.json, `evidence`.
 */
import { type EvidenceSection, evidenceSection, FAILING_BELOW } from '../evidence.ts';
import type { ReportSection } from '../section.ts';
import { tableHead } from './format.ts';

export interface EvidenceData {
  /** per subject and category, the gold evidence its passages held; its failing cases by cause */
  evidence: EvidenceSection | null;
}

const pct = (x: number | null) => (x === null ? 'n/a' : `${(100 * x).toFixed(1)}%`);

/** The section's markdown: recall per subject and category, then the failing cases by cause. */
function evidenceMarkdown({ evidence: e }: EvidenceData): string[] {
  if (!e) return [];
  const out = [
    '## Evidence: what each subject answered from',
    '',
    "The share of a question's gold evidence (its gold quotes and the figures they print; a figure computed from them, such as a difference, is not evidence) that the passages the subject answered from held: rge's top-k for a model in rge's pipeline, a system's own contexts for a system. Questions without gold evidence are left out.",
    '',
    ...tableHead(['subject', 'category', 'cases', 'mean evidence recall', 'all evidence', 'none']),
  ];
  for (const subject of Object.keys(e.bySubject).sort())
    for (const [category, c] of Object.entries(e.bySubject[subject] ?? {}).sort(([a], [b]) =>
      a.localeCompare(b),
    ))
      out.push(`| ${subject} | ${category} | ${c.cases} | ${pct(c.meanRecall)} | ${c.all} | ${c.none} |`);
  out.push(
    '',
    `Failing cases (correctness or grounding below ${FAILING_BELOW}) by cause: a retrieval miss when no gold evidence reached the subject, a partial retrieval when some did, a generation failure when all of it did.`,
    '',
    ...tableHead(['subject', 'failing', 'retrieval miss', 'partial retrieval', 'generation failure']),
  );
  for (const [subject, f] of Object.entries(e.failures).sort(([a], [b]) => a.localeCompare(b)))
    out.push(
      `| ${subject} | ${f.failing} | ${f['retrieval miss']} | ${f['partial retrieval']} | ${f['generation failure']} |`,
    );
  out.push('');
  return out;
}

const section: ReportSection<EvidenceData> = {
  id: 'evidence',
  place: 'below',
  compute: (c) => ({ evidence: evidenceSection(c.rows) }),
  render: evidenceMarkdown,
};
export default section;
