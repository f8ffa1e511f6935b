import { describe, expect, it } from 'vitest';
import {
  CATALOGUE,
  costUsd,
  FREE,
  findModel,
  type ModelPrices,
  type PricedModel,
  pricedModel,
  uncachedCostUsd,
  worstCaseUsd,
} from '../../src/providers/catalogue.ts';
import type { Usage } from '../../src/providers/types.ts';
import { RgeError } from '../../src/util/errors.ts';

// claude-sonnet-4-6, USD per million tokens: input 3, output 15, cache read 0.3, cache write 3.75, batch -50%
const sonnet = (): ModelPrices => {
  const entry = findModel('anthropic', 'claude-sonnet-4-6');
  if (!entry) throw new Error('claude-sonnet-4-6 is not in the catalogue');
  return entry.prices;
};

const usage = (
  inputTokens: number,
  outputTokens: number,
  cacheReadTokens = 0,
  cacheWriteTokens = 0,
): Usage => ({
  inputTokens,
  outputTokens,
  cacheReadTokens,
  cacheWriteTokens,
});

describe('costUsd (hand-computed at claude-sonnet-4-6 prices)', () => {
  it('the catalogue holds the prices the arithmetic below assumes', () => {
    expect(sonnet()).toEqual({
      input: 3,
      output: 15,
      cache_read: 0.3,
      cache_write: 3.75,
      batch_discount: 0.5,
    });
  });

  it('1,000 in + 200 out + 3,000 cache read + 500 cache write: $0.008775 sync, $0.0043875 batch', () => {
    // 1000 * 3 + 200 * 15 + 3000 * 0.3 + 500 * 3.75 = 3000 + 3000 + 900 + 1875 = 8775 per million
    const u = usage(1000, 200, 3000, 500);
    expect(costUsd(u, sonnet(), { batch: false })).toBeCloseTo(0.008775, 15);
    // batch: 8775 * (1 - 0.5) / 1e6
    expect(costUsd(u, sonnet(), { batch: true })).toBeCloseTo(0.0043875, 15);
  });

  it('each kind of token is billed at its own price', () => {
    // one million of each alone costs exactly its price per million
    expect(costUsd(usage(1e6, 0), sonnet(), { batch: false })).toBeCloseTo(3, 12);
    expect(costUsd(usage(0, 1e6), sonnet(), { batch: false })).toBeCloseTo(15, 12);
    expect(costUsd(usage(0, 0, 1e6), sonnet(), { batch: false })).toBeCloseTo(0.3, 12);
    expect(costUsd(usage(0, 0, 0, 1e6), sonnet(), { batch: false })).toBeCloseTo(3.75, 12);
  });

  it('a model with no batch discount costs the same in a batch; FREE costs nothing', () => {
    const noDiscount = { ...sonnet(), batch_discount: 0 };
    const u = usage(1000, 200, 3000, 500);
    expect(costUsd(u, noDiscount, { batch: true })).toBeCloseTo(0.008775, 15);
    expect(costUsd(u, FREE.prices, { batch: false })).toBe(0);
  });
});

describe('uncachedCostUsd', () => {
  it('bills every cached token at the input price: reads saved $0.007725 on the call above', () => {
    const u = usage(1000, 200, 3000, 500);
    // (1000 + 3000 + 500) * 3 + 200 * 15 = 13500 + 3000 = 16500 per million = $0.0165
    expect(uncachedCostUsd(u, sonnet(), { batch: false })).toBeCloseTo(0.0165, 15);
    // saved: 0.0165 - 0.008775 = 0.007725 (3000 reads save 2.7/M each = 8100, 500 writes cost 0.75/M more = 375)
    const saved = uncachedCostUsd(u, sonnet(), { batch: false }) - costUsd(u, sonnet(), { batch: false });
    expect(saved).toBeCloseTo(0.007725, 15);
    // batch: both halve, so does the saving
    expect(uncachedCostUsd(u, sonnet(), { batch: true })).toBeCloseTo(0.00825, 15);
  });

  it('a write-only call costs MORE with caching at the 1.25x write price', () => {
    // 100 in + 50 out + 2,000 cache write:
    //   cached   100 * 3 + 50 * 15 + 2000 * 3.75 = 300 + 750 + 7500 = 8550 -> $0.00855
    //   uncached 2100 * 3 + 50 * 15 = 6300 + 750 = 7050 -> $0.00705
    const u = usage(100, 50, 0, 2000);
    const cached = costUsd(u, sonnet(), { batch: false });
    const uncached = uncachedCostUsd(u, sonnet(), { batch: false });
    expect(cached).toBeCloseTo(0.00855, 15);
    expect(uncached).toBeCloseTo(0.00705, 15);
    // the saving is negative: 2000 * (3 - 3.75) / 1e6 = -0.0015
    expect(uncached - cached).toBeCloseTo(-0.0015, 15);
  });

  it('without cached tokens it equals costUsd', () => {
    const u = usage(1234, 567);
    expect(uncachedCostUsd(u, sonnet(), { batch: false })).toBe(costUsd(u, sonnet(), { batch: false }));
  });
});

