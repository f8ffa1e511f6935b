/**
 * Runs the three loopback servers until SIGINT/SIGTERM and prints the shell lines that point the SDKs
 * at them:
 *
 *   npx tsx test/loopback/serve.ts [--latency-ms N] [--fault-rate R] [--fault-seed S] [--fault-kinds 429,500]
 *
 * The printed keys are the only ones the servers accept. The Gemini SDK prefers GOOGLE_API_KEY over
 * GEMINI_API_KEY, so the output unsets it.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { ALL_FAULT_KINDS, type FaultKind } from './common.ts';
import { startLoopbackServers } from './index.ts';

/** Every kind but 'timeout', which would hold requests for the SDKs' default timeouts (minutes). */
const DEFAULT_KINDS = ALL_FAULT_KINDS.filter((k) => k !== 'timeout');

function parseKinds(raw: string | undefined): FaultKind[] {
  if (raw === undefined) return [...DEFAULT_KINDS];
  const kinds = raw.split(',').map((k) => k.trim());
  const unknown = kinds.filter((k) => !(ALL_FAULT_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0)
    throw new Error(`unknown fault kinds: ${unknown.join(', ')} (known: ${ALL_FAULT_KINDS.join(', ')})`);
  return kinds as FaultKind[];
}

function parseNumber(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`--${name} must be a non-negative number, got ${raw}`);
  return value;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'latency-ms': { type: 'string' },
      'fault-rate': { type: 'string' },
      'fault-seed': { type: 'string' },
      'fault-kinds': { type: 'string' },
    },
  });
  const latencyMs = parseNumber('latency-ms', values['latency-ms'], 0);
  const faultRate = parseNumber('fault-rate', values['fault-rate'], 0);
  if (faultRate > 1) throw new Error('--fault-rate must be between 0 and 1');
  const keys = {
    anthropic: `sk-ant-loopback-${randomBytes(12).toString('hex')}`,
    openai: `sk-loopback-${randomBytes(12).toString('hex')}`,
    gemini: `gemini-loopback-${randomBytes(12).toString('hex')}`,
  };
  const servers = await startLoopbackServers(
    {
      latencyMs,
      ...(faultRate > 0
        ? {
            faults: {
              rate: faultRate,
              seed: values['fault-seed'] ?? 'loopback',
              kinds: parseKinds(values['fault-kinds']),
            },
          }
        : {}),
    },
    {
      anthropic: { apiKey: keys.anthropic },
      openai: { apiKey: keys.openai },
      gemini: { apiKey: keys.gemini },
    },
  );
  const lines = [
    `export ANTHROPIC_BASE_URL=${servers.anthropic.url}`,
    `export ANTHROPIC_API_KEY=${keys.anthropic}`,
    `export OPENAI_BASE_URL=${servers.openai.url}`,
    `export OPENAI_API_KEY=${keys.openai}`,
    `export GOOGLE_GEMINI_BASE_URL=${servers.gemini.url}`,
    `export GEMINI_API_KEY=${keys.gemini}`,
    'unset GOOGLE_API_KEY',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  process.stderr.write(
    `# loopback servers up (latency ${latencyMs} ms, fault rate ${faultRate}); Ctrl-C to stop\n`,
  );

  const stop = async (signal: string) => {
    process.stderr.write(`# ${signal}: stopping loopback servers\n`);
    await servers.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`serve: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
