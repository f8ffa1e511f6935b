/**
 * rag-app's prompt file (prompt.md): YAML settings between `---` lines, then the instructions and the
 * template the model is given, with `{{context}}` and `{{question}}` where the passages and the question
 * go. The offline model cannot read prose, so it follows the rules it recognises by their opening words,
 * as a model would follow the sentences:
 *
 * - `- Cite sources ...`: each sentence of the answer ends with the `[id]` of its passage;
 * - `- Answer only from the context ...`: below `abstain_below` support it declines, with the first
 *   quoted text of the rule ("I don't know: ...") as its whole answer.
 *
 * Without a rule, the model does without it: with no "answer only from the context" it answers every
 * question from its best match, however weak, as a model told nothing about declining tends to.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

export const PromptSettings = z.strictObject({
  /** passages retrieved per question */
  top_k: z.number().int().min(1).max(20).default(4),
  /** 0: the best-supported sentence; above 0: sampled among the close ones (answerer.ts) */
  temperature: z.number().min(0).max(2).default(0),
  /** mixed with the question's seed for sampling */
  seed: z.number().int().min(0).default(0),
  /** the support (0-1) below which a grounded model declines */
  abstain_below: z.number().min(0).max(1).default(0.6),
  max_sentences: z.number().int().min(1).max(5).default(2),
});
export type PromptSettings = z.infer<typeof PromptSettings>;

export interface AnswerPrompt {
  settings: PromptSettings;
  /** the "Cite sources" rule is there */
  cite: boolean;
  /** the "Answer only from the context" rule is there */
  grounded: boolean;
  /** what a grounded model says when it declines: the rule's quoted text */
  refusal: string;
  /** the instructions and template: everything after the settings */
  template: string;
  /** the file's sha256 (hex, 12 characters): which prompt wrote an answer */
  version: string;
}

/** What the model says when it declines and the rule quotes nothing. */
export const DEFAULT_REFUSAL = "I don't know: the documents provided do not say.";

/** The rules of the instructions: their lines that start with `- `. */
function rules(template: string): string[] {
  return template
    .split('\n')
    .filter((l) => /^\s*[-*]\s+/.test(l))
    .map((l) => l.replace(/^\s*[-*]\s+/, '').trim());
}

/** A prompt file's settings, rules and template; `where` names it in errors. */
export function parsePrompt(text: string, where = 'the prompt'): AnswerPrompt {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (!match) throw new Error(`rag-app: ${where} does not start with a --- settings block`);
  const parsed = PromptSettings.safeParse(parseYaml(match[1] ?? '') ?? {});
  if (!parsed.success)
    throw new Error(
      `rag-app: ${where}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'settings'}: ${i.message}`).join('; ')}`,
    );
  const template = match[2] ?? '';
  if (!template.includes('{{question}}')) throw new Error(`rag-app: ${where} has no {{question}} slot`);
  const lines = rules(template);
  const grounding = lines.find((l) => /^answer only from the context\b/i.test(l));
  return {
    settings: parsed.data,
    cite: lines.some((l) => /^cite (?:your )?sources\b/i.test(l)),
    grounded: grounding !== undefined,
    refusal: /"([^"]+)"/.exec(grounding ?? '')?.[1] ?? DEFAULT_REFUSAL,
    template,
    version: createHash('sha256').update(text).digest('hex').slice(0, 12),
  };
}

export async function readPrompt(path: string): Promise<AnswerPrompt> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new Error(`rag-app: cannot read the prompt file ${path}: ${(e as Error).message}`);
  }
  return parsePrompt(text, path);
}

/** The text the model is given: the template with the passages and the question in their slots. */
export function renderPrompt(prompt: AnswerPrompt, context: string, question: string): string {
  return prompt.template.replaceAll('{{context}}', context).replaceAll('{{question}}', question);
}
