/**
 * What each subject's cases cost, with and without prompt caching, and their tokens. In summary.json,
 * `caching`.
 */
import { type Caching, caching } from '../operations.ts';
import type { ReportSection } from '../section.ts';
import { tableHead } from './format.ts';
import type { HeaderData } from './header.ts';

export interface CachingData {
  /** per subject: the cost of its cases' calls (answers and verdicts), without caching, and tokens */
  caching: Record<string, Caching>;
}

function cachingSection(s: CachingData & Pick<HeaderData, 'models'>): string[] {
  const n = (x: number) => x.toLocaleString('en');
  const rows = s.models.flatMap((m) => {
    const c = s.caching[m];
    return c
      ? [
          `| ${m} | ${c.costUsd.toFixed(4)} | ${c.uncachedUsd.toFixed(4)} | ${c.savedUsd.toFixed(4)} | ${n(c.tokens.inputTokens)} | ${n(c.tokens.cacheReadTokens)} | ${n(c.tokens.cacheWriteTokens)} | ${n(c.tokens.outputTokens)} | ${(100 * c.batchShare).toFixed(0)}% |`,
        ]
      : [];
  });
  return [
    '## Cost and prompt caching',
    '',
    "Cost of each subject's cases (its answers and both judges' verdicts), at the catalogue's prices; 'without caching' prices every cached token at the input price, so the difference is what caching saved.",
    '',
    ...tableHead([
      'subject',
      'cost USD',
      'without caching',
      'saved',
      'input tokens',
      'cache read',
      'cache write',
      'output tokens',
      'batch',
    ]),
    ...rows,
    '',
  ];
}

const section: ReportSection<CachingData, CachingData & Pick<HeaderData, 'models'>> = {
  id: 'caching',
  place: 'below',
  compute: (c) => ({ caching: caching(c.bySubject) }),
  render: cachingSection,
};
export default section;
