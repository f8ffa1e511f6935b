import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../src/providers/catalogue.ts';
import {
  contractOf,
  describeParameters,
  outputLimit,
  parameterIssues,
  requestIssues,
  resolveParameters,
  temperatureDeviation,
} from '../../src/providers/contract.ts';

describe("each catalogue model's sampling contract", () => {
  it('records, per model, what its API accepts, what rge sends by default, and where that was read', () => {
    for (const m of CATALOGUE) {
      const c = m.contract;
      expect(c.note.length, m.apiId).toBeGreaterThan(20);
      expect(c.source, m.apiId).toMatch(/^https:\/\//);
      // the defaults are within the contract
      expect(
        parameterIssues(m.provider, m.apiId, { ...c.defaults, send_seed: c.defaults.seed }),
        m.apiId,
      ).toEqual([]);
    }
  });

  it('Claude under API version 2026-10-21: no sampling parameter, no seed, nothing sent by default', () => {
    for (const model of ['claude-sonnet-4-6', 'claude-haiku-4-5']) {
      const { contract, known } = contractOf('anthropic', model);
      expect(known).toBe(true);
      expect(contract.apiVersion).toBe('2026-10-21');
      expect(contract.sampling).toEqual({ temperature: false, top_p: false });
      expect(resolveParameters('anthropic', model, {})).toEqual({});
    }
  });

  it('GPT-5.4: reasoning effort none with temperature 0 and a seed; temperature only at effort none', () => {
    expect(resolveParameters('openai', 'gpt-5.4', {})).toEqual({
      reasoning_effort: 'none',
      temperature: 0,
      seed: true,
    });
    // a reasoning effort that forbids sampling drops the default temperature instead of sending both
    expect(resolveParameters('openai', 'gpt-5.4', { reasoning_effort: 'high' })).toEqual({
      reasoning_effort: 'high',
      seed: true,
    });
    expect(parameterIssues('openai', 'gpt-5.4', { reasoning_effort: 'high' })).toEqual([]);
    expect(parameterIssues('openai', 'gpt-5.4', { reasoning_effort: 'high', top_p: 0.9 })).toEqual([
      {
        field: 'top_p',
        message:
          'openai/gpt-5.4 accepts top_p only with reasoning_effort: none (this entry has high). Remove top_p, or set reasoning_effort: none',
      },
    ]);
    expect(parameterIssues('openai', 'gpt-5.4', { reasoning_effort: 'minimal' })).toEqual([
      {
        field: 'reasoning_effort',
        message: 'openai/gpt-5.4 takes reasoning_effort none, low, medium, high, xhigh, not minimal',
      },
    ]);
    expect(parameterIssues('openai', 'gpt-5.4', { thinking_level: 'low' })[0]?.message).toBe(
      'openai/gpt-5.4 takes no thinking_level; it takes reasoning_effort. Remove it from this entry',
    );
  });

  it('Gemini 3.1 Pro: thinking level low and a seed, no temperature (the vendor advises 1.0), a thinking allowance', () => {
    expect(resolveParameters('gemini', 'gemini-3.1-pro-preview', {})).toEqual({
      thinking_level: 'low',
      seed: true,
    });
    expect(outputLimit('gemini', 'gemini-3.1-pro-preview', 1024)).toBe(1024 + 2048);
    expect(outputLimit('openai', 'gpt-5.4', 1024)).toBe(1024);
    // temperature 0 is allowed (the API takes it) and stated temperature wins
    expect(parameterIssues('gemini', 'gemini-3.1-pro-preview', { temperature: 0 })).toEqual([]);
    expect(resolveParameters('gemini', 'gemini-3.1-pro-preview', { temperature: 0 }).temperature).toBe(0);
    // Gemini 3.1 Pro thinks at low, medium or high; not minimal
    expect(parameterIssues('gemini', 'gemini-3.1-pro-preview', { thinking_level: 'minimal' })[0]?.field).toBe(
      'thinking_level',
    );
  });
});

describe('parameterIssues', () => {
  it('names the model, the API version and the field, and says what to do', () => {
    const [issue] = parameterIssues('anthropic', 'claude-sonnet-4-6', { temperature: 0 });
    expect(issue?.field).toBe('temperature');
    expect(issue?.message).toMatch(
      /^anthropic\/claude-sonnet-4-6 \(API version 2026-10-21\) accepts no temperature: the API refuses .* Remove temperature from this entry/,
    );
    expect(parameterIssues('anthropic', 'claude-sonnet-4-6', { send_seed: true })[0]?.message).toBe(
      'anthropic/claude-sonnet-4-6 (API version 2026-10-21) takes no seed. Remove send_seed from this entry',
    );
  });

  it('a model without a catalogue entry is held to what its provider takes at all', () => {
    expect(contractOf('openai-compatible', 'llama-3.1-8b').known).toBe(false);
    expect(
      parameterIssues('openai-compatible', 'llama-3.1-8b', { temperature: 0.2, send_seed: true }),
    ).toEqual([]);
    expect(parameterIssues('anthropic', 'claude-x-9', { top_p: 0.5 })[0]?.field).toBe('top_p');
    expect(parameterIssues('gemini', 'gemini-x', { reasoning_effort: 'low' })[0]?.field).toBe(
      'reasoning_effort',
    );
  });

  it('offline baselines take a temperature and nothing a live API takes', () => {
    expect(parameterIssues('offline', 'extractive', { temperature: 0.7 })).toEqual([]);
    expect(parameterIssues('heuristic', 'numeric', { reasoning_effort: 'none' })[0]?.message).toBe(
      'only live models take reasoning_effort (provider heuristic). Remove it from this entry',
    );
    expect(resolveParameters('offline', 'extractive', {})).toEqual({ temperature: 0 });
  });
});

describe('what is sent, in words', () => {
  it('describes the parameters and the deviation from the methodology’s temperature 0', () => {
    expect(describeParameters({})).toBe('no sampling or reasoning parameter');
    expect(describeParameters(resolveParameters('openai', 'gpt-5.4', {}))).toBe(
      'temperature 0, reasoning_effort none, seed',
    );
    expect(temperatureDeviation('openai', 'gpt-5.4', resolveParameters('openai', 'gpt-5.4', {}))).toBeNull();
    expect(temperatureDeviation('anthropic', 'claude-sonnet-4-6', {})).toMatch(
      /^no temperature: API version 2026-10-21 refuses temperature/,
    );
    expect(
      temperatureDeviation('gemini', 'gemini-3.1-pro-preview', { thinking_level: 'low', seed: true }),
    ).toMatch(/^no temperature: Google's Gemini 3 guide advises keeping temperature at its default 1.0/);
    expect(temperatureDeviation('offline', 'extractive', { temperature: 0.7 })).toBe(
      'temperature 0.7, as configured (the methodology fixes 0)',
    );
  });

  it('requestIssues refuses a built request the contract forbids (the adapters call it before sending)', () => {
    const claude = contractOf('anthropic', 'claude-sonnet-4-6').contract;
    expect(requestIssues(claude, 'anthropic', 'claude-sonnet-4-6', { temperature: 0 })).toHaveLength(1);
    expect(requestIssues(claude, 'anthropic', 'claude-sonnet-4-6', {})).toEqual([]);
  });
});
