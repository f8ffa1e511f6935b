/**
 * The report's operational sections, per subject from its case rows: the deterministic checks' pass
 * rates, latency quantiles, cost, what prompt caching saved, and the pre-flight estimate beside what
 * the run spent (from the run state). Every case counts here, scored or not. Pure.
 */
import { linearPercentile } from '../stats/percentile.ts';
import type { RowsBySubject } from './scores.ts';
import type { CaseRowView, RunBudgetView, TokenView } from './views.ts';

export interface CheckRate {
  passed: number;
  applicable: number;
  rate: number | null;
}

export interface Caching {
  costUsd: number;
  uncachedUsd: number;
  savedUsd: number;
  tokens: TokenView;
  batchShare: number;
}

export interface BudgetLine {
  provider: string;
  model: string;
  role: string;
  calls: number;
  expectedUsd: number;
  worstUsd: number;
  actualCalls: number;
  actualUsd: number;
}

export interface BudgetSection {
  mode: string;
  lines: BudgetLine[];
  totals: {
    expectedUsd: number;
    naiveUsd: number;
    worstUsd: number;
    actualUsd: number;
    /** possibly billed, at most this (calls of killed processes with no reply); not spend */
    unknownUsd: number;
  };
  warnings: string[];
  stopped: string | null;
}

/** One value per subject (every subject, in the order of `bySubject`). */
function perSubject<T>(bySubject: RowsBySubject, of: (rows: readonly CaseRowView[]) => T): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [m, mine] of bySubject) out[m] = of(mine);
  return out;
}

function isCheck(x: unknown): x is { passed: boolean | null } {
  return typeof x === 'object' && x !== null && 'passed' in x;
}

/** Per subject and check: the cases it applied to (passed not null), how many passed, their share. */
export function checkPassRates(bySubject: RowsBySubject): Record<string, Record<string, CheckRate>> {
  return perSubject(bySubject, (mine) => {
    const rates: Record<string, CheckRate> = {};
    for (const r of mine) {
      for (const [name, check] of Object.entries(r.checks)) {
        if (!isCheck(check)) continue;
        const slot = rates[name] ?? { passed: 0, applicable: 0, rate: null };
        if (check.passed !== null) {
          slot.applicable++;
          if (check.passed) slot.passed++;
        }
        rates[name] = slot;
      }
    }
    for (const slot of Object.values(rates))
      slot.rate = slot.applicable === 0 ? null : slot.passed / slot.applicable;
    return rates;
  });
}

export function latency(bySubject: RowsBySubject): Record<string, { p50: number; p95: number }> {
  return perSubject(bySubject, (mine) => {
    const lat = mine.map((r) => r.latency_ms).sort((x, y) => x - y);
    return { p50: linearPercentile(lat, 0.5), p95: linearPercentile(lat, 0.95) };
  });
}

export function cost(bySubject: RowsBySubject): Record<string, number> {
  return perSubject(bySubject, (mine) => mine.reduce((s, r) => s + r.cost_usd, 0));
}

const ZERO_TOKENS: TokenView = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

const addTokens = (a: TokenView, b: TokenView | undefined): TokenView =>
  b
    ? {
        inputTokens: a.inputTokens + b.inputTokens,
        outputTokens: a.outputTokens + b.outputTokens,
        cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
        cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
      }
    : a;

/** Per subject: the cost of its cases' calls (answers and verdicts), without caching, and tokens. */
export function caching(bySubject: RowsBySubject): Record<string, Caching> {
  return perSubject(bySubject, (mine) => {
    const costUsd = mine.reduce((sum, r) => sum + r.cost_usd, 0);
    const uncachedUsd = mine.reduce((sum, r) => sum + (r.uncached_cost_usd ?? r.cost_usd), 0);
    return {
      costUsd,
      uncachedUsd,
      savedUsd: uncachedUsd - costUsd,
      tokens: mine.reduce((t, r) => addTokens(addTokens(t, r.usage), r.judge_usage), ZERO_TOKENS),
      batchShare:
        mine.length === 0 ? 0 : mine.filter((r) => (r as { batch?: boolean }).batch).length / mine.length,
    };
  });
}

/** The estimate per provider, model and role beside what the ledger says the run spent on it. */
export function budget(view: RunBudgetView | null): BudgetSection | null {
  if (!view) return null;
  const key = (x: { provider: string; model: string; role: string }) => `${x.provider}/${x.model}/${x.role}`;
  const lines = new Map<string, BudgetLine>();
  const lineOf = (x: { provider: string; model: string; role: string }): BudgetLine => {
    let line = lines.get(key(x));
    if (!line) {
      line = {
        provider: x.provider,
        model: x.model,
        role: x.role,
        calls: 0,
        expectedUsd: 0,
        worstUsd: 0,
        actualCalls: 0,
        actualUsd: 0,
      };
      lines.set(key(x), line);
    }
    return line;
  };
  for (const l of view.estimate?.lines ?? []) {
    const line = lineOf(l);
    line.calls += l.calls;
    line.expectedUsd += l.expectedUsd;
    line.worstUsd += l.worstUsd;
  }
  for (const p of view.spend.by_payer) {
    const line = lineOf(p);
    line.actualCalls += p.calls;
    line.actualUsd += p.usd;
  }
  return {
    mode: view.mode,
    lines: [...lines.values()].filter((l) => l.calls > 0 || l.actualCalls > 0),
    totals: {
      expectedUsd: view.estimate?.totals.expectedUsd ?? 0,
      naiveUsd: view.estimate?.totals.naiveUsd ?? 0,
      worstUsd: view.estimate?.totals.worstUsd ?? 0,
      actualUsd: view.spend.usd,
      unknownUsd: view.spend.unknown_usd,
    },
    warnings: [...view.budget_warnings],
    stopped: view.stopped,
  };
}
