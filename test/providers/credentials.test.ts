import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKeyFor,
  baseUrlFor,
  compatibleKey,
  environment,
  redactSecrets,
  registerSecret,
} from '../../src/providers/credentials.ts';
import { RgeError } from '../../src/util/errors.ts';
import { incorrectKeyMessage } from '../loopback/openai.ts';

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'rge-credentials-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const caught = (fn: () => unknown): Error => {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
};

describe('environment', () => {
  it('reads .env in the folder, and the process environment wins over it', async () => {
    const dir = join(work, 'with-env');
    await mkdir(dir);
    await writeFile(
      join(dir, '.env'),
      '# keys\nANTHROPIC_API_KEY=from-file-anthropic\nOPENAI_API_KEY="from-file-openai"\nONLY_IN_FILE=1\n',
    );
    const env = environment(dir, { OPENAI_API_KEY: 'from-process', ONLY_IN_PROCESS: 'p' });
    expect(env.ANTHROPIC_API_KEY).toBe('from-file-anthropic');
    expect(env.OPENAI_API_KEY).toBe('from-process');
    expect(env.ONLY_IN_FILE).toBe('1');
    expect(env.ONLY_IN_PROCESS).toBe('p');
  });

  it('without .env it is the process environment', async () => {
    const dir = join(work, 'without-env');
    await mkdir(dir);
    expect(environment(dir, { A: 'x' })).toEqual({ A: 'x' });
  });

  it('a .env that cannot be read is an RgeError naming the file', async () => {
    const dir = join(work, 'env-is-a-folder');
    await mkdir(join(dir, '.env'), { recursive: true });
    const err = caught(() => environment(dir, {}));
    expect(err).toBeInstanceOf(RgeError);
    expect((err as RgeError).file).toBe(join(dir, '.env'));
    expect(err.message).toContain(`${join(dir, '.env')}: cannot read .env`);
  });

  it('a malformed .env is an error naming the file and line (Node parseEnv would accept it silently)', async () => {
    const dir = join(work, 'env-malformed');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, '.env'), 'GOOD=1\nOPENAI_API_KEY="sk-unterminated\n');
    expect(() => environment(dir, {})).toThrow(
      `${join(dir, '.env')}:2: the value's " quote is not closed on its line`,
    );
    await writeFile(join(dir, '.env'), '# a comment\n\nnot an assignment\n');
    expect(() => environment(dir, {})).toThrow(`${join(dir, '.env')}:3: not a NAME=value line`);
  });
});

describe('apiKeyFor', () => {
  it('finds GEMINI_API_KEY, else GOOGLE_API_KEY, trimmed', () => {
    expect(apiKeyFor('gemini', 'judge gemini', { GEMINI_API_KEY: '  gem-key-0001\n' })).toBe('gem-key-0001');
    expect(apiKeyFor('gemini', 'judge gemini', { GOOGLE_API_KEY: 'goo-key-0002 ' })).toBe('goo-key-0002');
    // both set: GEMINI_API_KEY first
    expect(
      apiKeyFor('gemini', 'judge gemini', { GEMINI_API_KEY: 'gem-key-0003', GOOGLE_API_KEY: 'goo-key-0004' }),
    ).toBe('gem-key-0003');
    // a blank GEMINI_API_KEY does not hide GOOGLE_API_KEY
    expect(
      apiKeyFor('gemini', 'judge gemini', { GEMINI_API_KEY: '   ', GOOGLE_API_KEY: 'goo-key-0005' }),
    ).toBe('goo-key-0005');
  });

  it('a missing key is an error naming the variables and who needs the key', () => {
    const gemini = caught(() => apiKeyFor('gemini', 'judge gemini-pro', { GEMINI_API_KEY: ' ' }));
    expect(gemini).toBeInstanceOf(RgeError);
    expect(gemini.message).toBe(
      'judge gemini-pro needs an API key: set GEMINI_API_KEY or GOOGLE_API_KEY in the environment or in .env (nothing was called)',
    );
    expect(() => apiKeyFor('anthropic', 'subject claude', {})).toThrow(
      /^subject claude needs an API key: set ANTHROPIC_API_KEY in the environment/,
    );
    expect(() => apiKeyFor('openai', 'subject gpt', { ANTHROPIC_API_KEY: 'sk-ant-1234567890' })).toThrow(
      /set OPENAI_API_KEY /,
    );
  });
});

describe('redactSecrets', () => {
  it('after apiKeyFor returns a key, the key is replaced everywhere in a text', () => {
    const key = 'sk-ant-redact-me-0123456789';
    const text = `401 for key ${key}; header x-api-key: ${key}.`;
    expect(redactSecrets(text)).toBe(text); // not a secret yet
    expect(apiKeyFor('anthropic', 'subject claude', { ANTHROPIC_API_KEY: ` ${key} ` })).toBe(key);
    expect(redactSecrets(text)).toBe('401 for key [redacted]; header x-api-key: [redacted].');
    expect(redactSecrets('nothing secret here')).toBe('nothing secret here');
  });

  it('a key from compatibleKey is registered too', () => {
    const key = 'vllm-token-abcdefgh';
    expect(compatibleKey('subject local', 'VLLM_TOKEN', { VLLM_TOKEN: key })).toBe(key);
    expect(redactSecrets(`Bearer ${key}`)).toBe('Bearer [redacted]');
  });

  it('values shorter than 8 characters are not registered (they would redact ordinary words)', () => {
    // 7 characters: returned, but not a secret
    expect(apiKeyFor('openai', 'subject gpt', { OPENAI_API_KEY: 'abc1234' })).toBe('abc1234');
    expect(redactSecrets('abc1234 stays')).toBe('abc1234 stays');
    registerSecret('short');
    expect(redactSecrets('a short word')).toBe('a short word');
    // 8 characters is enough
    registerSecret('eightchr');
    expect(redactSecrets('eightchr!')).toBe('[redacted]!');
  });
});

