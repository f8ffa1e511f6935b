/**
 * The labelling and review page end to end in a real headless browser: Debian's chromium driven by
 * playwright-core, over `rge label` started in-process on port 0 and a hand-written sample. Keyboard
 * only: scores, a rationale, Enter. The judges' output must not reach the page before an item is
 * labelled; a reload resumes where the labeller stopped; the labels file holds what was given.
 * Skipped, with the reason in the test name, when /usr/bin/chromium is absent (`.ci/run` installs it).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.ts';
import { startLabelling } from '../../src/cli/labelling.ts';
import {
  ContestedReview,
  HumanLabel,
  judgeOutcomesHash,
  labelSession,
  labelsFile,
  reviewSession,
  reviewsFile,
  startValidationServer,
  ValidationSample,
} from '../../src/validation/index.ts';
import { CHROMIUM, CHROMIUM_ARGS, chromiumTitle, hasChromium } from '../helpers/chromium.ts';
import { handItem, handSample, JUDGE_MARK, judgeOutcome, longItem, writeHandSample } from './hand-sample.ts';

function quietIO(cwd: string): CliIO {
  return { cwd, exitCode: 0, out: () => {}, err: () => {} };
}

async function ready(page: Page): Promise<void> {
  await page.waitForSelector('body[data-ready="true"]');
}

/** The id of the focused element (evaluated in the page; the test's tsconfig has no DOM types). */
const activeId = (page: Page) => page.evaluate<string>("document.activeElement?.id ?? ''");

/**
 * Whether the first element matching `selector` is wholly inside the window and not covered: the element
 * at the middle of its box is it or inside it (a pane's hidden overflow or another element on top fails).
 */
const inView = (page: Page, selector: string) =>
  page.evaluate<boolean>(`(() => {
    const e = document.querySelector(${JSON.stringify(selector)});
    if (!e) return false;
    const r = e.getBoundingClientRect();
    if (r.height === 0 || r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) return false;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + Math.min(r.height / 2, 8));
    return hit === e || e.contains(hit);
  })()`);

/** Screenshots go to RGE_SCREENSHOTS when it names a folder (to look at them), nowhere otherwise. */
async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.RGE_SCREENSHOTS;
  await page.screenshot(dir ? { path: join(dir, `${name}.png`) } : {});
}

