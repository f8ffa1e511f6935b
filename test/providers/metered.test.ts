/**
 * The wrapper every live call goes through, driven through the real SDKs against the loopback servers:
 * transient errors are retried a bounded number of times, non-retryable ones are not, a 429's
 * `retry-after` pauses every call of the provider (so the server is not hammered), an abort stops a
 * call, and a failed call releases its budget reservation.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProvider } from '../../src/models/registry.ts';
import { retrying } from '../../src/providers/budget.ts';
import { registerSecret } from '../../src/providers/credentials.ts';
import type { MeteredProvider, RateLimits } from '../../src/providers/index.ts';
import { CallError } from '../../src/providers/live/adapter.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import { BudgetLedger } from '../../src/store/ledger.ts';
import { startAnthropicServer, startOpenAIServer } from '../loopback/index.ts';
import { maskedKey } from '../loopback/openai.ts';

const KEY = 'sk-test-metered-0123456789';

const request: ModelRequest = {
  model: 'gpt-5.4',
  system: 'Answer briefly.',
  messages: [
    {
      role: 'user',
      content: '[acme-FY24-0123abcd] (Acme, FY24, p. 1)\nRevenue was 10.\n\nWhat was revenue?',
    },
  ],
  parameters: { temperature: 0 },
  maxTokens: 64,
};

function limits(over: Partial<RateLimits> = {}) {
  return {
    concurrency: over.concurrency ?? 1,
    rpm: over.rpm ?? null,
    tpm: over.tpm ?? null,
    timeout_ms: over.timeoutMs ?? 2000,
    max_attempts: over.maxAttempts ?? 4,
    min_backoff_ms: over.minBackoffMs ?? 5,
    max_backoff_ms: over.maxBackoffMs ?? 20,
  };
}

async function openai(url: string, over: Partial<RateLimits> = {}, ledger: BudgetLedger | null = null) {
  return (await createProvider(
    { id: 'gpt', provider: 'openai', model: 'gpt-5.4', family: 'openai' },
    'subject',
    {
      root: '/',
      env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: url },
      settings: { openai: limits(over) },
      spender: ledger,
      requireKeys: true,
    },
  )) as MeteredProvider;
}

const modelCalls = (paths: { path: string }[]) =>
  paths.filter((r) => r.path.includes('/chat/completions')).length;

describe('MeteredProvider', () => {
  it('retries transient failures and prices the reply from the catalogue', async () => {
    const server = await startOpenAIServer({
      apiKey: KEY,
      faults: { rate: 0.5, seed: 'metered-retry', kinds: ['500', '502', '503', 'malformed-json'] },
    });
    try {
      const provider = await openai(server.url, { maxAttempts: 10 });
      for (let i = 0; i < 6; i++) {
        const reply = await provider.complete(request);
        expect(reply.text).toBe('According to the report, Revenue was 10 [acme-FY24-0123abcd].');
        // gpt-5.4: $2.50 input, $15 output per million tokens
        const u = reply.usage;
        expect(reply.costUsd).toBeCloseTo(
          (u.inputTokens * 2.5 + u.outputTokens * 15 + u.cacheReadTokens * 0.25) / 1e6,
          15,
        );
      }
      expect(modelCalls(server.requests)).toBeGreaterThan(6); // some attempts failed and were retried
      expect(server.billed).toHaveLength(6);
    } finally {
      await server.close();
    }
  });

  it('gives up after max_attempts, naming the last failure', async () => {
    const server = await startOpenAIServer({ apiKey: KEY, faults: { rate: 1, seed: 's', kinds: ['500'] } });
    try {
      const provider = await openai(server.url, { maxAttempts: 3 });
      await expect(provider.complete(request)).rejects.toThrow(/^openai\/gpt-5\.4: openai 500: /);
      expect(modelCalls(server.requests)).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('does not retry a 401, and says so without the key', async () => {
    const server = await startOpenAIServer({ apiKey: 'another-key-000000' });
    try {
      const provider = await openai(server.url);
      const err = (await provider.complete(request).catch((e: unknown) => e)) as Error;
      expect(err.message).toMatch(/openai 401/);
      expect(err.message).not.toContain(KEY);
      // the fake echoes the key masked, as OpenAI does (sk-test-**************6789): none of it is said
      expect(err.message).toContain('Incorrect API key provided: [redacted]. You can find your API key');
      expect(err.message).not.toContain(maskedKey(KEY));
      expect(err.message).not.toMatch(/sk-test-|6789/);
      expect(modelCalls(server.requests)).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('a retry line says nothing of a key the failure echoed, masked or whole', async () => {
    registerSecret(KEY);
    const lines: string[] = [];
    const failure = `openai 503: upstream said: Incorrect API key provided: ${maskedKey(KEY)}.`;
    const err = await retrying(
      'openai/gpt-5.4',
      async () => {
        throw new CallError(failure, 503, true, null);
      },
      { maxAttempts: 3, minBackoffMs: 1, maxBackoffMs: 1, onRetry: (line) => lines.push(line) },
    ).catch((e: unknown) => e as Error);
    expect(err.message).toBe(failure); // the caller (MeteredProvider, MeteredBatch) redacts what it throws
    expect(lines).toEqual([
      'openai/gpt-5.4: attempt 1 failed (openai 503: upstream said: Incorrect API key provided: [redacted].); retrying',
      'openai/gpt-5.4: attempt 2 failed (openai 503: upstream said: Incorrect API key provided: [redacted].); retrying',
    ]);
  });

  it("obeys a 429's retry-after: every call of the provider waits, so few requests are refused", async () => {
    // The server takes 2 requests per 400 ms window; rge's own limiter is unlimited and retries after
    // 5-20 ms, so without the pause every refused call would burn its attempts within the window.
    const server = await startOpenAIServer({ apiKey: KEY, rateLimit: { rpm: 2, windowMs: 400 } });
    try {
      const provider = await openai(server.url, { concurrency: 2, maxAttempts: 4 });
      const started = Date.now();
      const replies = await Promise.all(Array.from({ length: 8 }, () => provider.complete(request)));
      expect(replies).toHaveLength(8);
      // 8 calls at 2 per 400 ms need at least 3 more windows after the first
      expect(Date.now() - started).toBeGreaterThanOrEqual(3 * 400 - 50);
      const refused = server.requests.filter((r) => r.status === 429).length;
      expect(refused).toBeLessThanOrEqual(8);
    } finally {
      await server.close();
    }
  });

  it('an aborted call stops and releases its reservation', async () => {
    const server = await startAnthropicServer({ apiKey: KEY, latencyMs: 2000 });
    const dir = await mkdtemp(join(tmpdir(), 'rge-metered-'));
    const ledger = new BudgetLedger(dir, { capUsd: 1, warnUsd: 0.5, configFile: 'test.yaml' });
    try {
      const provider = (await createProvider(
        { id: 'claude', provider: 'anthropic', model: 'claude-sonnet-4-6', family: 'anthropic' },
        'subject',
        {
          root: '/',
          env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
          settings: { anthropic: limits({ timeoutMs: 10_000 }) },
          spender: ledger,
          requireKeys: true,
        },
      )) as MeteredProvider;
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      await expect(
        provider.complete(
          { ...request, model: 'claude-sonnet-4-6', parameters: {} },
          { signal: controller.signal },
        ),
      ).rejects.toThrow(/aborted/);
      const s = ledger.refresh();
      expect(s.open).toEqual([]);
      expect(s.spentUsd).toBe(0);
      expect(server.billed).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  it('a call waiting for its slot when its run stops leaves at once: never sent, nothing reserved (issue 52)', async () => {
    // one call at a time; the first takes 1.5 s, the second waits behind it and is stopped after 100 ms
    const server = await startOpenAIServer({ apiKey: KEY, latencyMs: 1500 });
    const dir = await mkdtemp(join(tmpdir(), 'rge-metered-'));
    const ledger = new BudgetLedger(dir, { capUsd: 1, warnUsd: 0.5, configFile: 'test.yaml' });
    try {
      const provider = await openai(server.url, { concurrency: 1, timeoutMs: 10_000 }, ledger);
      const first = provider.complete(request);
      const stop = new AbortController();
      const started = Date.now();
      const second = provider.complete(request, { signal: stop.signal });
      setTimeout(() => stop.abort(new Error('stopped by SIGTERM')), 100);
      await expect(second).rejects.toThrow(/stopped by SIGTERM/);
      // before: it waited for the first call's 1.5 s, then reserved and sent an aborted request
      expect(Date.now() - started).toBeLessThan(1000);
      expect(ledger.refresh().open).toHaveLength(1); // the first call's reservation only
      await first;
      await new Promise((r) => setTimeout(r, 100));
      expect(modelCalls(server.requests)).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('a reply that came in is returned even when the stop comes just after it (issue 52)', async () => {
    // p-retry throws the signal's reason when it aborts between the reply and p-retry's next look: the
    // reply, paid for, was thrown away and its reservation released
    const stop = new AbortController();
    const reply = await retrying(
      'openai/gpt-5.4',
      async () => {
        stop.abort(new Error('stopped by SIGTERM'));
        return 'a paid reply';
      },
      { maxAttempts: 3, minBackoffMs: 1, maxBackoffMs: 2, signal: stop.signal },
    );
    expect(reply).toBe('a paid reply');
  });

  it('a reply whose rate-limit headers say none is left pauses the next call until the reset', async () => {
    const server = await startOpenAIServer({ apiKey: KEY, rateLimit: { rpm: 1, windowMs: 300 } });
    try {
      const provider = await openai(server.url, { maxAttempts: 2 });
      await provider.complete(request);
      const t0 = Date.now();
      await provider.complete(request);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(250); // waited for the window, not refused
      expect(server.requests.filter((r) => r.status === 429)).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