describe('redactSecrets: the fragments of a key a provider echoes', () => {
  // a project key's length and shape: its public prefix, 156 characters, the 4 OpenAI shows
  const key = `sk-proj-${'Hd83kQpZ'.repeat(19)}Wm5t`;
  const classic = 'sk-PMafPb7TQ2xLw9RfZc4NvK8mJ1sYhD6gUe3aWq5iBo0nE873';
  registerSecret(key);
  registerSecret(classic);
  const url = 'You can find your API key at https://platform.openai.com/account/api-keys.';

  it("redacts OpenAI's masked key (its first 8 and last 4 characters around asterisks) in a 401 body", () => {
    for (const k of [key, classic]) {
      const body = `401 ${incorrectKeyMessage(k)}`;
      expect(body).toContain(k.slice(-4)); // what the fake echoes, as OpenAI does
      expect(redactSecrets(body)).toBe(`401 Incorrect API key provided: [redacted]. ${url}`);
    }
    // the same inside an error body as JSON, and in a retry line
    const json = JSON.stringify({ error: { message: incorrectKeyMessage(key), code: 'invalid_api_key' } });
    expect(redactSecrets(json)).not.toContain('Wm5t');
    const retry = `openai/gpt-5.4: attempt 1 failed (openai 401: ${incorrectKeyMessage(classic)}); retrying`;
    expect(redactSecrets(retry)).toBe(
      `openai/gpt-5.4: attempt 1 failed (openai 401: Incorrect API key provided: [redacted]. ${url}); retrying`,
    );
  });

  it('redacts other masks: fewer asterisks, dots, an ellipsis, bullets, only the start or only the end', () => {
    for (const masked of [
      'sk-proj-****Wm5t',
      'sk-proj-...Wm5t',
      'sk-proj-…Wm5t',
      'sk-proj-••••••Wm5t',
      '****Wm5t',
      'sk-PMafP****',
      'sk-PMafPb7TQ...E873',
      '#####E873',
    ])
      expect(redactSecrets(`key provided: ${masked}.`), masked).toBe('key provided: [redacted].');
  });

  it('redacts a key cut short: 16 characters in a row of its secret part, anywhere', () => {
    const cut = key.slice(10, 40);
    expect(redactSecrets(`bad key ${cut}...`)).toBe('bad key [redacted]...');
    expect(redactSecrets(`(${classic.slice(3, 19)})`)).toBe('([redacted])');
  });

  it('leaves alone what is not a fragment of a key', () => {
    for (const text of [
      '***bold*** and **strong**',
      'waiting... for the batch',
      'another key: sk-proj-************wxyz.', // a public prefix alone reveals nothing
      'sk-***',
      `${key.slice(10, 25)} is 15 characters of it`,
      'Wm5 and E87 are too short to say anything',
    ])
      expect(redactSecrets(text), text).toBe(text);
  });
});

describe('baseUrlFor', () => {
  it('prefers the configured URL, then the SDK variable, then undefined', () => {
    const env = {
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9001',
      GOOGLE_GEMINI_BASE_URL: ' http://127.0.0.1:9003 ',
    };
    expect(baseUrlFor('anthropic', 'http://gateway.local/anthropic', env)).toBe(
      'http://gateway.local/anthropic',
    );
    expect(baseUrlFor('anthropic', undefined, env)).toBe('http://127.0.0.1:9001');
    expect(baseUrlFor('gemini', undefined, env)).toBe('http://127.0.0.1:9003');
    expect(baseUrlFor('openai', undefined, env)).toBeUndefined();
    expect(baseUrlFor('openai', undefined, { OPENAI_BASE_URL: '  ' })).toBeUndefined();
  });
});

describe('compatibleKey', () => {
  it("is 'none' without a variable name, the variable's value with one, an error when it is unset", () => {
    expect(compatibleKey('subject local', undefined, { OPENAI_API_KEY: 'ignored-key-123' })).toBe('none');
    expect(compatibleKey('subject local', 'LOCAL_KEY', { LOCAL_KEY: ' local-key-1234 ' })).toBe(
      'local-key-1234',
    );
    const err = caught(() => compatibleKey('subject local', 'LOCAL_KEY', {}));
    expect(err).toBeInstanceOf(RgeError);
    expect(err.message).toBe('subject local needs an API key: set LOCAL_KEY in the environment or in .env');
  });
});

describe('redactSecrets: order of the secrets', () => {
  it('a masked key goes whole though another secret with the same last four was registered first', () => {
    registerSecret('zz-other-secret-value-6789');
    registerSecret('sk-test-order-0123456789');
    const masked = 'sk-test-************6789';
    expect(redactSecrets(`Incorrect API key provided: ${masked}. You can`)).toBe(
      'Incorrect API key provided: [redacted]. You can',
    );
  });
});
