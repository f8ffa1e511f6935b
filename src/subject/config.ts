/**
 * The subjects' sections of the run config (composed by src/run/config.ts): `subjects[]` (the models
 * under test) and `subject_prompt`.
 */
import { z } from 'zod';
import { LIVE_PROVIDERS } from '../providers/catalogue.ts';
import { liveFields, modelEntryFields } from '../providers/config.ts';
import { type AddIssue, Path } from '../util/config-fields.ts';

export const SUBJECT_PROVIDERS = ['offline', 'replay', ...LIVE_PROVIDERS] as const;

export const Subject = z.strictObject({
  ...modelEntryFields(SUBJECT_PROVIDERS, 'vendor family; no judge judges a subject of its own family'),
  max_tokens: z.number().int().positive(),
  replay_file: Path.optional().describe('recorded answers to replay (provider replay only)'),
  ...liveFields,
});
export type Subject = z.infer<typeof Subject>;

export const SubjectPromptSettings = z
  .strictObject({
    file: Path.nullable().describe(
      'the subject prompt file (e.g. prompts/subject.md); null = the built-in v1',
    ),
  })
  .default({ file: null })
  .describe('what every subject is told and shown: the system text and the user message template');

/** A subject entry's own cross-field rule: a replay file exactly for a replay subject. */
export function subjectIssues(i: number, s: Record<string, unknown>, issue: AddIssue): void {
  if (s.provider === 'replay' && s.replay_file === undefined)
    issue(['subjects', i, 'replay_file'], 'required when provider is replay');
  if (s.provider !== 'replay' && s.replay_file !== undefined)
    issue(
      ['subjects', i, 'replay_file'],
      `only a replay subject reads a replay file (provider is ${String(s.provider)})`,
    );
}
