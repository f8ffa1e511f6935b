import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { loadAgreementItems, parseMinKappa } from '../../src/cli/judge-agree.ts';
import { heuristicJudge } from '../../src/judging/heuristic/index.ts';
import type { JudgeOutcome, JudgeVerdict } from '../../src/judging/verdict.ts';
import { cohenKappa, krippendorffAlpha } from '../../src/stats/index.ts';
import { BudgetLedger } from '../../src/store/ledger.ts';
import {
  type AgreementFormat,
  type AgreementItem,
  type AgreementReport,
  agreement,
  agreementBySubset,
  agreementSeed,
  attributionBenchItems,
  deterministicSample,
  financeBenchItems,
  financeBenchMode,
  formatAgreement,
  judgeItems,
  kappaInterval,
  saladDocsFileName,
  saladItems,
  saladSetting,
  saladSupported,
  verdictLabel,
} from '../../src/validation/index.ts';
import { runRge } from '../helpers/cli.ts';
import { startOpenAIServer } from '../loopback/index.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE_CONFIG = join(ROOT, 'configs/fixture.yaml');

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
    src_dataset: 'AttributedQA',
  },
  {
    id: 'a2',
    question: 'when',
    claim: 'The Eiffel Tower was completed in 1889.',
    references: [EIFFEL],
    attribution_label: 'attributable',
    src_dataset: 'AttributedQA',
  },
  {
    id: 'a3',
    question: 'when',
    claim: 'The Eiffel Tower was completed in 1925.',
    references: [EIFFEL],
    attribution_label: 'not attributable',
    src_dataset: 'ExpertQA',
  },
  {
    id: 'a4',
    question: 'when',
    claim: 'The Eiffel Tower was completed in 1925.',
    references: [EIFFEL],
    attribution_label: 'attributable',
    src_dataset: 'ExpertQA',
  },
  {
    id: 'a5',
    question: 'when',
    claim: 'The Eiffel Tower was completed in 1889 for the World Fair.',
    references: [EIFFEL],
    attribution_label: 'not attributable',
    src_dataset: 'ExpertQA',
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
const fbRow = (model_answer: string, label: string, eval_mode = 'oracle') => ({
  financebench_id: 'financebench_id_03029',
  model_name: 'm',
  eval_mode,
  question: 'What is the FY2018 capital expenditure amount (in USD millions) for 3M?',
  gold_answer: '$1577.00',
  model_answer,
  label,
});
const FB_REFUSAL = 'The information is not available in the provided documents.';
const FB_ANSWERS = jsonl([
  fbRow('The FY2018 capital expenditure was $1,577 million.', 'Correct Answer'),
  fbRow('Capital expenditure was $2,000 million.', 'Incorrect Answer'),
  fbRow(FB_REFUSAL, 'Refusal'),
  fbRow('It was $1,577 million.', 'Incorrect Answer'),
]);
const FB_ANSWERS_REVERSE = jsonl([
  fbRow('The FY2018 capital expenditure was $1,577 million.', 'Correct Answer', 'oracle_reverse'),
  fbRow(FB_REFUSAL, 'Refusal', 'oracle_reverse'),
]);

/** A verdict with the given correctness, grounding and calibration scores. */
const v = (c: 0 | 1 | 2, g: 0 | 1 | 2, k: 0 | 1 | 2): JudgeVerdict => ({
  correctness: { evidence: [], rationale: '', score: c },
  grounding: { evidence: [], rationale: '', score: g },
  calibration: { evidence: [], rationale: '', score: k },
  unsupported_claims: [],
});
const UNSCORED: JudgeOutcome = {
  judgeId: 'j',
  family: 'f',
  status: 'unscored',
  verdict: null,
  raw: 'garbage',
  attempts: 2,
  error: 'not JSON',
  latencyMs: 0,
  costUsd: 0,
};
const scored = (verdict: JudgeVerdict, latencyMs = 0, costUsd = 0): JudgeOutcome => ({
  ...UNSCORED,
  status: 'scored',
  verdict,
  raw: '{}',
  attempts: 1,
  error: null,
  latencyMs,
  costUsd,
});

async function reportsFor(format: AgreementFormat, items: readonly AgreementItem[]) {
  return Promise.all(
    (['numeric', 'lexical'] as const).map(async (name) => {
      const judge = heuristicJudge(name);
      return agreement(format, judge.id, items, await judgeItems(items, judge));
    }),
  );
}

describe('judges against people: formats', () => {
  it('attributionbench: claim vs references, grounded = grounding >= 1, subset = src_dataset', async () => {
    const items = attributionBenchItems(ATTRIBUTION, 'ab.jsonl');
    expect(items.map((i) => i.human)).toEqual([1, 1, 0, 1, 0]);
    expect(items.map((i) => i.subset)).toEqual([
      'AttributedQA',
      'AttributedQA',
      'ExpertQA',
      'ExpertQA',
      'ExpertQA',
    ]);
    expect(items[0]?.input.chunks.map((c) => c.id)).toEqual(['ref-1']);
    for (const report of await reportsFor('attributionbench', items)) {
      expect(report.subset).toBeNull();
      expect(report.confusion).toEqual([
        [1, 1],
        [1, 2],
      ]);
      expect(report).toMatchObject({ n: 5, unscored: 0, accuracy: 0.6 });
      // po 0.6, pe (2*2 + 3*3) / 25 = 0.52
      expect(report.kappa).toBeCloseTo((0.6 - 0.52) / 0.48, 12);
    }
    const unnamed = attributionBenchItems(
      jsonl([{ claim: 'x', references: ['y'], attribution_label: 'attributable' }]),
      'u.jsonl',
    );
    expect(unnamed[0]?.subset).toBe('unspecified');
  });

  it('salad: one item per answer sentence against its documents, supported by majority, subset = setting', async () => {
    expect(saladSupported(['supported', 'supported', 'partially'])).toBe(true);
    expect(saladSupported(['supported', 'partially', 'not_supported'])).toBe(false);
    expect(saladDocsFileName('annotations-gpt3_whudoc.json')).toBe('docs-human.json');
    expect(saladDocsFileName('annotations-alpaca.json')).toBe('docs-webgpt.json');
    expect(saladSetting('/x/annotations-gpt3_whudoc.json')).toBe('gpt3_whudoc');
    const items = saladItems(SALAD, SALAD_DOCS, 'dir/annotations-webgpt.json');
    expect(items.map((i) => [i.id, i.human, i.subset])).toEqual([
      ['q7-s1', 1, 'webgpt'],
      ['q7-s2', 0, 'webgpt'],
      ['q7-s3', 0, 'webgpt'],
    ]);
    for (const report of await reportsFor('salad', items))
      expect(report.confusion).toEqual([
        [1, 1],
        [0, 1],
      ]);
  });

  it('financebench: Correct / Incorrect / Refusal against the gold answer and evidence, subset = eval mode', async () => {
    const items = financeBenchItems(
      [
        { text: FB_ANSWERS, file: 'labels/m_oracle.jsonl' },
        { text: FB_ANSWERS_REVERSE, file: 'labels/m_oracle_reverse.jsonl' },
      ],
      FB_QUESTIONS,
      'q.jsonl',
    );
    expect(items[0]?.input).toMatchObject({
      goldAnswer: '$1577.00',
      expectedBehavior: 'answer',
      numericGold: [{ value: 1577, unit: 'USD million' }],
    });
    expect(items[0]?.input.chunks[0]?.pages).toEqual([60, 60]);
    expect(items.map((i) => i.subset)).toEqual([
      'oracle',
      'oracle',
      'oracle',
      'oracle',
      'oracle_reverse',
      'oracle_reverse',
    ]);
    expect(financeBenchMode('x/gpt-4-1106-preview_inContext_reverse.jsonl', 'gpt-4-1106-preview')).toBe(
      'inContext_reverse',
    );
    expect(financeBenchMode('x/answers.jsonl', 'gpt-4', 'closedBook')).toBe('closedBook');
    expect(financeBenchMode('x/answers.jsonl')).toBe('answers');
    const oracle = items.filter((i) => i.subset === 'oracle');
    for (const report of await reportsFor('financebench', oracle)) {
      expect(report.labels).toEqual(['Correct Answer', 'Incorrect Answer', 'Refusal']);
      expect(report.n).toBe(4);
      // which label each answer gets is the judge's verdict's (see the mapping test below)
      expect(report.confusion.flat().reduce((a, b) => a + b, 0)).toBe(4);
      // Correct / Incorrect / Refusal are not ordered: no quadratic kappa, a nominal alpha
      expect(report.ordered).toBe(false);
      expect(report.quadraticKappa).toBeNaN();
      expect(report.quadraticKappaCi).toBeNull();
      expect(report.alphaLevel).toBe('nominal');
    }
    expect(() => financeBenchItems([{ text: FB_ANSWERS, file: 'fb.jsonl' }], '', 'q.jsonl')).toThrow(
      /not in q\.jsonl/,
    );
  });

  it('maps verdicts to labels from the verdict alone: a FinanceBench refusal is calibration 0', () => {
    expect(verdictLabel('attributionbench', v(0, 1, 2))).toBe(1);
    expect(verdictLabel('attributionbench', v(2, 0, 2))).toBe(0);
    expect(verdictLabel('salad', v(2, 0, 2))).toBe(0);
    expect(verdictLabel('salad', v(0, 2, 0))).toBe(1);
    // FinanceBench: Refusal when calibration is 0, whatever the correctness
    expect(verdictLabel('financebench', v(0, 2, 0))).toBe(2);
    expect(verdictLabel('financebench', v(2, 2, 0))).toBe(2);
    expect(verdictLabel('financebench', v(1, 0, 0))).toBe(2);
    // else Correct when correctness is 2, else Incorrect (calibration 1 or 2)
    expect(verdictLabel('financebench', v(2, 2, 2))).toBe(0);
    expect(verdictLabel('financebench', v(2, 0, 1))).toBe(0);
    expect(verdictLabel('financebench', v(1, 2, 2))).toBe(1);
    expect(verdictLabel('financebench', v(0, 2, 1))).toBe(1);
    // the answer's wording plays no part: the same verdict, whatever the answer says
    const items = financeBenchItems([{ text: FB_ANSWERS, file: 'm_oracle.jsonl' }], FB_QUESTIONS, 'q.jsonl');
    const report = agreement(
      'financebench',
      'j',
      items,
      items.map(() => scored(v(0, 2, 0))),
    );
    expect(report.confusion.map((row) => row[2])).toEqual([1, 2, 1]);
  });

  it('leaves unscored outcomes out of the table and counts them', () => {
    const items = attributionBenchItems(ATTRIBUTION, 'ab.jsonl').slice(0, 2);
    const report = agreement('attributionbench', 'x', items, [scored(v(2, 2, 2)), UNSCORED]);
    expect(report).toMatchObject({
      n: 1,
      unscored: 1,
      kappaCi: null,
      confusion: [
        [0, 0],
        [0, 1],
      ],
    });
    expect(Number.isNaN(report.kappa)).toBe(true); // one label only: undefined, not 0
    expect(formatAgreement(report)).toMatch(
      /pooled: n 1, kappa n\/a \(one score only\) ⚠ few, accuracy 1\.000, unscored 1/,
    );
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

describe('judges against people: per subset, with intervals', () => {
  // subset X: people 1 1 1 0 0 0, judge 1 1 0 0 0 1 (kappa 1/3); subset Y: people 1 1 0 0 1 0, judge the
  // same (kappa 1) and one unscored item. Pooled: 10 of 12 agree, both raters 6 of 12 positive, kappa 2/3.
  const X = { human: [1, 1, 1, 0, 0, 0], judge: [1, 1, 0, 0, 0, 1] };
  const Y = { human: [1, 1, 0, 0, 1, 0], judge: [1, 1, 0, 0, 1, 0] };
  const rows = [
    ...X.human.map((h, i) => ({ h, j: X.judge[i] as number, subset: 'X' })),
    ...Y.human.map((h, i) => ({ h, j: Y.judge[i] as number, subset: 'Y' })),
    { h: 1, j: -1, subset: 'Y' },
  ];
  const items = attributionBenchItems(
    jsonl(
      rows.map((r, i) => ({
        id: `c${i}`,
        claim: `claim ${i}`,
        references: ['ref'],
        attribution_label: r.h === 1 ? 'attributable' : 'not attributable',
        src_dataset: r.subset,
      })),
    ),
    'ab.jsonl',
  );
  const outcomes = rows.map((r, i) =>
    r.j < 0 ? { ...UNSCORED, latencyMs: 100, costUsd: 0.002 } : scored(v(2, r.j === 1 ? 2 : 0, 2), i, 0.001),
  );

  it('reports the pooled row first, then each subset with its own n, unscored and kappa', () => {
    const reports = agreementBySubset('attributionbench', 'j', items, outcomes);
    expect(reports.map((r) => [r.subset, r.n, r.unscored])).toEqual([
      [null, 12, 1],
      ['X', 6, 0],
      ['Y', 6, 1],
    ]);
    const [pooled, x, y] = reports as [AgreementReport, AgreementReport, AgreementReport];
    expect(pooled.kappa).toBeCloseTo(2 / 3, 12);
    expect(x.kappa).toBeCloseTo(1 / 3, 12);
    expect(y.kappa).toBe(1);
    expect(x.accuracy).toBeCloseTo(4 / 6, 12);
    expect(x.confusion).toEqual([
      [2, 1],
      [1, 2],
    ]);
    // the pooled row is the pooled computation; a subset row is the computation on its items
    expect(pooled).toEqual(agreement('attributionbench', 'j', items, outcomes));
    expect(pooled.kappa).toBe(cohenKappa([...X.human, ...Y.human], [...X.judge, ...Y.judge]));
    const inX = items.map((i) => i.subset === 'X');
    expect(x).toEqual(
      agreement(
        'attributionbench',
        'j',
        items.filter((_, i) => inX[i]),
        outcomes.filter((_, i) => inX[i]),
        { subset: 'X' },
      ),
    );
    // cost over every item (the unscored one too), latency percentiles over every item
    expect(pooled.costUsd).toBeCloseTo(12 * 0.001 + 0.002, 12);
    expect(x.latencyMs).toEqual({ p50: 2.5, p95: 4.75 });
    expect(y.latencyMs?.p95).toBeGreaterThan(11);
  });

  it('reports the quadratic-weighted kappa and ordinal alpha beside kappa, each with its interval', () => {
    const [pooled] = agreementBySubset('attributionbench', 'j', items, outcomes);
    if (!pooled) throw new Error('expected a pooled row');
    const h = [...X.human, ...Y.human];
    const j = [...X.judge, ...Y.judge];
    // two labels: quadratic kappa is kappa; alpha is Krippendorff's, people and judge as two raters
    expect(pooled.quadraticKappa).toBeCloseTo(pooled.kappa, 12);
    expect(pooled.ordered).toBe(true);
    expect(pooled.alphaLevel).toBe('ordinal');
    expect(pooled.alpha).toBeCloseTo(krippendorffAlpha([h, j], { level: 'ordinal', values: [0, 1] }), 12);
    for (const [value, ci] of [
      [pooled.quadraticKappa, pooled.quadraticKappaCi],
      [pooled.alpha, pooled.alphaCi],
    ] as const) {
      expect(ci?.seed).toBe('agree:j:attributionbench:pooled');
      expect(ci?.low).toBeLessThanOrEqual(value);
      expect(ci?.high).toBeGreaterThanOrEqual(value);
    }
  });

  it('gives each kappa a seeded bootstrap interval that holds the estimate and is reproducible', () => {
    const reports = agreementBySubset('attributionbench', 'j', items, outcomes);
    expect(reports.map((r) => r.kappaCi?.seed)).toEqual([
      'agree:j:attributionbench:pooled',
      'agree:j:attributionbench:X',
      'agree:j:attributionbench:Y',
    ]);
    expect(agreementSeed('j', 'salad', null)).toBe('agree:j:salad:pooled');
    for (const r of reports) {
      const ci = r.kappaCi;
      if (!ci) throw new Error('expected an interval');
      expect(ci).toMatchObject({ resamples: 2000, confidence: 0.95, method: 'bca' });
      expect(ci.low).toBeLessThanOrEqual(r.kappa);
      expect(ci.high).toBeGreaterThanOrEqual(r.kappa);
      expect(ci.low).toBeGreaterThanOrEqual(-1);
      expect(ci.high).toBeLessThanOrEqual(1);
    }
    // the pooled interval is a real interval
    expect(reports[0]?.kappaCi?.low).toBeLessThan(reports[0]?.kappaCi?.high ?? Number.NaN);
    // perfect agreement: every resample agrees perfectly or has one label only (counted as the estimate)
    expect(reports[2]?.kappaCi).toMatchObject({ low: 1, high: 1 });
    expect(reports[2]?.kappaCi?.undefinedResamples).toBeGreaterThan(0);
    // same data and seed, same numbers; another seed, another interval
    expect(agreementBySubset('attributionbench', 'j', items, outcomes)).toEqual(reports);
    const h = [...X.human, ...Y.human];
    const j = [...X.judge, ...Y.judge];
    const a = kappaInterval(h, j, 2, { seed: 's1' });
    expect(kappaInterval(h, j, 2, { seed: 's1' })).toEqual(a);
    expect(kappaInterval(h, j, 2, { seed: 's2' })).not.toEqual(a);
    expect(kappaInterval([1, 1], [1, 1], 2, { seed: 's' })).toBeNull();
  });
});

describe('rge judge agree', () => {
  async function files(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'rge-agree-'));
    await writeFile(join(dir, 'ab.jsonl'), ATTRIBUTION);
    await writeFile(join(dir, 'annotations-webgpt.json'), SALAD);
    await writeFile(join(dir, 'docs-webgpt.json'), SALAD_DOCS);
    await mkdir(join(dir, 'salad'));
    await writeFile(join(dir, 'salad', 'annotations-webgpt.json'), SALAD);
    await writeFile(join(dir, 'salad', 'annotations-alpaca.json'), SALAD);
    await writeFile(join(dir, 'salad', 'docs-webgpt.json'), SALAD_DOCS);
    await mkdir(join(dir, 'fb'));
    await writeFile(join(dir, 'fb', 'm_oracle.jsonl'), FB_ANSWERS);
    await writeFile(join(dir, 'fb', 'm_oracle_reverse.jsonl'), FB_ANSWERS_REVERSE);
    await writeFile(join(dir, 'q.jsonl'), FB_QUESTIONS);
    return dir;
  }
  const agree = (cwd: string, ...args: string[]) => runRge(cwd, 'judge', 'agree', ...args);

  it('prints a table per dataset (judge x subset, pooled first), the confusion matrices and the seed rule', async () => {
    const dir = await files();
    // no configs/fixture.yaml in the working folder: the packaged fixture config's judges
    const text = await agree(dir, '--format', 'attributionbench', '--file', 'ab.jsonl');
    expect(text.code).toBe(0);
    const lines = text.out.split('\n');
    const table = lines
      .filter((l) => /^(numeric|lexical) /.test(l))
      .map((l) => l.split(/\s{2,}/).slice(0, 4));
    expect(table).toEqual([
      ['numeric', 'pooled', '5', '0'],
      ['numeric', 'AttributedQA', '2', '0'],
      ['numeric', 'ExpertQA', '3', '0'],
      ['lexical', 'pooled', '5', '0'],
      ['lexical', 'AttributedQA', '2', '0'],
      ['lexical', 'ExpertQA', '3', '0'],
    ]);
    expect(text.out).toMatch(
      /judge\s+source dataset\s+n\s+unscored\s+kappa \[95% CI\]\s+quadratic kappa \[95% CI\]\s+alpha \[95% CI\]\s+accuracy\s+cost USD\s+p50\/p95 ms/,
    );
    expect(text.out).toMatch(
      // two labels: the quadratic-weighted kappa is kappa; alpha is its own figure
      /^numeric\s+pooled\s+5\s+0\s+0\.167 \[-?\d\.\d{3}, -?\d\.\d{3}\]\*?\^? ⚠ few\s+0\.167 \[-?\d\.\d{3}, -?\d\.\d{3}\] ⚠ few\s+-?\d\.\d{3} \[-?\d\.\d{3}, -?\d\.\d{3}\] ⚠ few\s+0\.600\s+0\.0000/m,
    );
    expect(text.out).toMatch(/judge numeric, pooled: n 5, kappa 0\.167 \[/);
    expect(text.out).toMatch(/judge numeric, source dataset ExpertQA: n 3/);
    expect(text.out).toMatch(/not attributable\s+1\s+1\nattributable\s+1\s+2/);
    expect(text.out).toMatch(
      /seed agree:<judge>:<format>:<subset, or pooled> \(e\.g\. agree:numeric:attributionbench:pooled\)/,
    );
  });

  it('--config configs/fixture.yaml --judge numeric,lexical (or repeated) picks judges by config id', async () => {
    const dir = await files();
    const file = join(dir, 'salad');
    for (const judges of [
      ['--judge', 'numeric,lexical'],
      ['--judge', 'numeric', '--judge', 'lexical'],
    ]) {
      const run = await agree(
        ROOT,
        '--config',
        'configs/fixture.yaml',
        ...judges,
        '--format',
        'salad',
        '--file',
        file,
        '--json',
      );
      expect(run.code).toBe(0);
      const json = JSON.parse(run.out);
      expect(json).toMatchObject({
        format: 'salad',
        config: 'configs/fixture.yaml',
        items: 6,
        subsets: ['alpaca', 'webgpt'],
        judges: [
          { id: 'numeric', provider: 'heuristic/numeric' },
          { id: 'lexical', provider: 'heuristic/lexical' },
        ],
        kappaInterval: { resamples: 2000, seedRule: 'agree:<judge>:<format>:<subset, or pooled>' },
      });
      expect(json.reports.map((r: AgreementReport) => [r.judge, r.subset, r.n])).toEqual([
        ['numeric', null, 6],
        ['numeric', 'alpaca', 3],
        ['numeric', 'webgpt', 3],
        ['lexical', null, 6],
        ['lexical', 'alpaca', 3],
        ['lexical', 'webgpt', 3],
      ]);
      expect(json.reports[2]).toMatchObject({
        confusion: [
          [1, 1],
          [0, 1],
        ],
      });
    }
    const one = JSON.parse(
      (
        await agree(
          dir,
          '--format',
          'salad',
          '--file',
          'annotations-webgpt.json',
          '--judge',
          'lexical',
          '--json',
        )
      ).out,
    );
    expect(one.reports.map((r: AgreementReport) => [r.judge, r.subset, r.n])).toEqual([
      ['lexical', null, 3],
      ['lexical', 'webgpt', 3],
    ]);
  });

  it('financebench: per eval mode from the file name, --limit keeps a deterministic subsample of the dataset', async () => {
    const dir = await files();
    const run = async (...extra: string[]) =>
      JSON.parse(
        (
          await agree(
            dir,
            '--format',
            'financebench',
            '--file',
            'fb',
            '--questions',
            'q.jsonl',
            '--judge',
            'numeric',
            '--json',
            ...extra,
          )
        ).out,
      );
    const all = await run();
    expect(all.subsets).toEqual(['oracle', 'oracle_reverse']);
    expect(all.reports.map((r: AgreementReport) => [r.subset, r.n + r.unscored])).toEqual([
      [null, 6],
      ['oracle', 4],
      ['oracle_reverse', 2],
    ]);
    const limited = await run('--limit', '3');
    expect(limited.items).toBe(3);
    expect(limited.reports[0].n + limited.reports[0].unscored).toBe(3);
    // the same items and numbers again (latencies aside: they are measured)
    const numbers = (json: { reports: AgreementReport[] }) =>
      json.reports.map(({ latencyMs: _, ...rest }) => rest);
    expect(numbers(await run('--limit', '3'))).toEqual(numbers(limited));
  });

  it('--min-kappa gates the pooled kappa: exit 1 below (naming the judge), 0 at or above, 2 for a bad value', async () => {
    const dir = await files();
    const args = ['--format', 'attributionbench', '--file', 'ab.jsonl', '--judge', 'numeric'];
    const kappa = JSON.parse((await agree(dir, ...args, '--json')).out).reports[0].kappa as number;
    const pass = await agree(dir, ...args, '--min-kappa', (kappa - 0.01).toFixed(3));
    expect(pass.code).toBe(0);
    expect(pass.out).toMatch(/every pooled kappa is at least --min-kappa/);
    const fail = await agree(dir, ...args, '--min-kappa', (kappa + 0.01).toFixed(3));
    expect(fail.code).toBe(1);
    expect(fail.out).toMatch(/^numeric\s+pooled/m); // the table is still printed
    expect(fail.err).toMatch(/pooled kappa below --min-kappa [\d.]+: numeric on attributionbench /);
    const json = JSON.parse((await agree(dir, ...args, '--json', '--min-kappa', '1')).out);
    expect(json.belowMinKappa).toEqual([{ judge: 'numeric', format: 'attributionbench', kappa }]);
    for (const bad of ['2', '-1.5', 'abc', '']) {
      const r = await agree(dir, ...args, '--min-kappa', bad);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/--min-kappa must be a number from -1 to 1/);
    }
    expect(parseMinKappa('-1')).toBe(-1);
    expect(parseMinKappa('1')).toBe(1);
    expect(parseMinKappa(undefined)).toBeUndefined();
  });

  it('usage errors exit 2; a missing file is an error', async () => {
    const dir = await files();
    const bad = async (args: string[], message: RegExp) => {
      const r = await agree(dir, ...args);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(message);
    };
    await bad(['--format', 'nope', '--file', 'ab.jsonl'], /--format must be one of/);
    await bad(
      ['--format', 'salad', '--file', 'ab.jsonl', '--judge', 'oracle'],
      /--judge must be one of numeric, lexical \(the judges of .*fixture\.yaml\), got oracle/,
    );
    await bad(['--format', 'salad', '--file', 'ab.jsonl', '--limit', '0'], /--limit/);
    await bad(['--format', 'salad', '--file', 'salad', '--docs', 'docs-webgpt.json'], /--docs names/);
    const missing = await agree(dir, '--format', 'attributionbench', '--file', 'missing.jsonl');
    expect(missing.code).toBe(2);
    expect(missing.err).toBe('rge: --file missing.jsonl: no such file or folder\n');
    await expect(loadAgreementItems('attributionbench', join(dir, 'missing.jsonl'))).rejects.toThrow(
      /file not found/,
    );
  });

  it('a live judge of a run config: asked through the registry, its cost reported and settled in the ledger', async () => {
    const dir = await files();
    const apiKey = 'sk-test-agree-0123456789';
    const server = await startOpenAIServer({ apiKey });
    const config = parse(await readFile(FIXTURE_CONFIG, 'utf8')) as Record<string, unknown>;
    config.judges = [
      ...(config.judges as unknown[]),
      { id: 'gpt-judge', provider: 'openai', model: 'gpt-5.4', family: 'openai', temperature: 0 },
    ];
    config.budget = { cap_usd: 1, warn_usd: 0.5 };
    config.providers = {
      openai: { base_url: server.url, rpm: null, min_backoff_ms: 5, max_backoff_ms: 20 },
    };
    await writeFile(join(dir, 'live.yaml'), stringify(config));
    const before = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = apiKey;
    try {
      const results = join(dir, 'results');
      const args = [
        '--config',
        'live.yaml',
        '--judge',
        'gpt-judge',
        '--format',
        'attributionbench',
        '--file',
        'ab.jsonl',
        '--results-dir',
        'results',
      ];
      const run = await agree(dir, ...args, '--json');
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      const json = JSON.parse(run.out);
      expect(json.judges).toEqual([{ id: 'gpt-judge', provider: 'openai/gpt-5.4', family: 'openai' }]);
      const [pooled, ...subsets] = json.reports as AgreementReport[];
      expect((pooled?.n ?? 0) + (pooled?.unscored ?? 0)).toBe(5);
      expect(pooled?.costUsd).toBeGreaterThan(0);
      expect(pooled?.latencyMs?.p95).toBeGreaterThan(0);
      expect(subsets.map((r) => r.subset)).toEqual(['AttributedQA', 'ExpertQA']);
      expect(subsets.reduce((s, r) => s + r.costUsd, 0)).toBeCloseTo(pooled?.costUsd ?? 0, 12);
      expect(server.calls.length).toBeGreaterThanOrEqual(5);
      const ledger = new BudgetLedger(results, {
        capUsd: 1,
        warnUsd: 0.5,
        configFile: 'live.yaml',
      }).summary();
      expect(ledger.spentUsd).toBeCloseTo(pooled?.costUsd ?? 0, 12);
      expect(ledger.open).toEqual([]);
      expect(ledger.byPayer).toMatchObject([
        { provider: 'openai', model: 'gpt-5.4', role: 'judge', calls: server.calls.length },
      ]);
      // the table reports the cost too
      const text = await agree(dir, ...args);
      const row = text.out.split('\n').find((l) => /^gpt-judge\s+pooled\s/.test(l)) ?? '';
      const cells = row.split(/\s{2,}/);
      expect(cells.slice(0, 2)).toEqual(['gpt-judge', 'pooled']);
      expect(Number(cells[8])).toBeGreaterThan(0); // cost USD
    } finally {
      if (before === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = before;
      await server.close();
    }
  });

  it('judge prompt --write-config pins the prompt; --check passes after and fails on a stale copy', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-prompt-'));
    const config =
      'version: 1 # keep me\nname: x\njudge_prompt:\n  version: v1\n  sha256: null\n  text: null\n';
    await writeFile(join(dir, 'c.yaml'), config);
    const stale = await runRge(dir, 'judge', 'prompt', '--check', 'c.yaml');
    expect(stale.code).toBe(1);
    expect(stale.err).toMatch(/stale judge prompt: version is v1, canonical v2/);
    const written = await runRge(dir, 'judge', 'prompt', '--write-config', 'c.yaml');
    expect(written.out).toMatch(/c\.yaml: judge prompt v2 [0-9a-f]{64}/);
    const ok = await runRge(dir, 'judge', 'prompt', '--check', 'c.yaml');
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/current/);
    expect((await runRge(dir, 'judge', 'prompt')).out).toMatch(
      /^# judge prompt v2 sha256 [0-9a-f]{64}\nYou are a strict evaluator/,
    );
    expect((await runRge(dir, 'judge', 'prompt', '--prompt-version', 'v1')).out).toMatch(
      /^# judge prompt v1 sha256 cbf6f73cf3edcf8e2567042e3e5d6a7356d0d5798a6d728a5e2614087f2d9b30\n/,
    );
    expect((await runRge(dir, 'judge', 'prompt', '--prompt-version', 'v9')).code).toBe(2);
  });
});
