/**
 * Logged questions as candidates (issue 56): `rge questions from-traces` over logged cases and the
 * documents they came from. A trace whose answer a retrieved sentence supports becomes a question that
 * the validator passes, its quote found in the documents; a trace whose answer no retrieved sentence
 * supports, one that declined, and one whose passage is not in the documents give no candidate, each
 * named in the report with the reason; a logged question that states its own answer is rejected.
 */
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TraceCase } from '../../../src/traces/case.ts';
import { runRge } from '../../helpers/cli.ts';
import { scratchDirs } from '../../helpers/scratch.ts';

const ROOT = join(import.meta.dirname, '../../..');
const scratch = scratchDirs('rge-from-traces-');

function trace(id: string, question: string, answer: string, contexts: string[]): TraceCase {
  return {
    trace_id: id,
    question,
    answer: { answer, contexts: contexts.map((text, i) => ({ id: `${id}-ctx-${i}`, text })) },
    started_at: '2026-12-01T10:00:00Z',
    fields: { route: 'docs-bot', day: '2026-12-01' },
    origin: { file: 'cases.jsonl', format: 'contract', line: 1 },
  };
}

const run = (cwd: string, ...args: string[]) => runRge(cwd, 'questions', ...args);

describe('rge questions from-traces', () => {
  it('turns a supported logged answer into a verified question, and names every trace it cannot use', async () => {
    const cwd = scratch();
    await mkdir(join(cwd, 'docs'), { recursive: true });
    for (const f of ['api-limits.md', 'security.md'])
      await copyFile(join(ROOT, 'fixtures/documents', f), join(cwd, 'docs', f));
    const cases = [
      trace(
        'a1',
        'What is the largest file an upload may carry?',
        'Uploads can carry files of up to 250 MB [a1-ctx-0].',
        ['The largest file an upload may carry is 250 MB.', 'Attachments must be PDF, PNG or JPEG.'],
      ),
      trace(
        'b2',
        'How many requests per minute does the Free plan allow?',
        'The Free plan allows 90 requests per minute.',
        ['Limits apply per token and are counted over a sliding window of 60 seconds.'],
      ),
      trace(
        'c3',
        'What is the refund policy for API tokens?',
        'I cannot answer that from the documentation.',
        [],
      ),
      trace('d4', 'How many transactions can a bulk import hold?', 'Up to 50,000 transactions per file.', [
        'A bulk import accepts up to 50,000 transactions per file.',
      ]),
      trace('e5', 'Is the upload limit of 250 MB per file?', 'Yes: 250 MB.', [
        'The largest file an upload may carry is 250 MB.',
      ]),
    ];
    await writeFile(join(cwd, 'cases.jsonl'), cases.map((c) => JSON.stringify(c)).join('\n'));
    const r = await run(
      cwd,
      'from-traces',
      '--cases',
      'cases.jsonl',
      '--documents',
      'docs',
      '--out',
      'q/logged.jsonl',
      '--similarity',
      'lexical',
    );
    expect(r.code).toBe(0);
    const questions = (await readFile(join(cwd, 'q/logged.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(questions).toHaveLength(1);
    expect(questions[0]).toMatchObject({
      text: 'What is the largest file an upload may carry?',
      gold_answer: 'Uploads can carry files of up to 250 MB.',
      gold_quotes: ['The largest file an upload may carry is 250 MB.'],
      provenance: {
        generator: { kind: 'logged', id: 'logged-traces/cases.jsonl' },
        seed_set: false,
        review: 'unreviewed',
      },
    });
    const v = await run(cwd, 'validate', '--questions', 'q/logged.jsonl', '--index', 'q/logged.index');
    expect(v.code).toBe(0);
    const report = JSON.parse(await readFile(join(cwd, 'q/logged.report.json'), 'utf8'));
    const problems = new Map<string, string>(
      report.problems.map((p: { task: string; message: string }) => [p.task, p.message]),
    );
    expect(problems.get('trace b2')).toMatch(
      /no sentence of the retrieved contexts supports the logged answer/,
    );
    expect(problems.get('trace c3')).toMatch(/the application declined/);
    expect(problems.get('trace d4')).toMatch(/is not in the documents/);
    const rejected = (await readFile(join(cwd, 'q/logged.rejected.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rejected.map((x) => x.reason)).toEqual(['answer-leaked']);
    expect(report.warnings.join(' ')).toMatch(/a logged answer is what the application said, not the truth/);
  });

  it('names a cases file line that is not a logged case', async () => {
    const cwd = scratch();
    await mkdir(join(cwd, 'docs'), { recursive: true });
    await copyFile(join(ROOT, 'fixtures/documents/security.md'), join(cwd, 'docs/security.md'));
    await writeFile(
      join(cwd, 'cases.jsonl'),
      `${JSON.stringify(trace('a1', 'q?', 'a', []))}\n{"trace_id": "x"}\n`,
    );
    const r = await run(
      cwd,
      'from-traces',
      '--cases',
      'cases.jsonl',
      '--documents',
      'docs',
      '--out',
      'q/x.jsonl',
    );
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/cases\.jsonl:2/);
  });
});
