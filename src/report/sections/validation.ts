/**
 * The judges against people (table 5.5) and the contested responses with their review; the section's
 * figures and markdown are src/validation/summary.ts's. In summary.json, `validation`.
 */
import { type ValidationSummary, validationMarkdown, validationSummary } from '../../validation/summary.ts';
import type { ReportSection } from '../section.ts';

export interface ValidationData {
  /** table 5.5 (judges against people) and the contested responses with their review */
  validation: ValidationSummary;
}

const section: ReportSection<ValidationData> = {
  id: 'validation',
  place: 'below',
  compute: ({ rows, opts }) => ({
    validation: validationSummary(
      rows,
      opts.validation?.labels ?? [],
      opts.validation?.reviews ?? [],
      opts.validation?.minKappa,
      opts.validation?.limitation ?? null,
    ),
  }),
  render: (s) => validationMarkdown(s.validation),
};
export default section;
