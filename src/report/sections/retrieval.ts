/**
 * Retrieval: per category, the questions with a gold chunk in the top k. Computes nothing of its own: the
 * figures are the diagnostics' (the errors section computes them).
 */
import type { ReportSection } from '../section.ts';
import type { ErrorsData } from './errors.ts';
import { tableHead } from './format.ts';

function retrievalSection(s: ErrorsData): string[] {
  const r = s.diagnostics.retrieval;
  const cats = Object.keys(r).sort();
  if (cats.length === 0) return [];
  const out = ['## Retrieval: a gold chunk in the top k', ''];
  out.push(
    'Per question (the same chunks for every subject and run); out-of-domain questions have no gold chunk.',
    '',
  );
  out.push(...tableHead(['category', 'questions', 'gold in top k', 'hit rate']));
  for (const c of cats) {
    const x = r[c] as { questions: number; hits: number; rate: number | null };
    out.push(
      `| ${c} | ${x.questions} | ${x.hits} | ${x.rate === null ? 'n/a' : `${(100 * x.rate).toFixed(1)}%`} |`,
    );
  }
  out.push('');
  return out;
}

const section: ReportSection<object, ErrorsData> = {
  id: 'retrieval',
  place: 'below',
  render: retrievalSection,
};
export default section;
