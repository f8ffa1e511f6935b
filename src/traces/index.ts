/**
 * Logged traces (issue 56): an application's production traffic as cases. The public surface: the case
 * and report schemas, the import (OTLP JSON, OpenInference spans, contract JSON Lines) and reading an
 * import's folder back.
 */
export { TRACE_PROBLEMS, TraceCase, TraceImportReport, TraceOrigin } from './case.ts';
export {
  CASES_FILE,
  formatOf,
  IMPORT_REPORT_FILE,
  importTraces,
  importTracesTo,
  readTraceCases,
  readTraceImportReport,
  TRACE_FORMATS,
  type TraceFormat,
  type TraceImportOptions,
} from './import.ts';
export { isSecretName, redactLogged } from './redact.ts';
