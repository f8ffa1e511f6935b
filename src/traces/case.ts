/**
 * A logged trace as rge reads it: one case of an application's production traffic (issue 56). Importers
 * (OTLP JSON of an OpenTelemetry collector's file exporter, OpenInference spans, JSON Lines in rge's own
 * system contract shape) turn spans or lines into these; the logged-trace subject judges them with no
 * call (grounding against the trace's own contexts, calibration, the deterministic checks), and the
 * drift gate compares two windows of them.
 *
 * `rge traces import FILE... --to DIR` writes DIR/cases.jsonl (one TraceCase per line) and
 * DIR/import.json (TraceImportReport): what was read, and every trace left out with its reason.
 */
import { z } from 'zod';
import { SystemAnswer } from '../system/contract.ts';

/** Where a case came from: the file, its format, and the line (JSON Lines) of its first span or record. */
export const TraceOrigin = z.strictObject({
  file: z.string().min(1),
  format: z.enum(['otlp', 'openinference', 'contract']),
  line: z.number().int().positive().nullable(),
});
export type TraceOrigin = z.infer<typeof TraceOrigin>;

export const TraceCase = z.strictObject({
  /** the trace id as logged (hex for OTLP and OpenInference; the line's id for contract lines) */
  trace_id: z.string().min(1),
  /** the user's question: the root span's input, else the last user message of the first LLM span */
  question: z.string().min(1),
  /** the final answer, the contexts the retriever spans returned, model, latency, tokens and cost where logged */
  answer: SystemAnswer,
  /** when the trace started (ISO 8601), when logged: the window a case belongs to */
  started_at: z.string().nullable(),
  /**
   * fields a sample can be stratified by (`--sample N --stratify route`): string attributes of the root
   * span or the line's metadata (route, tenant, ...) and `day` (the UTC date of started_at)
   */
  fields: z.record(z.string(), z.string()),
  origin: TraceOrigin,
});
export type TraceCase = z.infer<typeof TraceCase>;

/** Why a trace is not a case: it lacks what a case needs, never guessed. */
export const TRACE_PROBLEMS = [
  'no-question',
  'no-answer',
  'no-retrieval',
  'no-trace-id',
  'unreadable',
  'unknown-schema',
] as const;

export const TraceImportReport = z.strictObject({
  files: z.array(
    z.strictObject({
      file: z.string(),
      format: TraceOrigin.shape.format,
      spans: z.number().int(),
      lines: z.number().int(),
    }),
  ),
  spans: z.number().int().min(0),
  traces: z.number().int().min(0),
  cases: z.number().int().min(0),
  /** every trace (or line) left out, with the reason and where it was */
  left_out: z.array(
    z.strictObject({
      trace_id: z.string().nullable(),
      problem: z.enum(TRACE_PROBLEMS),
      message: z.string().min(1),
      file: z.string(),
      line: z.number().int().positive().nullable(),
    }),
  ),
  seconds: z.number().min(0),
});
export type TraceImportReport = z.infer<typeof TraceImportReport>;
