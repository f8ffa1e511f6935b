/**
 * The rge eval suite, slice 4 of 4 (by question): one case per (subject, question, run index) of the
 * questions of this slice of the run config (RGE_CONFIG, default configs/fixture.yaml). The four slices
 * are one run with one report; they are four files so that `vitest --shard i/n` can share them out.
 * Offline by default: baseline subjects and heuristic judges over the fixture world, so
 * `npx vitest run evals` works on a fresh clone with no API key. The report is written to
 * reports/<run_id>/summary.md by the rge reporter, vitest-evals' JSON artifact beside it.
 */
import { defineGroundingSuite } from '../src/vitest/suite.ts';

await defineGroundingSuite({ slice: [4, 4] });
