/** The parts of a summary.json (or a baseline) the gate reads, as one schema (src/gate/gate.ts and basis.ts). */
import { z } from 'zod';

const Cell = z
  .object({
    subject: z.string(),
    question_id: z.string(),
    run_index: z.number().int(),
    category: z.string(),
    gfs: z.number().nullable(),
    /** whether the case passes as the report counts it (absent in older summaries; `rge gate --pass-all` needs it) */
    passed: z.boolean().optional(),
    /** the subject gave no answer (its own failure): the cell is scored 0 (absent: answered, or an older summary) */
    failed: z.boolean().optional(),
  })
  .loose();

const Prompt = z.object({ version: z.string(), sha256: z.string() }).loose();
/** A subject or judge as the description records it (provider and what was sent: absent in older summaries). */
const Model = z
  .object({ id: z.string(), provider: z.string().optional(), model: z.string(), sent: z.string().optional() })
  .loose();

/** The parts of a summary.json the gate reads (a baseline is a summary.json plus `baseline`). */
export const GateSummary = z
  .object({
    run: z
      .object({ runId: z.string(), seed: z.string(), questionsHash: z.string(), indexChecksum: z.string() })
      .loose(),
    partial: z.object({ cases: z.number(), cells: z.number() }).nullable().optional(),
    describe: z
      .object({
        config: z.string().optional(),
        configFile: z.string().optional(),
        subjectPrompt: Prompt,
        judgePrompt: Prompt,
        judges: z.array(Model),
        subjects: z
          .array(Model.partial({ model: true }).extend({ version: z.string().optional() }).loose())
          .optional(),
        questions: z.object({ file: z.string(), version: z.number() }).loose().optional(),
        corpus: z
          .object({ embedder: z.string(), chunkTokens: z.number(), overlapTokens: z.number(), k: z.number() })
          .loose()
          .optional(),
        runs: z.number().optional(),
        gfsWeights: z
          .object({ correctness: z.number(), grounding: z.number(), calibration: z.number() })
          .optional(),
      })
      .loose()
      .nullable()
      .optional(),
    diagnostics: z.object({ cells: z.array(Cell) }).loose(),
    baseline: z.object({ promotedAt: z.string(), from: z.string() }).optional(),
  })
  .loose();
export type GateSummary = z.infer<typeof GateSummary>;
