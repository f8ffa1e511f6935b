/**
 * Runs the three loopback servers until SIGINT/SIGTERM and prints the shell lines that point the SDKs
 * at them:
 *
 *   npx tsx test/loopback/serve.ts [--latency-ms N] [--fault-rate R] [--fault-seed S] [--fault-kinds 429,500]
 *
 * The printed keys are the only ones the servers accept. The Gemini SDK prefers GOOGLE_API_KEY over
 * GEMINI_API_KEY, so the output unsets it.
 *
 * In one shell: `npx tsx test/loopback/serve.ts [options] -- COMMAND [ARGS...]` starts the servers, runs
 * COMMAND with those variables set (and GOOGLE_API_KEY unset), stops the servers when it ends and exits
 * with its exit code, e.g. `npx tsx test/loopback/serve.ts -- npx rge eval run --config ...`.
 */
import { spawn } from 'node:child_process';
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
  const dash = process.argv.indexOf('--', 2);
  const command = dash === -1 ? [] : process.argv.slice(dash + 1);
  if (dash !== -1 && command.length === 0) throw new Error('-- must be followed by the command to run');
  const { values } = parseArgs({
    args: process.argv.slice(2, dash === -1 ? undefined : dash),
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
  if (command.length > 0) {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ANTHROPIC_BASE_URL: servers.anthropic.url,
      ANTHROPIC_API_KEY: keys.anthropic,
      OPENAI_BASE_URL: servers.openai.url,
      OPENAI_API_KEY: keys.openai,
      GOOGLE_GEMINI_BASE_URL: servers.gemini.url,
      GEMINI_API_KEY: keys.gemini,
    };
    delete env.GOOGLE_API_KEY;
    process.stderr.write(`# loopback servers up; running: ${command.join(' ')}\n`);
    process.exitCode = await runWith(command, env);
    await servers.close();
    return;
  }
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

/**
 * Runs `command` with `env`, its output on this process's; resolves with its exit code (128 + the signal
 * number when a signal ended it). A terminal's Ctrl-C reaches the command itself (one process group), so
 * here it is only kept from stopping the servers under it: rge's own handling of an interrupt (finish
 * what is in flight, a second Ctrl-C stops at once) is what the user meets. SIGTERM is passed on.
 */
function runWith(command: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [program, ...args] = command as [string, ...string[]];
  const child = spawn(program, args, { env, stdio: 'inherit' });
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve(code ?? 128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 9)),
    );
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`serve: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