describe('worstCaseUsd', () => {
  it('claude-sonnet-4-6: 1,000 cl100k tokens x 1.35, billed at the cache-write price 3.75, + 2,048 out', () => {
    const m = pricedModel('subject claude', 'anthropic', 'claude-sonnet-4-6');
    expect(m.tokenRatio).toBe(1.35);
    // ceil(1000 * 1.35) = 1350; 1350 * max(3, 3.75) = 5062.5; 2048 * 15 = 30720; total 35782.5 per million
    expect(worstCaseUsd(m, 1000, 2048, { batch: false })).toBeCloseTo(0.0357825, 15);
    // batch: 35782.5 * 0.5
    expect(worstCaseUsd(m, 1000, 2048, { batch: true })).toBeCloseTo(0.01789125, 15);
  });

  it('rounds the scaled input up to whole tokens (gpt-5.4, ratio 1.1)', () => {
    const m = pricedModel('judge gpt', 'openai', 'gpt-5.4');
    // ceil(1001 * 1.1) = ceil(1101.1) = 1102; 1102 * max(2.5, 2.5) = 2755; 1000 * 15 = 15000; total 17755
    expect(worstCaseUsd(m, 1001, 1000, { batch: false })).toBeCloseTo(0.017755, 15);
  });

  it('uses the input price when it is dearer than the cache write price', () => {
    const m: PricedModel = {
      prices: { input: 4, output: 10, cache_read: 0.4, cache_write: 1, batch_discount: 0.25 },
      tokenRatio: 2,
      standardTierMaxInput: Number.POSITIVE_INFINITY,
      minCacheTokens: 1024,
      priceSource: 'test',
    };
    // ceil(500 * 2) = 1000; 1000 * max(4, 1) = 4000; 100 * 10 = 1000; total 5000 -> $0.005
    expect(worstCaseUsd(m, 500, 100, { batch: false })).toBeCloseTo(0.005, 15);
    // batch: 5000 * (1 - 0.25) = 3750 -> $0.00375
    expect(worstCaseUsd(m, 500, 100, { batch: true })).toBeCloseTo(0.00375, 15);
  });

  it('is never less than what the call can cost when the vendor counts up to ratio x cl100k', () => {
    const m = pricedModel('subject claude', 'anthropic', 'claude-sonnet-4-6');
    // the worst reply: 1350 vendor tokens all written to the cache, 2048 tokens out
    const worst = costUsd(usage(0, 2048, 0, 1350), m.prices, { batch: false });
    expect(worstCaseUsd(m, 1000, 2048, { batch: false })).toBeGreaterThanOrEqual(worst - 1e-15);
  });
});

describe('pricedModel', () => {
  it('a catalogue hit gives the entry prices, ratio, tier, cache minimum and source', () => {
    const m = pricedModel('judge gemini', 'gemini', 'gemini-3.1-pro-preview');
    expect(m).toEqual({
      prices: { input: 2, output: 12, cache_read: 0.2, cache_write: 2, batch_discount: 0.5 },
      tokenRatio: 1.35,
      standardTierMaxInput: 200_000,
      minCacheTokens: 4096,
      priceSource: 'https://ai.google.dev/gemini-api/docs/pricing (read 2026-12-01, from a secondary source)',
    });
  });

  it('prices from the config win over the catalogue, keeping its ratio, tier and cache minimum', () => {
    const mine: ModelPrices = { input: 1, output: 2, cache_read: 0.5, cache_write: 1, batch_discount: 0 };
    const m = pricedModel('subject claude', 'anthropic', 'claude-sonnet-4-6', mine);
    expect(m.prices).toEqual(mine);
    expect(m.priceSource).toBe('run config');
    expect(m.tokenRatio).toBe(1.35);
    expect(m.standardTierMaxInput).toBe(1_000_000);
    expect(m.minCacheTokens).toBe(1024);
  });

  it('a model unknown to the catalogue can be priced by the config, with cautious defaults', () => {
    const mine: ModelPrices = {
      input: 0.1,
      output: 0.2,
      cache_read: 0.1,
      cache_write: 0.1,
      batch_discount: 0,
    };
    const m = pricedModel('subject local', 'openai-compatible', 'llama-3.3-70b', mine);
    expect(m).toEqual({
      prices: mine,
      tokenRatio: 1.5,
      standardTierMaxInput: Number.POSITIVE_INFINITY,
      minCacheTokens: 1024,
      priceSource: 'run config',
    });
  });

  it('an unknown model without prices is an error listing the known ids of its provider and how to price it', () => {
    let err: unknown;
    try {
      pricedModel('judge gpt-9', 'openai', 'gpt-9');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RgeError);
    const message = (err as Error).message;
    expect(message).toContain('judge gpt-9: model gpt-9 of provider openai is not in the model catalogue');
    expect(message).toContain('known: gpt-5.4, gpt-5.4-mini.');
    expect(message).not.toContain('claude'); // only the ids of that provider
    expect(message).toContain(
      'Give its prices in the run config (prices: {input, output, cache_read, cache_write, batch_discount}, USD per million tokens)',
    );
    // the model is looked up by provider too: a known id under another provider is still unknown
    expect(() => pricedModel('s', 'gemini', 'claude-sonnet-4-6')).toThrow(/known: gemini-3\.1-pro-preview\./);
  });

  it('an openai-compatible model has no catalogue ids to list', () => {
    expect(() => pricedModel('subject local', 'openai-compatible', 'qwen')).toThrow(
      /^subject local: model qwen of provider openai-compatible is not in the model catalogue \(src\/providers\/catalogue\.ts\)\. Give its prices/,
    );
  });
});

