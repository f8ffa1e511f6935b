/**
 * API keys and base URLs of the live providers, from the environment or a `.env` file in the working
 * folder (the environment wins, as with dotenv). A key is read once, registered as a secret so that no
 * message rge prints or stores can carry it (`redactSecrets`), and never written anywhere.
 *
 * Keys: ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY (or GOOGLE_API_KEY); an `openai-compatible`
 * subject or judge names its own variable (`api_key_env`) or needs none. Base URLs: the config's
 * `providers.<name>.base_url`, else the SDKs' own variables ANTHROPIC_BASE_URL, OPENAI_BASE_URL,
 * GOOGLE_GEMINI_BASE_URL, else the vendor's endpoint; so gateways, proxies and loopback servers work.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { RgeError } from '../util/errors.ts';

export const KEY_VARIABLES = {
  anthropic: ['ANTHROPIC_API_KEY'],
  openai: ['OPENAI_API_KEY'],
  gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
} as const;

export const BASE_URL_VARIABLES = {
  anthropic: 'ANTHROPIC_BASE_URL',
  openai: 'OPENAI_BASE_URL',
  gemini: 'GOOGLE_GEMINI_BASE_URL',
} as const;

const secrets = new Set<string>();

/** Marks a value as secret: `redactSecrets` replaces it wherever it appears. */
export function registerSecret(value: string): void {
  if (value.length >= 8) secrets.add(value);
}

/** The text with every registered secret replaced by `[redacted]`. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  return out;
}

/** The environment as rge sees it: `.env` in `root` under the process environment. */
export function environment(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string | undefined> {
  const file = join(root, '.env');
  let fromFile: Record<string, string> = {};
  if (existsSync(file)) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new RgeError(`cannot read .env: ${(err as Error).message}`, { file });
    }
    checkDotenv(text, file);
    fromFile = parseEnv(text) as Record<string, string>;
  }
  return { ...fromFile, ...env };
}

/**
 * Node's `parseEnv` accepts anything (an unterminated quote becomes part of the value, a bad line is
 * dropped), so a `.env` is checked line by line first: `NAME=value`, optionally `export `, a quoted value
 * closed on its line; comments and blank lines. A bad line is an error naming the file and line.
 */
function checkDotenv(text: string, file: string): void {
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?[A-Za-z_][A-Za-z0-9_.-]*\s*=\s*(.*)$/.exec(line);
    if (!m) throw new RgeError('not a NAME=value line', { file, line: i + 1 });
    const value = m[1] ?? '';
    const quote = value[0];
    if (
      (quote === '"' || quote === "'" || quote === '`') &&
      !new RegExp(`^${quote}[^${quote}]*${quote}\\s*(#.*)?$`).test(value)
    )
      throw new RgeError(`the value's ${quote} quote is not closed on its line`, { file, line: i + 1 });
  }
}

/**
 * The API key a provider needs, or a clear error naming the variable and who needs it. Called for every
 * live subject and judge before anything is spent.
 */
export function apiKeyFor(
  provider: keyof typeof KEY_VARIABLES,
  who: string,
  env: Record<string, string | undefined>,
): string {
  const names = KEY_VARIABLES[provider];
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) {
      registerSecret(value);
      return value;
    }
  }
  throw new RgeError(
    `${who} needs an API key: set ${names.join(' or ')} in the environment or in .env (nothing was called)`,
  );
}

/** The key of an `openai-compatible` endpoint: from the variable the config names, or a placeholder. */
export function compatibleKey(
  who: string,
  variable: string | undefined,
  env: Record<string, string | undefined>,
): string {
  if (variable === undefined) return 'none';
  const value = env[variable]?.trim();
  if (!value) throw new RgeError(`${who} needs an API key: set ${variable} in the environment or in .env`);
  registerSecret(value);
  return value;
}

/** The base URL for a provider: the config's, else the SDK's own variable, else undefined (the vendor's). */
export function baseUrlFor(
  provider: keyof typeof BASE_URL_VARIABLES,
  configured: string | undefined,
  env: Record<string, string | undefined>,
): string | undefined {
  return configured ?? (env[BASE_URL_VARIABLES[provider]]?.trim() || undefined);
}
