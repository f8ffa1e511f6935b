import Anthropic from '@anthropic-ai/sdk';
import { ApiError } from '@google/genai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { CallError, durationMs, retryAfterMs } from '../../src/providers/live/adapter.ts';
import { classify as classifyAnthropic } from '../../src/providers/live/anthropic.ts';
import { classify as classifyGemini } from '../../src/providers/live/gemini.ts';
import { classify as classifyOpenAI } from '../../src/providers/live/openai.ts';

describe('durationMs', () => {
  it('parses the durations providers write', () => {
    expect(durationMs('20ms')).toBe(20);
    expect(durationMs('1.5s')).toBe(1500);
    expect(durationMs('30s')).toBe(30_000);
    // 6 * 60,000 + 0 * 1,000
    expect(durationMs('6m0s')).toBe(360_000);
    // 1 * 3,600,000 + 2 * 60,000
    expect(durationMs('1h2m')).toBe(3_720_000);
    // 1 * 60,000 + 2.5 * 1,000 + 7
    expect(durationMs('1m2.5s7ms')).toBe(62_507);
  });

  it('is null on text without a duration', () => {
    expect(durationMs('garbage')).toBeNull();
    expect(durationMs('')).toBeNull();
    expect(durationMs('12')).toBeNull();
  });
});

describe('retryAfterMs', () => {
  it('retry-after-ms first, in milliseconds', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '1500', 'retry-after': '9' }))).toBe(1500);
  });

  it('retry-after in seconds', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0.25' }))).toBe(250);
  });

  it('retry-after as an HTTP date, measured from now (never negative)', () => {
    const date = 'Wed, 21 Oct 2015 07:28:00 GMT';
    const at = Date.parse(date);
    expect(retryAfterMs(new Headers({ 'retry-after': date }), at - 7000)).toBe(7000);
    expect(retryAfterMs(new Headers({ 'retry-after': date }), at + 7000)).toBe(0);
  });

  it('the rate-limit reset headers as durations', () => {
    // 6 minutes
    expect(retryAfterMs(new Headers({ 'x-ratelimit-reset-requests': '6m0s' }))).toBe(360_000);
    expect(retryAfterMs(new Headers({ 'x-ratelimit-reset-tokens': '20ms' }))).toBe(20);
    // the requests reset wins over the tokens reset
    expect(
      retryAfterMs(new Headers({ 'x-ratelimit-reset-tokens': '20ms', 'x-ratelimit-reset-requests': '1s' })),
    ).toBe(1000);
  });

  it("Anthropic's requests reset date, measured from now", () => {
    const reset = '2026-01-01T00:00:10Z';
    expect(
      retryAfterMs(new Headers({ 'anthropic-ratelimit-requests-reset': reset }), Date.parse(reset) - 10_000),
    ).toBe(10_000);
  });

  it('reads a Headers object case-insensitively and a plain record by its key', () => {
    expect(retryAfterMs(new Headers({ 'Retry-After': '3' }))).toBe(3000);
    expect(retryAfterMs({ 'retry-after': '3' })).toBe(3000);
    expect(retryAfterMs({ 'retry-after-ms': '40', 'retry-after': undefined })).toBe(40);
  });

  it('null when no header says how long to wait', () => {
    expect(retryAfterMs(undefined)).toBeNull();
    expect(retryAfterMs(new Headers())).toBeNull();
    expect(retryAfterMs({ 'content-type': 'application/json' })).toBeNull();
    expect(
      retryAfterMs(new Headers({ 'retry-after': 'soon', 'x-ratelimit-reset-requests': 'never' })),
    ).toBeNull();
  });
});

const expectCall = (
  err: Error,
  want: { status: number | null; retryable: boolean; retryAfterMs: number | null },
): CallError => {
  expect(err).toBeInstanceOf(CallError);
  const c = err as CallError;
  expect({ status: c.status, retryable: c.retryable, retryAfterMs: c.retryAfterMs }).toEqual(want);
  return c;
};

