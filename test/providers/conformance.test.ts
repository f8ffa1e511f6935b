/**
 * Conformance, per provider: the published config's exact requests (each subject's answer request and
 * each judge's verdict request, as sync calls and as batch items) go through the real SDKs, built by
 * rge's registry from the config's entries, to loopback fakes as strict as the real services
 * (test/loopback: unknown fields, per-version and per-model rules, enum spellings). Any 400 fails.
 */
import { describe, expect, it } from 'vitest';
import { createProvider } from '../../src/models/registry.ts';
import { CallError } from '../../src/providers/live/adapter.ts';
import { MeteredProvider } from '../../src/providers/metered.ts';
import { loadRunConfig } from '../../src/run/config/config.ts';
import { FAKE_KEYS, root, serverKeys } from '../helpers/live.ts';
import { type PublishedRequest, publishedRequests } from '../helpers/published-requests.ts';
import { until } from '../helpers/wait.ts';
import { startAnthropicServer } from '../loopback/anthropic.ts';
import type { LoopbackServer } from '../loopback/common.ts';
import { startGeminiServer } from '../loopback/gemini.ts';
import { startOpenAIServer } from '../loopback/openai.ts';

const PROVIDERS = {
  anthropic: { start: startAnthropicServer, env: 'ANTHROPIC_BASE_URL' },
  openai: { start: startOpenAIServer, env: 'OPENAI_BASE_URL' },
  gemini: { start: startGeminiServer, env: 'GOOGLE_GEMINI_BASE_URL' },
} as const;

type ProviderName = keyof typeof PROVIDERS;

/** The published config's providers of one vendor, built by the registry against its fake. */
async function providersFor(name: ProviderName, server: LoopbackServer) {
  const config = await loadRunConfig(`${root}configs/published.yaml`);
  const entries = [
    ...config.subjects.map((e) => ({ e, role: 'subject' as const })),
    ...config.judges.map((e) => ({ e, role: 'judge' as const })),
  ].filter(({ e }) => e.provider === name);
  const built = new Map<string, MeteredProvider>();
  for (const { e, role } of entries) {
    const provider = await createProvider(e, role, {
      root,
      env: { ...FAKE_KEYS, [PROVIDERS[name].env]: server.url },
      settings: {},
      spender: null,
      requireKeys: true,
    });
    if (!(provider instanceof MeteredProvider)) throw new Error(`${e.id} is not a live provider`);
    built.set(e.id, provider);
  }
  return built;
}

const refused = (server: LoopbackServer) =>
  server.requests.filter((r) => r.status >= 400).map((r) => `${r.status} ${r.method} ${r.path}`);

describe("the published config's requests are accepted by strict fakes of the three APIs", () => {
  for (const name of Object.keys(PROVIDERS) as ProviderName[]) {
    it(`${name}: every subject and judge request, sync and as batch items, with no 400`, async () => {
      const server = await PROVIDERS[name].start({ ...serverKeys[name], batch: { completeAfterMs: 5 } });
      try {
        const requests: PublishedRequest[] = (await publishedRequests()).filter((r) => r.provider === name);
        expect(requests.map((r) => r.role).sort()).toEqual(['judge', 'subject']);
        const providers = await providersFor(name, server);

        // sync: each request through MeteredProvider -> adapter -> SDK -> fake
        for (const r of requests) {
          const provider = providers.get(r.id);
          if (!provider) throw new Error(`no provider for ${r.id}`);
          const reply = await provider.complete(r.request);
          expect(reply.text.length, r.id).toBeGreaterThan(0);
          expect(reply.stop, r.id).toEqual({ kind: 'complete', reason: expect.any(String) });
        }

        // batch: each model's requests as the items of one batch, submitted, polled and read back
        for (const r of requests) {
          const batch = providers.get(r.id)?.batch;
          if (!batch) throw new Error(`${r.id} has no batch API`);
          const ids = ['item-0', 'item-1'];
          const tag = `rge-conformance-${r.id}`;
          const calls = { minBackoffMs: 10 };
          const hint = () => ({
            query: { tag, submittedAfterMs: 0, items: 2, customIdPrefix: 'item-' },
            exclude: new Set<string>(),
          });
          const remote = await batch.submit(
            ids.map((customId, i) => ({
              customId,
              request: { ...r.request, seed: (r.request.seed ?? 0) + i },
            })),
            tag,
            hint,
            calls,
          );
          const progress = await until(
            () => batch.progress(tag, remote, ids.length, calls),
            (p) => p.ended,
          );
          expect(progress.ended, r.id).toBe(true);
          const results = await batch.results(tag, remote, ids, calls);
          expect(
            results.map((x) => (x.ok ? 'ok' : x.error)),
            r.id,
          ).toEqual(['ok', 'ok']);
        }

        expect(refused(server)).toEqual([]);
        // what reached the API, as the fake recorded it (sync calls and batch items)
        const bodies = server.calls.map((c) => c.body);
        expect(bodies).toHaveLength(requests.length * 3);
        for (const call of server.calls) {
          if (name === 'anthropic') {
            expect(call.apiVersion).toBe('2026-10-21');
            for (const field of ['temperature', 'top_p', 'top_k'])
              expect(call.body).not.toHaveProperty(field);
          }
          if (name === 'openai') {
            expect(call.body).toMatchObject({ reasoning_effort: 'none', temperature: 0 });
            expect(call.body).toHaveProperty('max_completion_tokens');
            expect(call.body).not.toHaveProperty('max_tokens');
          }
          if (name === 'gemini') {
            expect(call.body).toMatchObject({
              generationConfig: { thinkingConfig: { thinkingLevel: 'LOW' } },
            });
            expect(call.body).not.toHaveProperty('generationConfig.temperature');
          }
        }
      } finally {
        await server.close();
      }
    }, 120_000);
  }

  it('the fakes are strict: the request rge used to send Claude is refused with the API’s message', async () => {
    const server = await startAnthropicServer(serverKeys.anthropic);
    try {
      const [claude] = (await publishedRequests()).filter((r) => r.id === 'claude');
      if (!claude) throw new Error('no claude request');
      const provider = (await providersFor('anthropic', server)).get('claude');
      // rge's own adapter refuses to send it (the contract); the raw request below shows the fake would too
      await expect(provider?.complete({ ...claude.request, parameters: { temperature: 0 } })).rejects.toThrow(
        CallError,
      );
      expect(server.requests).toHaveLength(0);
      const response = await fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': FAKE_KEYS.ANTHROPIC_API_KEY,
          'anthropic-version': '2026-10-21',
        },
        body: JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 16, temperature: 0, messages: [] }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'temperature: Extra inputs are not permitted' },
      });
    } finally {
      await server.close();
    }
  });
});
