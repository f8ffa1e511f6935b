/**
 * `rge questions generate` on real filings (../shared/corpus/indian), in process: the offline generator
 * on three small ones (a condensed IndAS statement and two earnings-call transcripts) writes a set that
 * `rge questions validate` passes, with questions quoting each of the three, every quote located on a
 * page. Skipped, saying so, where ../shared is absent. The three are read in a few seconds (their
 * pages come from the repository's cache on a second run).
 */
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { QuestionInput } from '../../../src/questions/schema.ts';
import { runRge } from '../../helpers/cli.ts';
import { scratchDirs } from '../../helpers/scratch.ts';
import { repoCacheDir, SHARED_ABSENT, sharedCorpus } from '../../helpers/shared.ts';

const FILINGS = [
  'Infosys_Q4FY24_Condensed_Consolidated_IndAS_FS.pdf',
  'concall_apollo_hospitals_Q3FY25.pdf',
  'concall_Adani_total_gas_Q3FY25.pdf',
];
const scratch = scratchDirs('rge-generate-shared-');
const title = `the offline generator on three real filings${sharedCorpus ? '' : ` (${SHARED_ABSENT})`}`;

describe.skipIf(sharedCorpus === null)(title, () => {
  it('writes a set the validator passes, with questions quoting each of the three filings', async () => {
    const cwd = scratch();
    await mkdir(join(cwd, 'filings'), { recursive: true });
    for (const f of FILINGS)
      await copyFile(join(sharedCorpus as string, 'indian', f), join(cwd, 'filings', f));
    const r = await runRge(
      cwd,
      'questions',
      'generate',
      '--documents',
      'filings',
      '--out',
      'q.jsonl',
      '--count',
      '20',
      '--similarity',
      'lexical',
      '--cache-dir',
      repoCacheDir,
    );
    expect(r.err).toMatch(/^rge: 3 document\(s\), \d+ chunks indexed in q\.index$/m);
    expect(r.code).toBe(0);
    const questions = (await readFile(join(cwd, 'q.jsonl'), 'utf8'))
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as QuestionInput);
    expect(questions.length).toBeGreaterThanOrEqual(12);
    const validate = await runRge(
      cwd,
      'questions',
      'validate',
      '--questions',
      'q.jsonl',
      '--index',
      'q.index',
    );
    expect(validate.out).toContain(`valid ${questions.length}, invalid 0`);
    expect(validate.code).toBe(0);
    const locations = questions.flatMap((q) => q.gold_quote_locations ?? []);
    expect(new Set(locations.map((l) => l.document))).toEqual(new Set(FILINGS));
    // a PDF's quote is located on its page
    expect(locations.every((l) => l.resolved && typeof l.page === 'number' && l.page >= 1)).toBe(true);
    expect(questions.every((q) => q.provenance?.seed_set === true)).toBe(true);
  });
});