describe('anthropic classify', () => {
  const apiError = (status: number, type: string, headers: Record<string, string> = {}) =>
    Anthropic.APIError.generate(
      status,
      { type: 'error', error: { type, message: `${type} happened` } },
      undefined,
      new Headers(headers),
    );

  it('429 is retryable after the retry-after the response gives', () => {
    const err = Anthropic.APIError.generate(
      429,
      { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } },
      undefined,
      new Headers({ 'retry-after': '2' }),
    );
    expect(err).toBeInstanceOf(Anthropic.RateLimitError);
    const c = expectCall(classifyAnthropic(err), { status: 429, retryable: true, retryAfterMs: 2000 });
    expect(c.message).toContain('anthropic 429');
    expect(c.message).toContain('slow down');
  });

  it('500, 502, 503 and 529 (overloaded) are retryable', () => {
    for (const status of [500, 502, 503, 529])
      expectCall(classifyAnthropic(apiError(status, 'api_error')), {
        status,
        retryable: true,
        retryAfterMs: null,
      });
  });

  it('401 and 400 are not', () => {
    expectCall(classifyAnthropic(apiError(401, 'authentication_error')), {
      status: 401,
      retryable: false,
      retryAfterMs: null,
    });
    expectCall(classifyAnthropic(apiError(400, 'invalid_request_error')), {
      status: 400,
      retryable: false,
      retryAfterMs: null,
    });
  });

  it('timeouts and connection errors are retryable; an abort is not', () => {
    const timeout = expectCall(classifyAnthropic(new Anthropic.APIConnectionTimeoutError()), {
      status: null,
      retryable: true,
      retryAfterMs: null,
    });
    expect(timeout.message).toBe('anthropic: request timed out');
    expectCall(classifyAnthropic(new Anthropic.APIConnectionError({ message: 'ECONNRESET' })), {
      status: null,
      retryable: true,
      retryAfterMs: null,
    });
    expectCall(classifyAnthropic(new Anthropic.APIUserAbortError()), {
      status: null,
      retryable: false,
      retryAfterMs: null,
    });
  });

  it('a malformed reply is retryable, an unknown error is not, a CallError passes through', () => {
    expectCall(classifyAnthropic(new SyntaxError('Unexpected token')), {
      status: null,
      retryable: true,
      retryAfterMs: null,
    });
    expectCall(classifyAnthropic(new Error('boom')), { status: null, retryable: false, retryAfterMs: null });
    const own = new CallError('x', 418, false, 5);
    expect(classifyAnthropic(own)).toBe(own);
  });
});

describe('openai classify', () => {
  const apiError = (status: number, headers: Record<string, string> = {}) =>
    OpenAI.APIError.generate(
      status,
      { error: { message: `status ${status}` } },
      undefined,
      new Headers(headers),
    );

  it('429 is retryable after the reset header', () => {
    const err = apiError(429, { 'x-ratelimit-reset-requests': '6m0s' });
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const c = expectCall(classifyOpenAI('openai', err), {
      status: 429,
      retryable: true,
      retryAfterMs: 360_000,
    });
    expect(c.message).toContain('openai 429');
  });

  it('retry-after-ms wins over retry-after', () => {
    const err = apiError(503, { 'retry-after-ms': '750', 'retry-after': '5' });
    expectCall(classifyOpenAI('openai', err), { status: 503, retryable: true, retryAfterMs: 750 });
  });

  it('500 and 502 are retryable; 401 and 400 are not', () => {
    for (const status of [500, 502])
      expectCall(classifyOpenAI('openai', apiError(status)), { status, retryable: true, retryAfterMs: null });
    for (const status of [400, 401])
      expectCall(classifyOpenAI('openai', apiError(status)), {
        status,
        retryable: false,
        retryAfterMs: null,
      });
  });

  it('timeouts are retryable, aborts are not, and the provider name is the one given', () => {
    const c = expectCall(classifyOpenAI('local-vllm', new OpenAI.APIConnectionTimeoutError()), {
      status: null,
      retryable: true,
      retryAfterMs: null,
    });
    expect(c.message).toBe('local-vllm: request timed out');
    expectCall(classifyOpenAI('openai', new OpenAI.APIUserAbortError()), {
      status: null,
      retryable: false,
      retryAfterMs: null,
    });
  });
});

describe('gemini classify', () => {
  it('429 is retryable after the RetryInfo delay in the message', () => {
    const err = new ApiError({
      message:
        'got status: 429 Too Many Requests. {"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":' +
        '[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay": "30s"}]}}',
      status: 429,
    });
    const c = expectCall(classifyGemini(err), { status: 429, retryable: true, retryAfterMs: 30_000 });
    expect(c.message).toContain('gemini 429');
  });

  it('503 and 500 are retryable without a delay; 400 and 401 are not', () => {
    for (const status of [500, 503])
      expectCall(classifyGemini(new ApiError({ message: `got status: ${status}`, status })), {
        status,
        retryable: true,
        retryAfterMs: null,
      });
    for (const status of [400, 401])
      expectCall(classifyGemini(new ApiError({ message: `got status: ${status}`, status })), {
        status,
        retryable: false,
        retryAfterMs: null,
      });
  });

  it('a timeout and a failed fetch are retryable; our own abort is not', () => {
    const timeout = new Error('The operation was aborted due to timeout');
    timeout.name = 'TimeoutError';
    expectCall(classifyGemini(timeout), { status: null, retryable: true, retryAfterMs: null });
    expectCall(classifyGemini(new TypeError('fetch failed')), {
      status: null,
      retryable: true,
      retryAfterMs: null,
    });
    const ac = new AbortController();
    ac.abort();
    const aborted = expectCall(classifyGemini(new Error('This operation was aborted'), ac.signal), {
      status: null,
      retryable: false,
      retryAfterMs: null,
    });
    expect(aborted.message).toBe('gemini: aborted');
    expectCall(classifyGemini(new Error('boom')), { status: null, retryable: false, retryAfterMs: null });
  });
});
