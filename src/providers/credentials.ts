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
import type { LiveProvider } from './catalogue.ts';

/**
 * A vendor: a live provider with its own key and base URL variables (an `openai-compatible` entry names
 * its own). The two tables below are typed over the vendors, so a provider added to `LIVE_PROVIDERS`
 * does not compile until it names its variables.
 */
export type Vendor = Exclude<LiveProvider, 'openai-compatible'>;

export const KEY_VARIABLES = {
  anthropic: ['ANTHROPIC_API_KEY'],
  openai: ['OPENAI_API_KEY'],
  gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
} as const satisfies Record<Vendor, readonly string[]>;

export const BASE_URL_VARIABLES = {
  anthropic: 'ANTHROPIC_BASE_URL',
  openai: 'OPENAI_BASE_URL',
  gemini: 'GOOGLE_GEMINI_BASE_URL',
} as const satisfies Record<Vendor, string>;

const secrets = new Set<string>();

/** What a key, or a fragment of one, is replaced by. */
const REDACTED = '[redacted]';

/** Marks a value as secret: `redactSecrets` replaces it, and the fragments of it a provider echoes. */
export function registerSecret(value: string): void {
  if (value.length >= 8) secrets.add(value);
}

/**
 * The text with every registered secret, and every fragment of one a provider may echo, replaced by
 * `[redacted]`:
 * - the whole key;
 * - a masked key: a mask (3 or more `*`, `•` or `#`, 3 or more dots, an ellipsis) between characters a
 *   key is made of, where those before the mask are the key's start (3 characters or more past its
 *   public prefix) or those after it its end (4 or more). OpenAI's 401 shows a key so, its first 8 and
 *   its last 4 characters around asterisks: "Incorrect API key provided: sk-proj-****...****abcd. You can
 *   find your API key at https://platform.openai.com/account/api-keys.";
 * - 16 characters or more in a row of a key's secret part (what follows its public prefix, such as
 *   `sk-proj-`, `sk-ant-api03-` or `AIza`): a key cut short.
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  for (const s of secrets) out = redactRuns(redactMasked(out, s), s);
  return out;
}

/** A run of mask characters, and the characters keys are made of. */
const MASK_RUN = /(?:[*•#]{3,}|\.{3,}|…)+/g;
const KEY_CHAR = /[A-Za-z0-9_-]/;

/** The length of the longest end of `head` that starts `secret` (0: none). */
function startOfSecret(head: string, secret: string): number {
  for (let k = Math.min(head.length, secret.length); k > 0; k--)
    if (secret.startsWith(head.slice(head.length - k))) return k;
  return 0;
}

/** The length of the longest start of `tail` that ends `secret` (0: none). */
function endOfSecret(tail: string, secret: string): number {
  for (let k = Math.min(tail.length, secret.length); k > 0; k--)
    if (secret.endsWith(tail.slice(0, k))) return k;
  return 0;
}

/** The public start of a key (the same for every key of its kind), which alone reveals nothing. */
const PUBLIC_PREFIX = /^(?:sk-(?:proj|svcacct|admin|ant-(?:api|admin)\d\d)-|sk-|AIza)/;

function publicPrefixOf(secret: string): string {
  return PUBLIC_PREFIX.exec(secret)?.[0] ?? '';
}

/** `text` with every masked form of `secret` (its start, a mask, its end: the whole token) replaced. */
function redactMasked(text: string, secret: string): string {
  let out = '';
  let last = 0;
  for (const m of text.matchAll(MASK_RUN)) {
    const start = m.index;
    const end = start + m[0].length;
    let headStart = start;
    while (headStart > last && KEY_CHAR.test(text[headStart - 1] as string)) headStart--;
    let tailEnd = end;
    while (tailEnd < text.length && KEY_CHAR.test(text[tailEnd] as string)) tailEnd++;
    const h = startOfSecret(text.slice(headStart, start), secret);
    const t = endOfSecret(text.slice(end, tailEnd), secret);
    if (h - publicPrefixOf(secret).length < 3 && t < 4) continue;
    // the whole masked token goes, whichever side matched: another secret's pass may have taken the
    // other side already, and what is left of a token (its public prefix, a tail) says nothing useful
    out += `${text.slice(last, headStart)}${REDACTED}`;
    last = tailEnd;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** How many characters in a row of a key's secret part are redacted wherever they appear. */
const RUN = 16;

/** `text` with every run of `RUN` or more characters of `secret`'s secret part replaced. */
function redactRuns(text: string, secret: string): string {
  const part = secret.slice(publicPrefixOf(secret).length);
  if (part.length < RUN || text.length < RUN) return text;
  const windows = new Set<string>();
  for (let i = 0; i + RUN <= part.length; i++) windows.add(part.slice(i, i + RUN));
  let out = '';
  let last = 0;
  let coveredTo = -1;
  for (let i = 0; i + RUN <= text.length; i++) {
    if (!windows.has(text.slice(i, i + RUN))) continue;
    if (i > coveredTo) {
      if (coveredTo >= 0) out += REDACTED;
      out += text.slice(last, i);
    }
    coveredTo = i + RUN;
    last = coveredTo;
  }
  return coveredTo < 0 ? text : `${out}${REDACTED}${text.slice(last)}`;
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
export function apiKeyFor(provider: Vendor, who: string, env: Record<string, string | undefined>): string {
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
  provider: Vendor,
  configured: string | undefined,
  env: Record<string, string | undefined>,
): string | undefined {
  return configured ?? (env[BASE_URL_VARIABLES[provider]]?.trim() || undefined);
}
