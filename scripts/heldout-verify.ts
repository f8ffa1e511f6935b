/**
 * Verification of generated questions on held-out documents and questions (issue 55): FinanceBench's
 * staged filings and its human-written questions, turned into candidates, labelled good or not by
 * src/questions/generate/heldout.ts's own rules, planted bad variants, all verified as `rge questions
 * generate` verifies (src/run/generate/heldout-verify.ts). Prints per split (dev/test by sha1 of
 * financebench_id) the good kept, the not-good rejected, the planted rejected (and with the reason
 * planted), then every good candidate rejected and every planted one kept or rejected for another reason.
 *
 * Usage: npx tsx scripts/heldout-verify.ts [dir]   (default ../shared/corpus/financebench)
 * Exit 2 when the folder is absent.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatHeldOut } from '../src/questions/generate/heldout.ts';
import { FINANCEBENCH_QUESTIONS, measureHeldOutVerification } from '../src/run/generate/heldout-verify.ts';

const short = (t: string, n = 90) => {
  const s = t.replace(/\s+/g, ' ').trim();
  return s.length > n ? `${s.slice(0, n - 3)}...` : s;
};

async function main(): Promise<number> {
  const repo = fileURLToPath(new URL('..', import.meta.url));
  const dir = resolve(process.argv[2] ?? join(repo, '../shared/corpus/financebench'));
  if (!existsSync(join(dir, FINANCEBENCH_QUESTIONS))) {
    console.error(`heldout-verify: no ${FINANCEBENCH_QUESTIONS} in ${dir}; pass the FinanceBench folder`);
    return 2;
  }
  const work = await mkdtemp(join(tmpdir(), 'rge-heldout-'));
  try {
    const m = await measureHeldOutVerification(dir, { workDir: work, cacheDir: join(repo, '.cache/rge') });
    const questions = new Set(m.cases.map((c) => c.question.id)).size;
    console.log(
      `FinanceBench: ${questions} questions over ${m.documents} staged filings (${m.chunks} chunks), ` +
        `${m.skipped} left out (filing not staged); ${m.cases.length} candidates, ${m.planted.length} planted`,
    );
    for (const form of ['whole-evidence', 'evidence-lines'] as const) {
      const of = m.cases.filter((c) => c.form === form);
      const count = (l: string) => of.filter((c) => c.label === l).length;
      console.log(
        `  ${form}: ${of.length} candidates: good ${count('good')}, figure-not-printed ${count('figure-not-printed')}, quote-not-verbatim ${count('quote-not-verbatim')}`,
      );
    }
    console.log(formatHeldOut(m.tally));
    console.log('good candidates rejected:');
    for (const c of m.cases.filter((x) => x.label === 'good' && m.reasons.get(x.candidate))) {
      const r = m.reasons.get(c.candidate);
      console.log(
        `  ${c.question.id} (${c.question.split}, ${c.form}): ${r?.reason}: ${short(r?.message ?? '', 200)}`,
      );
    }
    console.log('not-good candidates kept:');
    for (const c of m.cases.filter((x) => x.label !== 'good' && !m.reasons.get(x.candidate)))
      console.log(`  ${c.question.id} (${c.question.split}, ${c.form}, ${c.label} ${c.unprinted.join(' ')})`);
    console.log('figure-not-printed candidates: the figures no quote prints, and the verifier reason:');
    for (const c of m.cases.filter((x) => x.label === 'figure-not-printed'))
      console.log(
        `  ${c.question.id} (${c.question.split}, ${c.form}): ${c.unprinted.join(', ')} -> ${m.reasons.get(c.candidate)?.reason ?? 'KEPT'}`,
      );
    console.log('planted kept or rejected for another reason:');
    for (const p of m.planted) {
      const r = m.reasons.get(p.candidate);
      if (r?.reason !== p.expected)
        console.log(
          `  ${p.parent.question.id} (${p.parent.form}) ${p.kind}: expected ${p.expected}, got ${r ? `${r.reason}: ${short(r.message, 160)}` : 'KEPT'}`,
        );
    }
    return 0;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

process.exitCode = await main();
