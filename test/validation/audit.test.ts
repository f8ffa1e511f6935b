/**
 * The judge audit: replicate stability, order bias (chunks reversed, answer first) and the paradox flag,
 * by hand on small outcome sets, then through `rge judge audit` with a heuristic judge (deterministic and
 * blind to layout: stable, unbiased) and a live judge on the loopback server whose verdict depends on
 * the text it reads (so reordering the case moves its scores, which the audit must show).
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { JudgeOutcome } from '../../src/judging/verdict.ts';
import { cohenKappa, krippendorffAlpha } from '../../src/stats/index.ts';
import { formatAudit, orderBias, paradox, replicateStability } from '../../src/validation/audit.ts';
import { runRge } from '../helpers/cli.ts';
import { startOpenAIServer } from '../loopback/index.ts';
import { handSample, writeHandSample } from './hand-sample.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const outcome = (c: number, g: number, k: number): JudgeOutcome => ({
  judgeId: 'j',
  family: 'f',
  status: 'scored',
  verdict: {
    correctness: { evidence: [], rationale: '', score: c as 0 | 1 | 2 },
    grounding: { evidence: [], rationale: '', score: g as 0 | 1 | 2 },
    calibration: { evidence: [], rationale: '', score: k as 0 | 1 | 2 },
    unsupported_claims: [],
  },
  raw: '',
  attempts: 1,
  error: null,
  latencyMs: 0,
  costUsd: 0,
});
const unscored: JudgeOutcome = { ...outcome(0, 0, 0), status: 'unscored', verdict: null };

describe('audit arithmetic', () => {
  it('replicate stability: the share of items whose replicates agree, and kappa of replicates 1 and 2', () => {
    const r1 = [outcome(2, 2, 2), outcome(0, 2, 1), outcome(1, 0, 2), unscored];
    const r2 = [outcome(2, 2, 2), outcome(0, 1, 1), outcome(1, 0, 2), outcome(2, 2, 2)];
    const r3 = [outcome(2, 2, 2), outcome(0, 2, 1), outcome(1, 0, 2), outcome(2, 2, 2)];
    const s = replicateStability('j', [r1, r2, r3]);
    expect(s.n).toBe(3); // the unscored item is left out
    expect(s.dimensions.correctness.allSame).toBe(1);
    expect(s.dimensions.correctness.kappa).toMatchObject({ n: 3, kappa: 1 });
    expect(s.dimensions.grounding.allSame).toBeCloseTo(2 / 3, 12);
    // grounding r1 (2,2,0) vs r2 (2,1,0): p_o = 2/3; p_e = (2/3*1/3) + (0*1/3) + (1/3*1/3) = 1/3; kappa = (2/3-1/3)/(2/3) = 0.5
    expect(s.dimensions.grounding.kappa.kappa).toBeCloseTo(0.5, 12);
    expect(s.dimensions.grounding.kappa.seed).toBe('audit:replicates:j:grounding');
    // beside kappa, the ordinal reading: quadratic kappa of replicates 1 and 2, and alpha over all three
    // (grounding: items (2,2,2), (2,1,2), (0,0,0): one 1-vs-2 miss in one replicate)
    expect(s.dimensions.grounding.kappa.quadraticKappa.value).toBeCloseTo(
      cohenKappa([2, 2, 0], [2, 1, 0], { labels: [0, 1, 2], weights: 'quadratic' }),
      12,
    );
    expect(s.dimensions.grounding.alphaAll.value).toBeCloseTo(
      krippendorffAlpha(
        [
          [2, 2, 0],
          [2, 1, 0],
          [2, 2, 0],
        ],
        { level: 'ordinal', values: [0, 1, 2] },
      ),
      12,
    );
    expect(s.dimensions.correctness.alphaAll.value).toBe(1);
    expect(formatAudit('t', [s], [], [])).toMatch(/replicate stability, ordinal/);
    expect(() => replicateStability('j', [r1])).toThrow(/at least two/);
  });

  it('order bias: the share of changed scores and the mean signed shift', () => {
    const original = [outcome(2, 2, 2), outcome(2, 1, 2), outcome(0, 0, 0), outcome(1, 1, 1)];
    const probed = [outcome(2, 2, 2), outcome(2, 2, 1), outcome(2, 0, 0), unscored];
    const o = orderBias('j', 'chunks reversed', original, probed);
    expect(o.n).toBe(3);
    expect(o.dimensions.correctness).toEqual({ changed: 1 / 3, meanShift: 2 / 3 });
    expect(o.dimensions.grounding).toEqual({ changed: 1 / 3, meanShift: 1 / 3 });
    expect(o.dimensions.calibration).toEqual({ changed: 1 / 3, meanShift: -1 / 3 });
  });

  it('the paradox flag: judges agreeing with each other far more than with people, on enough items', () => {
    // the pattern four times over: 32 items, each its own question
    const people = [0, 1, 0, 1, 0, 1, 0, 1].flatMap((x) => [x, x, x, x]);
    // a and b agree perfectly with each other, and only at chance with people
    const a = [0, 0, 1, 1, 0, 0, 1, 1].flatMap((x) => [x, x, x, x]).map((x) => outcome(2, x * 2, 2));
    const c = [0, 1, 0, 1, 0, 1, 0, 0].flatMap((x) => [x, x, x, x]).map((x) => outcome(2, x * 2, 2));
    const view = {
      name: 'grounded?',
      labels: [0, 1],
      human: (i: number) => people[i] ?? null,
      judge: (v: NonNullable<JudgeOutcome['verdict']>) => (v.grounding.score >= 1 ? 1 : 0),
    };
    const judges = [
      { id: 'a', outcomes: a },
      { id: 'b', outcomes: a },
      { id: 'c', outcomes: c },
    ];
    const rows = paradox([view], judges);
    const ab = rows.find((r) => r.a === 'a' && r.b === 'b');
    expect(ab).toMatchObject({
      n: 32,
      kappaBetweenJudges: { n: 32, kappa: 1 },
      kappaAWithPeople: { kappa: 0 },
      kappaBWithPeople: { kappa: 0 },
      flagged: true,
      tooFew: false,
    });
    // every kappa carries its interval
    expect(ab?.kappaAWithPeople.low).toBeLessThan(0);
    expect(ab?.kappaAWithPeople.high).toBeGreaterThan(0);
    // c agrees with people more than with a: no paradox
    expect(rows.find((r) => r.a === 'a' && r.b === 'c')?.flagged).toBe(false);
    // on 8 of the items (fewer than 30): the same pattern, but too few to tell, and no flag
    const few = paradox(
      [view],
      judges.map((j) => ({ ...j, outcomes: j.outcomes.filter((_, i) => i % 4 === 0) })),
    ).find((r) => r.a === 'a' && r.b === 'b');
    expect(few).toMatchObject({ n: 8, kappaBetweenJudges: { kappa: 1 }, flagged: false, tooFew: true });
    expect(formatAudit('t', [], [], few ? [few] : [])).toContain('too few to tell (n < 30)');
  });
});

const CLAIMS = [
  [
    'Milira sings the song Go Outside in the Rain.',
    'Go Outside in the Rain is a R&B song by Milira released in 1990.',
    'attributable',
  ],
  [
    'The Eiffel Tower was completed in 1889.',
    'The Eiffel Tower was completed in 1889 for the World Fair in Paris.',
    'attributable',
  ],
  [
    'The Eiffel Tower is in Rome.',
    'The Eiffel Tower was completed in 1889 for the World Fair in Paris.',
    'not attributable',
  ],
  [
    'Milira released the song in 1995.',
    'Go Outside in the Rain is a R&B song by Milira released in 1990.',
    'not attributable',
  ],
  [
    'Water boils at 100 degrees Celsius at sea level.',
    'At sea level water boils at 100 degrees Celsius.',
    'attributable',
  ],
  ['The Nile is the longest river in Asia.', 'The Nile is a river in Africa.', 'not attributable'],
];

describe('rge judge audit', () => {
  it('audits a heuristic and a live judge: stable replicates, and the live judge moves when the case is reordered', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-audit-'));
    await writeFile(
      join(dir, 'ab.jsonl'),
      `${CLAIMS.map(([claim, ref, label], i) => JSON.stringify({ id: `c${i}`, question: 'q', claim, references: [ref, 'An unrelated passage about tides.'], attribution_label: label, src_dataset: 'S' })).join('\n')}\n`,
    );
    const apiKey = 'sk-test-audit-0123456789';
    const server = await startOpenAIServer({ apiKey });
    const config = parse(await readFile(join(ROOT, 'configs/fixture.yaml'), 'utf8')) as Record<
      string,
      unknown
    >;
    config.judges = [
      ...(config.judges as unknown[]),
      { id: 'gpt-judge', provider: 'openai', model: 'gpt-5.4', family: 'openai', temperature: 0 },
    ];
    config.budget = { cap_usd: 1, warn_usd: 0.5 };
    config.providers = { openai: { base_url: server.url, rpm: null, min_backoff_ms: 5, max_backoff_ms: 20 } };
    await writeFile(join(dir, 'live.yaml'), stringify(config));
    const before = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = apiKey;
    try {
      const run = await runRge(
        dir,
        'judge',
        'audit',
        '--config',
        'live.yaml',
        '--judge',
        'numeric,gpt-judge',
        '--format',
        'attributionbench',
        '--file',
        'ab.jsonl',
        '--replicates',
        '2',
        '--results-dir',
        'results',
        '--json',
      );
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      const audit = JSON.parse(run.out);
      const stab = (j: string) => audit.stability.find((s: { judge: string }) => s.judge === j);
      for (const j of ['numeric', 'gpt-judge']) expect(stab(j).dimensions.grounding.allSame).toBe(1); // same input, same verdict
      const shift = (j: string, probe: string) =>
        audit.order.find((o: { judge: string; probe: string }) => o.judge === j && o.probe === probe);
      // the heuristic judge reads the structured case: reordering the text changes nothing
      expect(shift('numeric', 'answer first').dimensions.grounding.changed).toBe(0);
      // the loopback judge scores by a hash of the text it reads: the probes show it
      const moved = ['chunks reversed', 'answer first'].some((p) =>
        ['correctness', 'grounding', 'calibration'].some(
          (d) => shift('gpt-judge', p).dimensions[d].changed > 0,
        ),
      );
      expect(moved).toBe(true);
      expect(audit.paradox).toHaveLength(1);
      expect(audit.paradox[0]).toMatchObject({
        view: 'attributionbench',
        a: 'numeric',
        b: 'gpt-judge',
        n: 6,
      });
      // 2 replicates + reversed + answer first = 4 calls per item for the live judge
      expect(server.calls).toHaveLength(4 * 6);
      const usage = await runRge(
        dir,
        'judge',
        'audit',
        '--format',
        'attributionbench',
        '--file',
        'ab.jsonl',
        '--replicates',
        '1',
      );
      expect(usage.code).toBe(2);
    } finally {
      if (before === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = before;
      await server.close();
    }
  });

  it('audits the human validation set: one view per dimension, over the labelled items of the first --limit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rge-audit-human-'));
    const labelsDir = join(dir, 'labels');
    const sampleFile = await writeHandSample(labelsDir, 10);
    const sample = handSample(10);
    // items 0-5 labelled by two people, 6-7 unlabelled, 8-9 labelled but beyond --limit 8; and a label
    // of another sample, which joins nothing
    const label = (i: number, labeller: string, sampleId = sample.sample_id) => {
      const item = sample.items[i] as (typeof sample.items)[number];
      return JSON.stringify({
        kind: 'label',
        sample_id: sampleId,
        item_id: item.item_id,
        answer_key: item.answer_key,
        labeller,
        correctness: i % 3,
        grounding: 2,
        calibration: (i + 1) % 3,
        rationale: 'by hand',
        labelled_at: '2026-01-02T00:00:00.000Z',
      });
    };
    const lines = [0, 1, 2, 3, 4, 5, 8, 9].flatMap((i) => [label(i, 'ann'), label(i, 'bo')]);
    await writeFile(join(labelsDir, `labels-${sample.sample_id}.jsonl`), `${lines.join('\n')}\n`);
    await writeFile(join(labelsDir, 'labels-other.jsonl'), `${label(6, 'cy', 'other-sample')}\n`);
    // from the repository: the config's questions file is read from the working folder
    const run = await runRge(
      ROOT,
      'judge',
      'audit',
      '--sample',
      sampleFile,
      '--labels-dir',
      labelsDir,
      '--replicates',
      '2',
      '--limit',
      '8',
      '--results-dir',
      join(dir, 'results'),
      '--json',
    );
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    const audit = JSON.parse(run.out);
    expect(audit.title).toBe(`human validation set ${sampleFile}, 8 items`);
    expect(audit.stability.map((r: { judge: string; n: number }) => [r.judge, r.n])).toEqual([
      ['numeric', 8],
      ['lexical', 8],
    ]);
    expect(audit.order).toHaveLength(4); // chunks reversed and answer first, per judge
    const rows = audit.paradox as { view: string; a: string; b: string; n: number }[];
    expect(rows.map((r) => [r.view, r.a, r.b, r.n])).toEqual([
      ['correctness', 'numeric', 'lexical', 6],
      ['grounding', 'numeric', 'lexical', 6],
      ['calibration', 'numeric', 'lexical', 6],
    ]);
  });
});
