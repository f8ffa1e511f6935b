/** The deterministic checks' pass rates per subject, where each applies. In summary.json, `checkPassRates`. */
import { type CheckRate, checkPassRates } from '../operations.ts';
import type { ReportSection } from '../section.ts';
import type { HeaderData } from './header.ts';

export interface ChecksData {
  checkPassRates: Record<string, Record<string, CheckRate>>;
}

function checksSection(s: ChecksData & Pick<HeaderData, 'models'>): string[] {
  const names = [...new Set(Object.values(s.checkPassRates).flatMap((r) => Object.keys(r)))].sort();
  const passRate = (m: string, name: string) => {
    const r = s.checkPassRates[m]?.[name];
    return r?.rate === null || r === undefined ? 'n/a' : `${(100 * r.rate).toFixed(1)}% (${r.applicable})`;
  };
  return [
    '## Deterministic checks (pass rate where applicable)',
    '',
    // no tableHead: with no check, the header keeps an empty column
    `| subject | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---').join('|')}|`,
    ...s.models.map((m) => `| ${m} | ${names.map((n) => passRate(m, n)).join(' | ')} |`),
    '',
  ];
}

const section: ReportSection<ChecksData, ChecksData & Pick<HeaderData, 'models'>> = {
  id: 'checks',
  place: 'below',
  compute: (c) => ({ checkPassRates: checkPassRates(c.bySubject) }),
  render: checksSection,
};
export default section;
