import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/providers/types.ts';
import {
  contextHeader,
  loadSubjectPrompt,
  parseSubjectPrompt,
  promptHash,
  renderSubjectRequest,
  renderSubjectUserMessage,
  SUBJECT_PROMPT_VERSION,
  SUBJECT_SYSTEM_PROMPT_V1,
  subjectPromptHash,
} from '../../src/subject/index.ts';
import { sha256 } from '../../src/util/fs.ts';
import { ask, CHUNKS, GOVERNANCE, HIGHLIGHTS } from '../providers/context.ts';

const opts = {
  model: 'extractive',
  parameters: { temperature: 0.7 },
  maxTokens: 512,
  cell: { questionId: 'q-1', runIndex: 0, seed: 's' },
};

describe('subject prompt v1', () => {
  it('is versioned and its hash is the SHA-256 of the system text, pinned', () => {
    expect(SUBJECT_PROMPT_VERSION).toBe('v1');
    expect(subjectPromptHash).toBe(sha256(SUBJECT_SYSTEM_PROMPT_V1));
    // pinned: editing the prompt text must be a deliberate new version, so this literal changes with it
    expect(subjectPromptHash).toBe('932a70a4b8d5d220209b6d674f569e05da2b46e2623f245e190995140ae36b91');
  });

  it('tells the subject to use only the context, cite ids in brackets, not guess, and state units and periods', () => {
    expect(SUBJECT_SYSTEM_PROMPT_V1).toMatch(/only the numbered context/);
    expect(SUBJECT_SYSTEM_PROMPT_V1).toMatch(/\[reliance-FY24-1a2b3c4d\]/);
    expect(SUBJECT_SYSTEM_PROMPT_V1).toMatch(/does not state it/);
    expect(SUBJECT_SYSTEM_PROMPT_V1).toMatch(/do not guess/);
    expect(SUBJECT_SYSTEM_PROMPT_V1).toMatch(/units and periods/i);
  });

  it('renders the question and every chunk under an [id] (company, fy, pages, heading) header', () => {
    const request = renderSubjectRequest(ask('What was the revenue?'), opts);
    expect(request.system).toBe(SUBJECT_SYSTEM_PROMPT_V1);
    expect(request.messages).toHaveLength(1);
    const user = request.messages[0]?.content ?? '';
    expect(user).toContain('Question: What was the revenue?');
    for (const c of CHUNKS) {
      expect(user).toContain(`[${c.id}]`);
      expect(user).toContain(c.text.split('\n')[1] ?? '');
    }
    expect(contextHeader(GOVERNANCE)).toBe(
      '[adani-ports-FY24-30a7485a] (adani-ports, FY24, pp. 5-11, 4. CONSOLIDATED STATEMENT OF PROFIT AND LOSS)',
    );
    expect(contextHeader({ ...HIGHLIGHTS, pages: [3, 3], fy: null, heading: null })).toBe(
      '[adani-ports-FY24-3e61eaeb] (adani-ports, FY n/a, p. 3)',
    );
    expect(request.structured).toEqual(ask('What was the revenue?'));
    expect(request).toMatchObject({
      model: 'extractive',
      parameters: { temperature: 0.7 },
      maxTokens: 512,
      cell: opts.cell,
    });
  });

  it('hashes a request stably, and differently when the prompt, context, model or temperature changes', () => {
    const request = renderSubjectRequest(ask('What was the revenue?'), opts);
    const hash = promptHash(request);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(promptHash(renderSubjectRequest(ask('What was the revenue?'), opts))).toBe(hash);
    expect(promptHash({ ...request, system: `${request.system} ` })).not.toBe(hash);
    expect(promptHash(renderSubjectRequest(ask('What was the profit?'), opts))).not.toBe(hash);
    expect(promptHash(renderSubjectRequest(ask('What was the revenue?', [HIGHLIGHTS]), opts))).not.toBe(hash);
    expect(promptHash({ ...request, model: 'eager' })).not.toBe(hash);
    expect(promptHash({ ...request, parameters: { temperature: 0 } })).not.toBe(hash);
    // the run index is its own part of the results-store key, not part of the prompt hash
    const otherRun: ModelRequest = { ...request, cell: { ...opts.cell, runIndex: 2 }, maxTokens: 9 };
    expect(promptHash(otherRun)).toBe(hash);
  });
});

describe('the subject prompt file', () => {
  const file = resolve(import.meta.dirname, '../../prompts/subject.md');

  it('prompts/subject.md renders exactly the built-in v1 requests (so its cells are the stored ones)', async () => {
    const prompt = await loadSubjectPrompt(file);
    expect(prompt).toMatchObject({ version: 'v1', system: SUBJECT_SYSTEM_PROMPT_V1, file });
    expect(prompt.sha256).toBe(sha256(await readFile(file, 'utf8')));
    for (const input of [ask('What was the revenue?'), ask('What was the profit?', [])]) {
      const fromFile = renderSubjectRequest(input, { ...opts, prompt });
      expect(fromFile).toEqual(renderSubjectRequest(input, opts));
      expect(promptHash(fromFile)).toBe(promptHash(renderSubjectRequest(input, opts)));
    }
    expect(renderSubjectUserMessage(ask('Q?', []), prompt.template)).toContain(
      '(no passages were retrieved)',
    );
  });

  it('a comment edit changes the file hash but no rendered prompt; a rule edit changes every one', async () => {
    const text = await readFile(file, 'utf8');
    const commented = parseSubjectPrompt(`<!-- reviewed 2026-11 -->\n${text}`, 'p.md');
    const edited = parseSubjectPrompt(
      text.replace('6. Be brief: answer the question asked, then stop.', '6. Be thorough.'),
      'p.md',
    );
    const base = renderSubjectRequest(ask('What was the revenue?'), opts);
    expect(commented.sha256).not.toBe(sha256(text));
    expect(
      promptHash(renderSubjectRequest(ask('What was the revenue?'), { ...opts, prompt: commented })),
    ).toBe(promptHash(base));
    expect(
      promptHash(renderSubjectRequest(ask('What was the revenue?'), { ...opts, prompt: edited })),
    ).not.toBe(promptHash(base));
  });

  it('rejects a file without its title, sections or placeholders, naming the file', async () => {
    const text = await readFile(file, 'utf8');
    expect(() => parseSubjectPrompt(text.replace('# Subject prompt v1', '# Prompt'), 'p.md')).toThrow(
      /p\.md.*Subject prompt <version>/,
    );
    expect(() => parseSubjectPrompt(text.replace(/^## System$/m, '## Rules'), 'p.md')).toThrow(
      /p\.md.*## System/,
    );
    expect(() => parseSubjectPrompt(text.replace(/^## User$/m, '## Message'), 'p.md')).toThrow(
      /p\.md.*## User/,
    );
    expect(() => parseSubjectPrompt(text.replace(/^\{\{context\}\}$/m, ''), 'p.md')).toThrow(
      /p\.md.*\{\{context\}\}/,
    );
    await expect(loadSubjectPrompt('/nonexistent/subject.md')).rejects.toThrow(
      /\/nonexistent\/subject\.md.*not found/,
    );
  });
});
