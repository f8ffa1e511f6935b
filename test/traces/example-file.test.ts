/**
 * fixtures/traces/example.otlp.jsonl (the example of docs/evaluate-your-logged-traffic.md) is what the
 * OpenTelemetry JS SDK makes of three logged RAG turns, written as an OpenTelemetry collector's file
 * exporter writes OTLP JSON Lines (scripts/traces-example.ts wrote it): the SDK still makes exactly it,
 * and rge imports its three traces as three cases.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importTracesTo } from '../../src/traces/index.ts';
import { otlpJsonLines, TRAFFIC } from '../helpers/traffic.ts';

const EXAMPLE = join(import.meta.dirname, '../../fixtures/traces/example.otlp.jsonl');

describe('the example OTLP file', () => {
  it('is what the OpenTelemetry JS SDK makes of the example traffic, byte for byte', async () => {
    expect(await otlpJsonLines(TRAFFIC)).toBe(readFileSync(EXAMPLE, 'utf8'));
  });

  it('imports as one case a trace', async () => {
    const report = await importTracesTo(await mkdtemp(join(tmpdir(), 'rge-example-')), [EXAMPLE]);
    expect(report).toMatchObject({ spans: 9, traces: 3, cases: 3, left_out: [] });
  });
});
