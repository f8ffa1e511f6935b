/**
 * The rge eval suite: one case per (subject, question, run index) of the run config (RGE_CONFIG,
 * default configs/fixture.yaml). Offline by default: baseline subjects and heuristic judges over the
 * fixture world, so `npx vitest run evals` works on a fresh clone with no API key. The report is
 * written to reports/<run_id>/summary.md by the rge reporter.
 */
import { defineGroundingSuite } from '../src/vitest/suite.ts';

await defineGroundingSuite();
