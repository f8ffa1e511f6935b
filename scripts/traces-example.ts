/**
 * Writes fixtures/traces/example.otlp.jsonl: three logged RAG turns (test/helpers/traffic.ts) as the
 * OpenTelemetry JS SDK makes them and an OpenTelemetry collector's file exporter writes them (OTLP JSON
 * Lines). The file is generated, not written by hand: test/traces/example-file.test.ts checks that the SDK
 * still makes exactly it. Run `npx tsx scripts/traces-example.ts` to write it again.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { otlpJsonLines, TRAFFIC } from '../test/helpers/traffic.ts';

const out = fileURLToPath(new URL('../fixtures/traces/example.otlp.jsonl', import.meta.url));
writeFileSync(out, await otlpJsonLines(TRAFFIC));
process.stderr.write(`wrote ${out}\n`);
