/**
 * The published run under a cap between its expected and its worst-case cost, against the loopback
 * servers: replies as long as the estimate expects them (300 tokens an answer, 700 a verdict), so that
 * the run really costs about its expected cost; the cap read from the dry run's own figures; and kills
 * at named points of the run (a line it prints), not at random moments, so that each lands where it
 * is meant to whatever the speed of the machine.
 */
import { join } from 'node:path';
import type { Estimate } from '../../../src/store/run-state.ts';
import { runRge } from '../../helpers/cli.ts';
import { liveOverrides, root } from '../../helpers/live.ts';
import { countTokens, defaultReply, type LoopbackCall, type LoopbackReply } from '../../loopback/common.ts';

const FILLER = ' The figure is stated in the cited section of the annual report, as read.';

/** `text` lengthened with filler sentences to about `tokens` cl100k tokens. */
function lengthened(text: string, tokens: number): string {
  const missing = tokens - countTokens(text);
  const per = countTokens(FILLER);
  return missing > 0 ? `${text}${FILLER.repeat(Math.ceil(missing / per))}` : text;
}

/** The loopback model's reply, as long as the estimate expects: 300 tokens an answer, 700 a verdict. */
export function expectedLengthReply(call: LoopbackCall): LoopbackReply {
  const reply = defaultReply(call);
  if (call.schema === null) return { ...reply, text: lengthened(reply.text, 300) };
  const verdict = JSON.parse(reply.text) as Record<string, { rationale?: string }>;
  const base = countTokens(reply.text);
  for (const d of ['correctness', 'grounding', 'calibration'] as const) {
    const dim = verdict[d];
    if (dim?.rationale !== undefined) dim.rationale = lengthened(dim.rationale, (700 - base) / 3);
  }
  return { ...reply, text: JSON.stringify(verdict) };
}

export const setArgs = (overrides: readonly string[]) => overrides.flatMap((o) => ['--set', o]);

/** The dry run's estimate (with its batch plan) of the published run on the loopback world. */
export async function dryRunEstimate(
  questions: number,
  runs: number,
  resultsDir: string,
  overrides: readonly string[] = [],
): Promise<Estimate> {
  const args = ['eval', 'run', '--config', 'configs/published.yaml', '--dry-run', '--json'];
  args.push('--questions', String(questions), '--runs', String(runs), '--mode', 'batch');
  args.push('--results-dir', join(resultsDir), ...setArgs([...liveOverrides(), ...overrides]));
  const { code, out, err } = await runRge(root, ...args);
  if (code !== 0) throw new Error(`the dry run failed: ${err}`);
  return JSON.parse(out) as Estimate;
}