describe('the labelling page in a headless browser', () => {
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (hasChromium) browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it.skipIf(!hasChromium)(
    chromiumTitle(
      'labels five responses by keyboard only, hides the judges until labelled, and resumes at item 6',
    ),
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'rge-browser-'));
      const sample = await writeHandSample(dir, 8);
      const server = await startLabelling(
        { sample, labeller: 'ana', port: '0', labelsDir: dir },
        quietIO(dir),
      );
      const page = await (browser as Browser).newPage();
      try {
        await page.goto(server.url);
        await ready(page);
        expect(await page.textContent('#progress')).toBe('Item 1 of 8 · 0 labelled');
        expect(await activeId(page)).toBe('dim-correctness');
        // the cited chunk is highlighted and its supporting sentence marked; the subject is not named
        expect(await page.getAttribute('.chunk.cited', 'data-chunk')).toBe('acme-FY24-0000aaaa');
        expect(await page.textContent('.chunk.cited mark.figure')).toContain('Consolidated revenue');
        expect(await page.textContent('main')).not.toContain('extractive');
        // the rubric's meaning beside the buttons
        expect(await page.textContent('#dim-grounding')).toContain('citation theatre');

        const given = [0, 1, 2, 3, 4].map((i) => ({
          scores: [i % 3, (i + 1) % 3, (i + 2) % 3] as const,
          rationale: `rationale ${i}: checked the figure against the cited chunk`,
        }));
        for (const [i, g] of given.entries()) {
          expect(await page.content()).not.toContain(JUDGE_MARK);
          expect(await page.isHidden('#judges')).toBe(true);
          for (const s of g.scores) await page.keyboard.press(String(s));
          expect(await activeId(page)).toBe('text');
          await page.keyboard.type(g.rationale);
          await page.keyboard.press('Enter');
          await page.waitForSelector(`#main[data-index="${i + 1}"]`);
        }
        expect(await page.textContent('#progress')).toBe('Item 6 of 8 · 5 labelled');
        expect(await page.content()).not.toContain(JUDGE_MARK);

        await page.reload();
        await ready(page);
        expect(await page.getAttribute('#main', 'data-index')).toBe('5');
        expect(await page.textContent('#progress')).toBe('Item 6 of 8 · 5 labelled');
        expect(await page.content()).not.toContain(JUDGE_MARK);

        const file = labelsFile(dir, 'hand-0123456789ab');
        const labels = readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .map((l) => HumanLabel.parse(JSON.parse(l)));
        expect(labels).toHaveLength(5);
        for (const [i, g] of given.entries())
          expect(labels[i]).toMatchObject({
            sample_id: 'hand-0123456789ab',
            item_id: `extractive/q-${i}/run 0`,
            answer_key: `answer-key-${i}`,
            labeller: 'ana',
            correctness: g.scores[0],
            grounding: g.scores[1],
            calibration: g.scores[2],
            rationale: g.rationale,
          });

        // back to item 5: labelled, so the judges' verdicts are shown for comparison, with the label
        await page.keyboard.press('b');
        await page.waitForSelector('#main[data-index="4"]');
        await page.waitForSelector('#judges:not([hidden])');
        expect(await page.textContent('#judges')).toContain('Judges said');
        expect(await page.textContent('#judges')).toContain(`${JUDGE_MARK} judge-a gives correctness 2`);
        expect(await page.inputValue('#text')).toBe(given[4]?.rationale);
        // forward to item 6: not labelled, nothing of the judges
        await page.keyboard.press('n');
        await page.waitForSelector('#main[data-index="5"]');
        expect(await page.isHidden('#judges')).toBe(true);
        expect(await page.content()).not.toContain(JUDGE_MARK);
        // Enter with a score missing saves nothing and says what is missing
        await page.keyboard.press('2');
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('Enter');
        await page.keyboard.type('incomplete');
        await page.keyboard.press('Enter');
        expect(await page.textContent('#status')).toContain('score grounding first');
        expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(5);
      } finally {
        await page.close();
        await server.close();
      }
    },
  );

  it.skipIf(!hasChromium)(
    chromiumTitle(
      'fits 1280x800: Save, the rationale, the key hints and the cited sentence in view after load and after a citation is pressed',
    ),
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'rge-browser-fit-'));
      const item = longItem();
      const server = await startValidationServer(
        labelSession(ValidationSample.parse({ ...handSample(1), items: [item, handItem(1)] }), 'ana', dir),
      );
      const page = await (browser as Browser).newPage({ viewport: { width: 1280, height: 800 } });
      try {
        await page.goto(server.url);
        await ready(page);
        await screenshot(page, 'label-1280x800-load');
        // the page itself does not scroll: the case pane does
        expect(await page.evaluate<number>('document.documentElement.scrollHeight')).toBeLessThanOrEqual(800);
        for (const what of ['#save', '#text', '#keys', '#dim-correctness', '#question .question-text'])
          expect(await inView(page, what), what).toBe(true);
        // the cited chunk (retrieved last) comes first, open, scrolled to its supporting sentence
        const cited = item.chunks[4]?.id as string;
        expect(await page.getAttribute('#chunks .chunk >> nth=0', 'data-chunk')).toBe(cited);
        expect(await page.textContent('.chunk.cited mark.figure')).toBe(
          'The Mining segment reported revenue of Rs 987.65 crore in FY24.',
        );
        expect(await inView(page, '.chunk.cited mark.figure')).toBe(true);
        // the others folded, each showing its best line; the gold quote marked apart, in its own chunk
        expect(await page.locator('details.chunk:not([open])').count()).toBe(4);
        const goldChunk = `details.chunk[data-chunk="${item.chunks[0]?.id}"]`;
        expect(await page.textContent(`${goldChunk} .best`)).toBe(item.gold_quotes[0]);
        expect(await page.getAttribute(`${goldChunk} mark.gold`, 'class')).toBe('gold');
        expect(await page.locator('mark.figure.gold, mark.words.gold').count()).toBe(0);
        // chunk ids as they are, never upper-cased by the title's style
        expect(
          await page.evaluate<string>(
            "getComputedStyle(document.querySelector('.chunks-title .chunk-id')).textTransform",
          ),
        ).toBe('none');

        // scroll the chunk's text and the case away, then press the citation: the sentence comes back
        const away =
          "document.querySelector('.chunk.cited .chunk-text').scrollTop = 0; document.getElementById('case').scrollTop = 100000";
        await page.evaluate(away);
        expect(await inView(page, '.chunk.cited mark.figure')).toBe(false);
        await page.click(`#answer .cite[data-cite="${cited}"]`);
        await page.waitForSelector(`body[data-jumped="${cited}"]`);
        await screenshot(page, 'label-1280x800-citation');
        expect(await inView(page, '.chunk.cited mark.figure')).toBe(true);
        expect(await inView(page, '#save')).toBe(true);
        // by keyboard: c does the same, and the scores still go to the dimensions
        await page.evaluate(`${away}; delete document.body.dataset.jumped`);
        expect(await inView(page, '.chunk.cited mark.figure')).toBe(false);
        await page.keyboard.press('c');
        await page.waitForSelector(`body[data-jumped="${cited}"]`);
        expect(await inView(page, '.chunk.cited mark.figure')).toBe(true);
        await page.keyboard.press('2');
        expect(await activeId(page)).toBe('dim-grounding');
        // calibration's meanings open when it is focused, and Save stays in view
        await page.keyboard.press('1');
        expect(await activeId(page)).toBe('dim-calibration');
        expect(await inView(page, '#dim-calibration .meanings')).toBe(true);
        expect(await inView(page, '#save')).toBe(true);
      } finally {
        await page.close();
        await server.close();
      }
    },
  );

  it.skipIf(!hasChromium)(
    chromiumTitle('review mode: shows both verdicts from the start and records an outcome by keyboard'),
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'rge-browser-review-'));
      const item = handItem(3, [judgeOutcome('judge-a', [2, 0, 2]), judgeOutcome('judge-b', [2, 2, 1])]);
      const server = await startValidationServer(
        reviewSession('run-x', [{ item, contestedDimensions: ['grounding'] }], 'rev', dir),
      );
      const page = await (browser as Browser).newPage();
      try {
        await page.goto(server.url);
        await ready(page);
        expect(await page.textContent('#progress')).toBe('Item 1 of 1 · 0 reviewed');
        expect(await page.isVisible('#judges')).toBe(true);
        expect(await page.textContent('#judges')).toContain('contested on grounding');
        expect(await page.textContent('#judges')).toContain(
          `${JUDGE_MARK} evidence for grounding by judge-a`,
        );
        expect(await page.getAttribute('.dim.contested', 'data-dim')).toBe('grounding');
        expect(await page.textContent('#text-label')).toBe('Note');
        for (const key of ['1', '2', '0']) await page.keyboard.press(key);
        await page.keyboard.type('judge-a missed the cited figure');
        await page.keyboard.press('Control+Enter');
        await page.waitForSelector('#status.ok');
        expect(await page.textContent('#status')).toContain('all 1 done');
        const [line, ...rest] = readFileSync(reviewsFile(dir), 'utf8').trim().split('\n');
        expect(rest).toHaveLength(0);
        expect(ContestedReview.parse(JSON.parse(line ?? ''))).toMatchObject({
          kind: 'review',
          item_id: item.item_id,
          answer_key: item.answer_key,
          reviewer: 'rev',
          outcome: { correctness: 1, grounding: 2, calibration: 0 },
          note: 'judge-a missed the cited figure',
          judge_outcomes_hash: judgeOutcomesHash(item.verdicts),
        });
      } finally {
        await page.close();
        await server.close();
      }
    },
  );
});
