import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { whatWasUsedLine } from '../../src/report/sections/what-was-run.ts';
import { summarise } from '../../src/report/summary.ts';
import type { RunDescription } from '../../src/report/views.ts';

const sent = (what: string) => ({ sent: what, maxTokens: 512, deviation: null });

const base: RunDescription = {
  config: 'configs/fixture.yaml',
  subjects: [{ id: 's1', provider: 'offline', model: 'echo', family: 'offline', ...sent('temperature 0') }],
  judges: [
    { id: 'j1', provider: 'anthropic', model: 'claude-sonnet-4-6', family: 'anthropic', ...sent('nothing') },
    { id: 'j2', provider: 'openai', model: 'gpt-5', family: 'openai', ...sent('temperature 0') },
  ],
  corpus: { embedder: 'use-lite', chunkTokens: 800, overlapTokens: 100, k: 5, index: 'data/index' },
  questions: { file: 'q.jsonl', version: 1, n: 60 },
  runs: 1,
  mode: 'sync',
  thresholds: { correctness: 0.8, grounding: null, calibration: 0.6, gfs: 0.7 },
  subjectPrompt: { version: 'v1', sha256: 'a'.repeat(64) },
  judgePrompt: { version: 'v1', sha256: 'b'.repeat(64) },
};

describe('whatWasUsedLine', () => {
  it('names the judges, the embedder, k, the chunking and every threshold (ungated ones as such)', () => {
    expect(whatWasUsedLine(base)).toBe(
      'judges j1 (anthropic/claude-sonnet-4-6), j2 (openai/gpt-5); embedder use-lite, k 5, 800/100-token chunks; ' +
        'thresholds correctness 0.8, grounding not gated, calibration 0.6, GFS 0.7',
    );
  });

  it('says so when a run has no judges', () => {
    expect(whatWasUsedLine({ ...base, judges: [] })).toMatch(/^judges none; embedder use-lite/);
  });
});

describe('the questions row of "What was run"', () => {
  const questionsRow = (d: RunDescription) =>
    renderMarkdown(
      summarise([], {
        seed: 't',
        resamples: 10,
        run: { runId: 'r', configHash: 'c', indexChecksum: 'i', questionsHash: 'q' },
        describe: d,
      }),
    )
      .split('\n')
      .find((l) => l.startsWith('| questions |'));

  it('counts the untraced questions apart when the set says where its gold comes from', () => {
    const gold = { xbrl: 149, untraced: 6, absent: 45, unstated: 0 };
    expect(questionsRow({ ...base, questions: { ...base.questions, n: 200, gold } })).toBe(
      '| questions | 200 from `q.jsonl` (version 1); gold traced to XBRL 149, untraced 6 (not checked against a source here; the traced column of the GFS table leaves them out), out-of-domain 45 |',
    );
  });

  it('says nothing of sources for a set that states none', () => {
    expect(questionsRow(base)).toBe('| questions | 60 from `q.jsonl` (version 1) |');
  });
});

describe('a run on a slice of the questions', () => {
  it('says what the slice covers, per category', async () => {
    const { sliceCoverage } = await import('../../src/run/plan/questions.ts');
    const q = (id: string, category: string) => ({ id, category }) as never;
    const all = [q('gd-1', 'grounded-direct'), q('gd-2', 'grounded-direct'), q('adv-1', 'adversarial')];
    expect(sliceCoverage(all, all.slice(0, 2), 'first')).toBe(
      'the first 2 of 3 questions: grounded-direct 2 of 2, adversarial 0 of 1',
    );
    expect(sliceCoverage(all, all.slice(2), 'chosen')).toBe(
      '1 chosen of 3 questions: grounded-direct 0 of 2, adversarial 1 of 1',
    );
    expect(sliceCoverage(all, all.slice(1), { sampleSeed: 's:questions:sample' })).toBe(
      'a stratified sample (seed s:questions:sample) of 2 of 3 questions: grounded-direct 1 of 2, adversarial 1 of 1',
    );
    expect(sliceCoverage(all, all, 'first')).toBeNull();
  });
});
