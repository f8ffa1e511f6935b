/**
 * The review page of `rge questions review` end to end in a real headless browser: Debian's chromium
 * driven by playwright-core, over the review server started in-process on port 0 and four generated
 * questions over a temporary Markdown folder. Keyboard only: accept one; edit one (a new answer, saved,
 * re-verified); try an edit whose quote is not in the document (the error shown, the question pending);
 * reject one with a reason (after an undo); reload and see the decisions kept; then `--write` the
 * golden set. Skipped, with the reason in the test name, when /usr/bin/chromium is absent.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.ts';
import { startQuestionReview } from '../../src/cli/questions-review.ts';
import { ReviewRecord, reviewFileOf } from '../../src/questions/review/index.ts';
import { Question } from '../../src/questions/schema.ts';
import { CHROMIUM, CHROMIUM_ARGS, chromiumTitle, hasChromium } from '../helpers/chromium.ts';
import { runRge } from '../helpers/cli.ts';
import { writeGeneratedFixture } from './review/generated-fixture.ts';

function quietIO(cwd: string): CliIO {
  return { cwd, exitCode: 0, out: () => {}, err: () => {} };
}

async function ready(page: Page): Promise<void> {
  await page.waitForSelector('body[data-ready="true"]');
}

const at = (page: Page, index: number) => page.waitForSelector(`#main[data-index="${index}"]`);
const decisionIs = (page: Page, d: string) => page.waitForSelector(`#decision[data-decision="${d}"]`);

/** Replaces the text of the focused field by keyboard. */
async function retype(page: Page, selector: string, text: string): Promise<void> {
  await page.focus(selector);
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
}

describe('the question review page in a headless browser', () => {
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (hasChromium) browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it.skipIf(!hasChromium)(
    chromiumTitle(
      'accepts, edits (re-verified), refuses an edit whose quote is not printed, rejects with a reason, resumes after a reload, and --write writes the golden set',
    ),
    async () => {
      const { dir, documents, questionsFile } = await writeGeneratedFixture();
      const flags = { questions: questionsFile, documents, order: 'file', port: '0', open: false };
      const server = await startQuestionReview(flags, quietIO(dir));
      const page = await (browser as Browser).newPage({ viewport: { width: 1280, height: 800 } });
      try {
        await page.goto(server.url);
        await ready(page);
        expect(await page.textContent('#progress')).toBe('Question 1 of 4 · 0 decided');
        expect(await page.textContent('#order')).toBe('file order');
        // the question, its gold answer, its provenance, and the gold quote highlighted in its page
        expect(await page.textContent('.question-text')).toContain(
          'consolidated revenue from operations in FY24',
        );
        expect(await page.textContent('.gold-answer')).toBe('Rs 1,234.5 crore');
        expect(await page.textContent('#question')).toContain('seed set (templated)');
        expect(await page.textContent('#question')).toContain('✓ quote-in-chunks');
        expect(await page.textContent('mark.quote')).toBe(
          'Consolidated revenue from operations was Rs 1,234.5 crore in FY24, up 12%',
        );
        expect(await page.textContent('.quote-card h2')).toBe('Gold quote 1 · acme-fy24.md · Revenue');
        expect(await page.textContent('.page-text')).toContain('Acme Industries annual report FY24\nRevenue');

        // accept (a)
        await page.keyboard.press('a');
        await at(page, 1);
        expect(await page.textContent('#status')).toBe('accepted; 3 still to decide');
        expect(await page.textContent('#question')).toContain('⚑ answer-shorter-than-quote');

        // edit (e): a new gold answer, Ctrl+Enter saves; re-verified, it is kept
        await page.keyboard.press('e');
        expect(await page.isVisible('#edit-form')).toBe(true);
        await retype(page, '#edit-answer', 'Rs 8 per equity share');
        await page.keyboard.press('Control+Enter');
        await at(page, 2);
        expect(await page.textContent('#status')).toBe('edited; 2 still to decide');
        await page.keyboard.press('k');
        await at(page, 1);
        await decisionIs(page, 'edited');
        expect(await page.textContent('.gold-answer')).toBe('Rs 8 per equity share');
        expect(await page.textContent('#question')).toContain('as generated: Rs 8 per share');
        await page.keyboard.press('j');
        await at(page, 2);

        // an edit whose quote is not printed in the document: refused, the question stays pending
        await page.keyboard.press('e');
        await retype(page, '#edit-quote-0', 'The capital adequacy ratio stood at 18.0% as at 31 March 2024.');
        await page.keyboard.press('Control+Enter');
        await page.waitForSelector('#status.error');
        expect(await page.textContent('#status')).toContain('not saved: re-verification failed');
        expect(await page.textContent('#status')).toContain('is not in beta-fy24.md');
        expect(await page.getAttribute('#main', 'data-index')).toBe('2');
        expect(await page.getAttribute('#decision', 'data-decision')).toBe('pending');
        await page.keyboard.press('Escape');
        expect(await page.isHidden('#edit-form')).toBe(true);

        // reject (r) with a reason (5: duplicate); undo (u) it, and reject it again
        await page.keyboard.press('ArrowRight');
        await at(page, 3);
        await page.keyboard.press('r');
        await page.keyboard.press('5');
        await page.keyboard.type('same as gen-003 in substance');
        await page.keyboard.press('Enter');
        await decisionIs(page, 'rejected');
        expect(await page.textContent('#decision')).toBe(
          'rejected: duplicate (same as gen-003 in substance)',
        );
        await page.keyboard.press('u');
        await decisionIs(page, 'pending');
        expect(await page.textContent('#status')).toBe('undone: gen-004 is pending again');
        await page.keyboard.press('r');
        await page.keyboard.press('5');
        await page.keyboard.press('Enter');
        await decisionIs(page, 'rejected');
        expect(await page.textContent('#summary')).toContain(
          'reviewed 3 of 4 (1 unreviewed): 1 accepted, 1 edited, 1 rejected (duplicate 1)',
        );

        // a reload resumes at the one question still pending, the decisions kept
        await page.reload();
        await ready(page);
        await at(page, 2);
        expect(await page.textContent('#progress')).toBe('Question 3 of 4 · 3 decided');
        expect(await page.getAttribute('#decision', 'data-decision')).toBe('pending');
        await page.keyboard.press('k');
        await decisionIs(page, 'edited');
        await page.keyboard.press('k');
        await decisionIs(page, 'accepted');
      } finally {
        await page.close();
        await server.close();
      }

      const records = readFileSync(reviewFileOf(questionsFile), 'utf8')
        .trim()
        .split('\n')
        .map((l) => ReviewRecord.parse(JSON.parse(l)));
      expect(records.map((r) => (r.kind === 'decision' ? r.decision : r.kind))).toEqual([
        'order',
        'accepted',
        'edited',
        'rejected',
        'undo',
        'rejected',
      ]);

      const written = await runRge(
        dir,
        'questions',
        'review',
        '--questions',
        'generated.jsonl',
        '--write',
        'golden.jsonl',
      );
      expect(written.code).toBe(0);
      expect(written.out).toBe(
        'wrote 2 questions to golden.jsonl (1 accepted, 1 edited, 1 rejected, 1 unreviewed)\n',
      );
      const golden = readFileSync(join(dir, 'golden.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => Question.parse(JSON.parse(l)));
      expect(golden.map((q) => [q.id, q.provenance?.review, q.gold_answer])).toEqual([
        ['gen-001', 'accepted', 'Rs 1,234.5 crore'],
        ['gen-002', 'edited', 'Rs 8 per equity share'],
      ]);
    },
    60_000,
  );
});
