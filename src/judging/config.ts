/**
 * The judges' sections of the run config (composed by src/run/config/config.ts): `judges[]` and `judge_prompt`.
 */
import { z } from 'zod';
import { LIVE_PROVIDERS } from '../providers/catalogue.ts';
import { liveFields, modelEntryFields } from '../providers/config.ts';
import { outputLimit, resolveParameters } from '../providers/contract.ts';
import type { RequestParameters } from '../providers/types.ts';
import { type AddIssue, isRecord } from '../util/config-fields.ts';
import { sha256 } from '../util/fs.ts';
import { isJudgePromptVersion, JUDGE_MAX_TOKENS, JUDGE_PROMPT_VERSIONS, type JudgeModel } from './prompt.ts';

export const JUDGE_PROVIDERS = ['heuristic', ...LIVE_PROVIDERS] as const;

export const Judge = z.strictObject({
  ...modelEntryFields(JUDGE_PROVIDERS, 'vendor family; the judge never judges a subject of this family'),
  ...liveFields,
});
export type Judge = z.infer<typeof Judge>;

/** A judge entry as the judge prompt needs it: its parameters and output limit, within its model's contract. */
export function judgeModelOf(
  entry: Judge,
): JudgeModel & { parameters: RequestParameters; maxTokens: number } {
  return {
    id: entry.id,
    model: entry.model,
    family: entry.family,
    parameters: resolveParameters(entry.provider, entry.model, entry),
    maxTokens: outputLimit(entry.provider, entry.model, JUDGE_MAX_TOKENS),
  };
}

export const JudgePromptSettings = z.strictObject({
  version: z.string().min(1),
  sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 lowercase hex digits')
    .nullable()
    .describe('sha256 of the prompt text; null = not pinned'),
  text: z.string().min(1).nullable().describe('the prompt text; null = the built-in prompt of that version'),
});

/** judge_prompt's cross-field rules: a known version, a pinned sha256 that matches the text. */
export function judgePromptIssues(prompt: unknown, issue: AddIssue): void {
  if (isRecord(prompt) && typeof prompt.version === 'string' && !isJudgePromptVersion(prompt.version))
    issue(['judge_prompt', 'version'], `must be one of ${JUDGE_PROMPT_VERSIONS.join(', ')}`);
  if (isRecord(prompt) && typeof prompt.text === 'string' && typeof prompt.sha256 === 'string')
    if (sha256(prompt.text) !== prompt.sha256)
      issue(['judge_prompt', 'sha256'], `does not match the text (its sha256 is ${sha256(prompt.text)})`);
}
