import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.ts';
import { registerJudgeCommands } from '../../src/cli/judge.ts';
import { loadAgreementItems } from '../../src/cli/judge-agree.ts';
import {
  type AgreementFormat,
  agreement,
  attributionBenchItems,
  deterministicSample,
  financeBenchItems,
  formatAgreement,
  judgeItems,
  saladDocsFileName,
  saladItems,
  saladSupported,
  verdictLabel,
} from '../../src/judging/agree.ts';
import type { JudgeOutcome, JudgeVerdict } from '../../src/judging/verdict.ts';
import { heuristicJudge } from '../../src/providers/heuristic/index.ts';

const jsonl = (rows: readonly unknown[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

const MILIRA =
  'Title: Go Outside in the Rain\n\n"Go Outside in the Rain" is a R&B song by Milira released in 1990. The track is from her debut album, Milira.';
const EIFFEL = 'The Eiffel Tower was completed in 1889 for the World Fair in Paris.';

/** people x judge, both judges: grounded/attributable, unsupported/not, and one disagreement each way */
const ATTRIBUTION = jsonl([
  {
    id: 'a1',
    question: 'who sings',
    claim: 'Milira sings the song Go Outside in the Rain.',
    references: [MILIRA],
    attribution_label: 'attributable',
  },
  {
    id: 'a2',
    question: 'when',
    claim: 'The Eiffel Tower was completed in 1889.',
    references: [EIFFEL],
    attribution_label: 'attributable',
  },
  {
    id: 'a3',
    question: 'when',
    claim: 'The Eiffel Tower was completed in 1925.',
    references: [EIFFEL],
    attribution_label: 'not attributable',
  },
  {
    id: 'a4',
    question: 'when',
    claim: 'The Eiffel Tower was completed in 1925.',
    references: [EIFFEL],
    attribution_label: 'attributable',
  },
  {
    id: 'a5',
    question: 'when',
    claim: 'The Eiffel Tower was completed in 1889 for the World Fair.',
    references: [EIFFEL],
    attribution_label: 'not attributable',
  },
]);

const SALAD_DOCS = JSON.stringify([
  {
    question_id: 7,
    question: 'Why is the sky blue?',
    docs: [
      {
        doc_id: 'webgpt:0',
        title: 'Sky',
        text: 'Rayleigh scattering of sunlight by air molecules makes the sky look blue. Blue light is scattered more than red light.',
      },
    ],
  },
]);
const SALAD = JSON.stringify([
  {
    question_id: 7,
    question: 'Why is the sky blue?',
    answers: [],
    annotations: [
      {
        labels: ['supported', 'supported', 'partially'],
        answer: 'Rayleigh scattering of sunlight by air molecules makes the sky look blue.',
      },
      {
        labels: ['supported', 'partially', 'not_supported'],
        answer: 'Blue light is scattered more than red light.',
      },
      {
        labels: ['not_supported', 'not_supported', 'not_supported'],
        answer: 'The ocean reflects onto the sky in 1850 reports.',
      },
    ],
  },
]);

const FB_QUESTIONS = jsonl([
  {
    financebench_id: 'financebench_id_03029',
    company: '3M',
    doc_name: '3M_2018_10K',
    question: 'What is the FY2018 capital expenditure amount (in USD millions) for 3M?',
    answer: '$1577.00',
    evidence: [
      {
        evidence_text: 'Purchases of property, plant and equipment (PP&E) (1,577) (1,373)',
        doc_name: '3M_2018_10K',
        evidence_page_num: 59,
      },
    ],
  },
]);
const fbRow = (model_answer: string, label: string) => ({
  financebench_id: 'financebench_id_03029',
  model_name: 'm',
  eval_mode: 'oracle',
  question: 'What is the FY2018 capital expenditure amount (in USD millions) for 3M?',
  gold_answer: '$1577.00',
  model_answer,
  label,
});
const FB_ANSWERS = jsonl([
  fbRow('The FY2018 capital expenditure was $1,577 million.', 'Correct Answer'),
  fbRow('Capital expenditure was $2,000 million.', 'Incorrect Answer'),
  fbRow('The information is not available in the provided documents.', 'Refusal'),
  fbRow('It was $1,577 million.', 'Incorrect Answer'),
]);

async function reportsFor(format: AgreementFormat, items: Parameters<typeof judgeItems>[0]) {
  return Promise.all(
    (['numeric', 'lexical'] as const).map(async (name) => {
      const judge = heuristicJudge(name);
      return agreement(format, judge.id, items, await judgeItems(items, judge));
    }),
  );
}

describe('judges against people: formats', () => {
  it('attributionbench: claim vs references, grounded = grounding >= 1', async () => {
    const items = attributionBenchItems(ATTRIBUTION, 'ab.jsonl');
    expect(items.map((i) => i.human)).toEqual([1, 1, 0, 1, 0]);
    expect(items[0]?.input.chunks.map((c) => c.id)).toEqual(['ref-1']);
    for (const report of await reportsFor('attributionbench', items)) {
      expect(report.confusion).toEqual([
        [1, 1],
        [1, 2],
      ]);
      expect(report).toMatchObject({ n: 5, unscored: 0, accuracy: 0.6 });
      // po 0.6, pe (2*2 + 3*3) / 25 = 0.52
      expect(report.kappa).toBeCloseTo((0.6 - 0.52) / 0.48, 12);
    }
  });

  it('salad: one item per answer sentence against its documents, supported by majority', async () => {
    expect(saladSupported(['supported', 'supported', 'partially'])).toBe(true);
    expect(saladSupported(['supported', 'partially', 'not_supported'])).toBe(false);
    expect(saladDocsFileName('annotations-gpt3_whudoc.json')).toBe('docs-human.json');
    expect(saladDocsFileName('annotations-alpaca.json')).toBe('docs-webgpt.json');
    const items = saladItems(SALAD, SALAD_DOCS, 'salad.json');
    expect(items.map((i) => [i.id, i.human])).toEqual([
      ['q7-s1', 1],
      ['q7-s2', 0],
      ['q7-s3', 0],
    ]);
    for (const report of await reportsFor('salad', items))
      expect(report.confusion).toEqual([
        [1, 1],
        [0, 1],
      ]);
  });

  it('financebench: Correct / Incorrect / Refusal against the gold answer and evidence', async () => {
    const items = financeBenchItems([{ text: FB_ANSWERS, file: 'fb.jsonl' }], FB_QUESTIONS, 'q.jsonl');
    expect(items[0]?.input).toMatchObject({
      goldAnswer: '$1577.00',
      expectedBehavior: 'answer',
      numericGold: [{ value: 1577, unit: 'USD million' }],
    });
    expect(items[0]?.input.chunks[0]?.pages).toEqual([60, 60]);
    for (const report of await reportsFor('financebench', items)) {
      expect(report.labels).toEqual(['Correct Answer', 'Incorrect Answer', 'Refusal']);
      expect(report.confusion).toEqual([
        [1, 0, 0],
        [1, 1, 0],
        [0, 0, 1],
      ]);
      expect(report.accuracy).toBe(0.75);
    }
    expect(() => financeBenchItems([{ text: FB_ANSWERS, file: 'fb.jsonl' }], '', 'q.jsonl')).toThrow(
      /not in q\.jsonl/,
    );
  });

  it('maps verdicts to labels as documented, and leaves unscored outcomes out of the table', () => {
    const v = (c: 0 | 1 | 2, g: 0 | 1 | 2, k: 0 | 1 | 2): JudgeVerdict => ({
      correctness: { evidence: [], rationale: '', score: c },
      grounding: { evidence: [], rationale: '', score: g },
      calibration: { evidence: [], rationale: '', score: k },
      unsupported_claims: [],
    });
    expect(verdictLabel('attributionbench', v(0, 1, 2))).toBe(1);
    expect(verdictLabel('salad', v(2, 0, 2))).toBe(0);
    expect(verdictLabel('financebench', v(2, 2, 2))).toBe(0);
    expect(verdictLabel('financebench', v(1, 2, 2))).toBe(1);
    expect(verdictLabel('financebench', v(0, 2, 0), 'The report does not state this figure.')).toBe(2);
    // a confidently wrong answer (calibration 0) is Incorrect, not a refusal
    expect(verdictLabel('financebench', v(0, 2, 0), 'Revenue was $5 billion.')).toBe(1);
    const items = attributionBenchItems(ATTRIBUTION, 'ab.jsonl').slice(0, 2);
    const unscored: JudgeOutcome = {
      judgeId: 'x',
      family: 'f',
      status: 'unscored',
      verdict: null,
      raw: 'garbage',
      attempts: 2,
      error: 'not JSON',
      latencyMs: 0,
      costUsd: 0,
    };
    const report = agreement('attributionbench', 'x', items, [
      { ...unscored, status: 'scored', verdict: v(2, 2, 2) },
      unscored,
    ]);
    expect(report).toMatchObject({
      n: 1,
      unscored: 1,
      confusion: [
        [0, 0],
        [0, 1],
      ],
    });
    expect(Number.isNaN(report.kappa)).toBe(true); // one label only: undefined, not 0
    expect(formatAgreement(report)).toMatch(/kappa n\/a, accuracy 1\.000, unscored 1/);
  });

  it('subsamples deterministically, independent of the file order', () => {
    const items = Array.from({ length: 50 }, (_, i) => ({ id: `item-${i}` }));
    const a = deterministicSample(items, 10);
    expect(a).toHaveLength(10);
    expect(deterministicSample(items, 10)).toEqual(a);
    expect(deterministicSample(items, 100)).toEqual(items);
    // keeps the original order
    expect(a.map((x) => items.indexOf(x))).toEqual([...a.map((x) => items.indexOf(x))].sort((x, y) => x - y));
  });
});

describe('rge judge agree', () => {
  async function run(args: string[]): Promise<{ out: string; err: string; code: number }> {
    let out = '';
    let err = '';
    const io: CliIO = { out: (t) => (out += t), err: (t) => (err += t), cwd: dir, exitCode: 0 };
    const program = new Command('rge').exitOverride().configureOutput({ writeOut: io.out, writeErr: io.err });
    registerJudgeCommands(program, io);
    for (const c of program.commands.flatMap((c) => [c, ...c.commands])) c.exitOverride();
    await program.parseAsync(['node', 'rge', ...args]);
    return { out, err, code: io.exitCode };
  }
  let dir = '';

  it('prints n, kappa, accuracy and the confusion matrix, as text or JSON, for one judge or both', async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-agree-'));
    await writeFile(join(dir, 'ab.jsonl'), ATTRIBUTION);
    await writeFile(join(dir, 'annotations-webgpt.json'), SALAD);
    await writeFile(join(dir, 'docs-webgpt.json'), SALAD_DOCS);
    await writeFile(join(dir, 'fb.jsonl'), FB_ANSWERS);
    await writeFile(join(dir, 'q.jsonl'), FB_QUESTIONS);

    const text = await run(['judge', 'agree', '--format', 'attributionbench', '--file', 'ab.jsonl']);
    expect(text.out).toMatch(/judge heuristic\/numeric: n 5, kappa 0\.167, accuracy 0\.600/);
    expect(text.out).toMatch(/judge heuristic\/lexical: n 5/);
    expect(text.out).toMatch(/not attributable\s+1\s+1\nattributable\s+1\s+2/);

    const json = JSON.parse(
      (
        await run([
          'judge',
          'agree',
          '--format',
          'salad',
          '--file',
          'annotations-webgpt.json',
          '--judge',
          'lexical',
          '--json',
        ])
      ).out,
    );
    expect(json).toMatchObject({
      format: 'salad',
      judge: 'heuristic/lexical',
      n: 3,
      confusion: [
        [1, 1],
        [0, 1],
      ],
    });

    const fb = JSON.parse(
      (
        await run([
          'judge',
          'agree',
          '--format',
          'financebench',
          '--file',
          'fb.jsonl',
          '--questions',
          'q.jsonl',
          '--judge',
          'numeric',
          '--json',
          '--limit',
          '2',
        ])
      ).out,
    );
    expect(fb.n).toBe(2);

    await expect(run(['judge', 'agree', '--format', 'nope', '--file', 'ab.jsonl'])).rejects.toThrow(
      /--format must be one of/,
    );
    await expect(
      run(['judge', 'agree', '--format', 'salad', '--file', 'ab.jsonl', '--judge', 'oracle']),
    ).rejects.toThrow(/--judge must be/);
    await expect(
      run(['judge', 'agree', '--format', 'salad', '--file', 'ab.jsonl', '--limit', '0']),
    ).rejects.toThrow(/--limit/);
    await expect(loadAgreementItems('attributionbench', join(dir, 'missing.jsonl'))).rejects.toThrow(
      /file not found/,
    );
  });

  it('judge prompt --write-config pins the prompt; --check passes after and fails on a stale copy', async () => {
    dir = await mkdtemp(join(tmpdir(), 'rge-prompt-'));
    const config =
      'version: 1 # keep me\nname: x\njudge_prompt:\n  version: v1\n  sha256: null\n  text: null\n';
    await writeFile(join(dir, 'c.yaml'), config);
    const stale = await run(['judge', 'prompt', '--check', 'c.yaml']);
    expect(stale.code).toBe(1);
    expect(stale.err).toMatch(/stale judge prompt: text is not pinned/);
    const written = await run(['judge', 'prompt', '--write-config', 'c.yaml']);
    expect(written.out).toMatch(/c\.yaml: judge prompt v1 [0-9a-f]{64}/);
    const ok = await run(['judge', 'prompt', '--check', 'c.yaml']);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/current/);
    expect((await run(['judge', 'prompt'])).out).toMatch(
      /^# judge prompt v1 sha256 [0-9a-f]{64}\nYou are a strict evaluator/,
    );
  });
});