describe('the catalogue itself', () => {
  it('every entry names a source page URL, a readOn date and sane prices', () => {
    expect(CATALOGUE.length).toBeGreaterThan(0);
    for (const m of CATALOGUE) {
      const at = `${m.provider}/${m.apiId}`;
      expect(new URL(m.source.page).protocol, at).toBe('https:');
      expect(m.source.readOn, at).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      // where the prices were read, and whether that was the vendor's page or one quoting it
      expect(m.source.read, at).toMatch(/https:\/\//);
      expect(['vendor', 'secondary'], at).toContain(m.source.grade);
      if (m.source.grade === 'vendor')
        expect(m.source.read, at).toMatch(
          /^https:\/\/(platform\.claude\.com|developers\.openai\.com|openai\.com|ai\.google\.dev)\//,
        );
      // a real calendar date, not 2026-13-45
      expect(new Date(`${m.source.readOn}T00:00:00Z`).toISOString().slice(0, 10), at).toBe(m.source.readOn);
      for (const [k, v] of Object.entries(m.prices)) expect(v, `${at} ${k}`).toBeGreaterThanOrEqual(0);
      expect(m.prices.batch_discount, at).toBeLessThanOrEqual(1);
      expect(m.tokenRatio, at).toBeGreaterThanOrEqual(1);
      expect(m.maxOutputTokens, at).toBeLessThanOrEqual(m.contextWindow);
    }
  });

  it("every Claude entry's cache minimum cites Anthropic's cache limits with the same figure", () => {
    const claude = CATALOGUE.filter((m) => m.provider === 'anthropic');
    expect(claude.map((m) => [m.apiId, m.minCacheTokens])).toEqual([
      ['claude-sonnet-4-6', 1024], // 2,048 was the page's figure in spring 2026 only (see the entry's note)
      ['claude-haiku-4-5', 4096],
    ]);
    for (const m of claude) {
      const cited = /cache minimum: ([\d,]+) tokens \((\S+): "([^"]+)"; read (\d{4}-\d{2}-\d{2}) /.exec(
        m.source.note ?? '',
      );
      expect(cited, `${m.apiId} cites no cache minimum`).not.toBeNull();
      const [, figure = '', page, quote = '', readOn = ''] = cited ?? [];
      expect(page).toBe(
        'https://platform.claude.com/docs/en/build-with-claude/prompt-caching#cache-limitations',
      );
      expect(Number(figure.replaceAll(',', '')), m.apiId).toBe(m.minCacheTokens);
      // the vendor's line gives that figure for this very model
      expect(quote.startsWith(`${figure} tokens for `), m.apiId).toBe(true);
      expect(quote, m.apiId).toContain(m.name);
      expect(new Date(`${readOn}T00:00:00Z`).toISOString().slice(0, 10)).toBe(readOn);
    }
  });

  it('API ids are unique per provider', () => {
    const ids = CATALOGUE.map((m) => `${m.provider}/${m.apiId}`);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('holds the three methodology models with their families', () => {
    expect(findModel('anthropic', 'claude-sonnet-4-6')?.family).toBe('anthropic');
    expect(findModel('openai', 'gpt-5.4')?.family).toBe('openai');
    expect(findModel('gemini', 'gemini-3.1-pro-preview')?.family).toBe('google');
  });
});
