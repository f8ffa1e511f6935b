import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pinnedPromptStatus, withPinnedPrompt } from '../../src/cli/judge.ts';
import {
  builtInJudgePrompt,
  JUDGE_PROMPT_VERSION,
  judgePromptSha256,
  judgePromptText,
  judgeVerdictJsonSchema,
  renderJudgeRequest,
} from '../../src/judging/prompt.ts';
import { JudgeVerdict } from '../../src/judging/verdict.ts';
import type { JudgeInput } from '../../src/providers/types.ts';
import { parseRunConfig } from '../../src/run/config/config.ts';

const PUBLISHED = fileURLToPath(new URL('../../configs/published.yaml', import.meta.url));

const INPUT: JudgeInput = {
  kind: 'judge',
  questionId: 'adv-002',
  question: 'What final dividend per share did the Board recommend for FY24?',
  category: 'adversarial',
  expectedBehavior: 'answer-with-caveat',
  goldAnswer: 'Rs 3.50 per share',
  goldQuotes: ['The Board has recommended a final dividend of Rs 3.50 per equity share for FY24.'],
  numericGold: [{ label: 'final dividend', value: 3.5, unit: 'INR per share', tolerance: 0.005 }],
  chunks: [
    {
      id: 'adani-ports-FY24-30a7485a',
      company: 'adani-ports',
      fy: 'FY24',
      heading: 'Dividend',
      pages: [12, 13],
      text: 'The Board has recommended a final dividend of Rs 3.50 per equity share for FY24.',
    },
  ],
  answer: 'The Board recommended Rs 3.50 per share [adani-ports-FY24-30a7485a].',
};

describe('the judge prompt', () => {
  it('is versioned and hashed: the hash is the sha256 of the canonical text', () => {
    expect(JUDGE_PROMPT_VERSION).toBe('v2');
    expect(judgePromptSha256()).toBe(createHash('sha256').update(judgePromptText()).digest('hex'));
    expect(judgePromptSha256()).toMatch(/^[0-9a-f]{64}$/);
    expect(judgePromptSha256('other')).not.toBe(judgePromptSha256());
  });

  it('states the rubric: evidence before score, three dimensions 0-2, citation theatre, verbatim unsupported claims', () => {
    const text = judgePromptText();
    for (const word of [
      'CORRECTNESS',
      'GROUNDING',
      'CALIBRATION',
      'citation theatre',
      'unsupported_claims',
      'verbatim',
    ])
      expect(text).toContain(word);
    expect(text).toMatch(/evidence BEFORE the score/);
    expect(text).toMatch(/citing a chunk that does not hold the claim scores grounding 0/);
    expect(text).toMatch(/crore, lakh, million, billion, %/);
  });

  it('asks for the JSON Schema generated from the zod JudgeVerdict, evidence before score', () => {
    const schema = judgeVerdictJsonSchema();
    expect(schema).toEqual(z.toJSONSchema(JudgeVerdict, { target: 'draft-07' }));
    expect(judgePromptText()).toContain(JSON.stringify(schema));
    const dim = (schema.properties as Record<string, { properties: Record<string, unknown> }>).grounding;
    expect(Object.keys(dim?.properties ?? {})).toEqual(['evidence', 'rationale', 'score']);
  });

  it('renders a request with the case (expected behaviour, gold answer, chunks, answer), schema and structured input', () => {
    const request = renderJudgeRequest(INPUT, {
      id: 'gpt-judge',
      model: 'gpt-5-mini',
      family: 'openai',
      parameters: { temperature: 0 },
    });
    expect(request).toMatchObject({
      model: 'gpt-5-mini',
      parameters: { temperature: 0 },
      system: judgePromptText(),
      structured: INPUT,
    });
    expect(request.jsonSchema).toEqual(judgeVerdictJsonSchema());
    const user = request.messages[0]?.content ?? '';
    expect(request.messages).toHaveLength(1);
    for (const part of [
      'EXPECTED BEHAVIOUR: answer-with-caveat',
      'GOLD ANSWER:\nRs 3.50 per share',
      'final dividend: 3.5 INR per share',
      '[adani-ports-FY24-30a7485a]',
      INPUT.chunks[0]?.text ?? '',
      `<answer>\n${INPUT.answer}\n</answer>`,
    ])
      expect(user).toContain(part);
    // the v1 layout, for configs pinned to v1
    const v1 = renderJudgeRequest(
      INPUT,
      { id: 'j', model: 'm', family: 'f', parameters: { temperature: 0 } },
      builtInJudgePrompt('v1'),
    );
    expect(v1.messages[0]?.content).toContain(`ANSWER TO JUDGE:\n${INPUT.answer}`);
  });
});

describe('rge judge prompt --write-config / --check', () => {
  it('pins the canonical text and sha256 into a config, keeping the rest of the YAML, and the config validates', async () => {
    const before = await readFile(PUBLISHED, 'utf8');
    const after = withPinnedPrompt(before, 'published.yaml');
    expect(pinnedPromptStatus(after)).toMatchObject({ current: true });
    const config = parseRunConfig(after, 'published.yaml');
    expect(config.judge_prompt).toEqual({
      version: 'v2',
      sha256: judgePromptSha256(),
      text: judgePromptText(),
    });
    // everything before judge_prompt, comments included, is untouched
    const head = before.slice(0, before.indexOf('judge_prompt:'));
    expect(after.startsWith(head)).toBe(true);
    expect(after).toContain('latency_budget_ms: 30000');
    expect(after).toContain('# Batch APIs at half price');
    // idempotent
    expect(withPinnedPrompt(after, 'published.yaml')).toBe(after);
  });

  it('--check reports a stale copy: unpinned, edited text, wrong hash, other version', async () => {
    const before = await readFile(PUBLISHED, 'utf8');
    const pinned = withPinnedPrompt(before, 'published.yaml');
    if (!before.includes(judgePromptSha256()))
      expect(pinnedPromptStatus(before)).toMatchObject({
        current: false,
        reason: expect.stringMatching(/not pinned|differs/),
      });
    const hash = judgePromptSha256();
    expect(pinnedPromptStatus(pinned.replace(hash, '0'.repeat(64)))).toMatchObject({ current: false });
    expect(
      pinnedPromptStatus(pinned.replace('You are a strict evaluator', 'You are an evaluator')),
    ).toMatchObject({
      current: false,
      reason: 'text differs from the canonical prompt',
    });
    expect(pinnedPromptStatus(pinned.replace('version: v2', 'version: v1'))).toMatchObject({
      current: false,
    });
    expect(pinnedPromptStatus('name: x\n')).toMatchObject({ current: false, reason: 'no judge_prompt' });
  });
});
