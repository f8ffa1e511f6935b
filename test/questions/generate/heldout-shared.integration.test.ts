/**
 * Verification checked from outside (issue 55's last "Done means"): FinanceBench's staged filings and
 * its human-written questions, which verification was not written from, turned into candidates and
 * labelled by src/questions/generate/heldout.ts's own rules; bad variants planted from every good one;
 * all verified as `rge questions generate` verifies (src/run/generate/heldout-verify.ts). The figures per
 * split: `npx tsx scripts/heldout-verify.ts` (docs/measurements.md).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type HeldOutMeasurement,
  measureHeldOutVerification,
} from '../../../src/run/generate/heldout-verify.ts';
import { repoCacheDir, SHARED_ABSENT, sharedCorpus } from '../../helpers/shared.ts';

describe.skipIf(!sharedCorpus)(`held-out verification on FinanceBench (${SHARED_ABSENT} when absent)`, () => {
  let work: string;
  let m: HeldOutMeasurement;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'rge-heldout-'));
    m = await measureHeldOutVerification(join(sharedCorpus ?? '', 'financebench'), {
      workDir: work,
      cacheDir: repoCacheDir,
    });
  }, 600_000);
  afterAll(async () => {
    await rm(work, { recursive: true, force: true });
  });

  it('builds candidates of both forms from every question whose filing is staged, with both splits', () => {
    expect(m.documents).toBe(16);
    const ids = new Set(m.cases.map((c) => c.question.id));
    expect(ids.size).toBe(45);
    expect(m.tally.dev.good.n).toBeGreaterThan(0);
    expect(m.tally.test.good.n).toBeGreaterThan(0);
    expect(m.planted.length).toBeGreaterThan(4 * m.tally.all.good.n);
  });

  it('rejects every planted bad candidate, and with the planted reason when its parent was kept', () => {
    const kept = (p: (typeof m.planted)[number]) => m.reasons.get(p.parent.candidate) === null;
    for (const p of m.planted) {
      const r = m.reasons.get(p.candidate);
      const what = `${p.parent.question.id} ${p.parent.form} ${p.kind}`;
      expect(r, what).not.toBeNull();
      if (kept(p)) expect(r?.reason, what).toBe(p.expected);
    }
    for (const kind of [
      'fabricated-quote',
      'paraphrased-quote',
      'quote-of-another-document',
      'figure-changed',
      'answer-in-question',
      'multihop-one-chunk',
    ])
      expect(
        m.planted.some((p) => p.kind === kind),
        kind,
      ).toBe(true);
  });

  it('rejects every candidate that is not good: quotes the filing does not print, figures computed without arithmetic', () => {
    for (const c of m.cases.filter((x) => x.label !== 'good'))
      expect(m.reasons.get(c.candidate), `${c.question.id} ${c.form} ${c.label}`).not.toBeNull();
    const computed = m.cases.filter((c) => c.label === 'figure-not-printed');
    expect(computed.length).toBeGreaterThan(0);
    // a computed ratio is rejected for its figure, unless its quote fails first
    for (const c of computed)
      expect(['figure-not-in-quotes', 'quote-not-in-index', 'quote-across-chunks']).toContain(
        m.reasons.get(c.candidate)?.reason,
      );
  });

  it('keeps at least 90% of the good candidates on the test split', () => {
    const t = m.tally.test.good;
    expect(t.kept / t.n, `test: ${t.kept}/${t.n} good kept`).toBeGreaterThanOrEqual(0.9);
  });
});
