/**
 * Issue 51, item 6: the evidence a heuristic judge quotes for grounding is the sentence or table row
 * that holds the answer's figures, whole. Before, on the fixture run the numeric judge quoted "Treasury
 * | 20,490.48 | 12.0" for "USD 20,573 million ... Rs 83.00" (a figure within 1% in another row), a
 * profit sentence for a quarter's revenue 0.2% away, and PDF lines cut mid-sentence ("... reported
 * revenue from operations of Rs"); the lexical judge too cut sentences at PDF line breaks.
 *
 * Over the fixture run (configs/fixture.yaml on the bm25 world: both offline subjects, 3 runs of the
 * 200 questions, both judges), for every grounding-2 verdict on an answer that states figures:
 * - every quote prints one of the answer's figures, and every figure of the answer is printed in one
 *   of the quotes (as the answer writes it: the fixture subjects quote their chunks);
 * - every quote (each part of one joined by " ... ") is in a retrieved chunk and is whole: it starts
 *   and ends where a sentence or a table row or heading line does.
 * The counts are measured here and must be 0; the number of quotes measured must be large.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { extractQuantities, type Quantity, stripCitations } from '../../../src/analysis/index.ts';
import type { ContextChunk } from '../../../src/providers/types.ts';
import { type CaseRow, caseRow } from '../../../src/run/case/case.ts';
import { contextsOf } from '../../../src/run/session/work.ts';
import { runStages } from '../../../src/run/stages/stages.ts';
import { worldOverrides } from '../../helpers/fixture-world.ts';
import { openTestRun } from '../../helpers/open-run.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The number as written, without grouping commas: "Rs 9,14,472.00 crore" -> "914472.00". */
const written = (q: Quantity) => (/-?\d[\d,]*(?:\.\d+)?/.exec(q.raw)?.[0] ?? q.raw).replace(/,/g, '');
const prints = (quote: string, q: Quantity) =>
  extractQuantities(quote).some((x) => written(x) === written(q));

const isRowOrHeading = (line: string) => {
  const t = line.trim();
  return / \| /.test(t) || (/[A-Z]{4}/.test(t) && !/[a-z]/.test(t));
};
const TERMINAL = /[.!?]["')’”]?$/;

/**
 * Whether `part` stands whole in the chunk ('whole'), is in it but cut ('cut'), or is not in it: found verbatim (whitespace aside), starting at the chunk's
 * start, after a sentence's end, or at a line start after a blank, row or heading line (or itself a
 * row or heading); ending at the chunk's end, with a sentence's end, or at a line end before a blank,
 * row or heading line (or itself a row or heading).
 */
function wholeIn(part: string, text: string): 'whole' | 'cut' | 'absent' {
  const pattern = new RegExp(
    part
      .trim()
      .split(/\s+/)
      .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('\\s+'),
    'g',
  );
  const lines = text.split('\n');
  const lineAt = (offset: number) => text.slice(0, offset).split('\n').length - 1;
  let found: 'cut' | 'absent' = 'absent';
  for (const m of text.matchAll(pattern)) {
    found = 'cut';
    const start = m.index;
    const end = start + m[0].length;
    const before = text.slice(0, start);
    const first = lineAt(start);
    const last = lineAt(end - 1);
    const startsLine = before === '' || before.endsWith('\n');
    const endsLine = end === text.length || text[end] === '\n';
    const starts =
      before.trim() === '' ||
      TERMINAL.test(before.trimEnd()) ||
      (startsLine &&
        (isRowOrHeading(lines[first] ?? '') ||
          (lines[first - 1] ?? '').trim() === '' ||
          isRowOrHeading(lines[first - 1] ?? '')));
    const ends =
      text.slice(end).trim() === '' ||
      TERMINAL.test(m[0]) ||
      (endsLine &&
        (isRowOrHeading(lines[last] ?? '') ||
          (lines[last + 1] ?? '').trim() === '' ||
          isRowOrHeading(lines[last + 1] ?? '')));
    if (starts && ends) return 'whole';
  }
  return found;
}

interface QuoteCounts {
  verdicts: number;
  quotes: number;
  /** quotes that print none of the answer's figures */
  withoutFigures: string[];
  /** verdicts where a figure of the answer is printed in none of the quotes */
  figureUnquoted: string[];
  /** quotes (or parts) not whole in any retrieved chunk */
  cut: string[];
}

function measure(
  rows: readonly (CaseRow & { chunks: readonly ContextChunk[] })[],
  judgeId: string,
): QuoteCounts {
  const out: QuoteCounts = { verdicts: 0, quotes: 0, withoutFigures: [], figureUnquoted: [], cut: [] };
  for (const row of rows) {
    const verdict = row.verdicts.find((v) => v.judgeId === judgeId)?.verdict;
    if (!verdict) continue;
    const figures = extractQuantities(stripCitations(row.answer));
    if (verdict.grounding.score === 2 && figures.length > 0) {
      out.verdicts++;
      const quotes = verdict.grounding.evidence;
      const where = `${row.question_id} ${row.subject_id}#${row.run_index}`;
      for (const quote of quotes) {
        out.quotes++;
        if (!figures.some((q) => prints(quote, q))) out.withoutFigures.push(`${where}: "${quote}"`);
      }
      const missing = figures.filter((q) => !quotes.some((quote) => prints(quote, q)));
      if (missing.length > 0) out.figureUnquoted.push(`${where}: ${missing.map((q) => q.raw).join(', ')}`);
    }
    // every grounding quote of the chunks, whatever the score (an unsupported claim is quoted from the
    // answer: a quote in no chunk must be the answer's)
    for (const quote of verdict.grounding.evidence)
      for (const part of quote.split(' ... ')) {
        const found = row.chunks.map((c) => wholeIn(part, c.text));
        if (found.includes('whole')) continue;
        if (found.includes('cut') || !row.answer.includes(quote))
          out.cut.push(`${row.question_id} ${row.subject_id}#${row.run_index}: "${part}"`);
      }
  }
  return out;
}

describe('the heuristic judges quote the sentence or row that holds the answer figures, whole', () => {
  let rows: (CaseRow & { chunks: readonly ContextChunk[] })[];

  beforeAll(async () => {
    const run = await openTestRun({
      config: 'configs/fixture.yaml',
      root,
      resultsDir: await mkdtemp(join(tmpdir(), 'rge-world-quotes-')),
      overrides: await worldOverrides(),
      log: () => {},
    });
    await runStages(run, { log: () => {} });
    rows = (await run.work.cells()).map((cell) => {
      const row = caseRow(run, cell);
      const answer = run.answers(cell.subject).get(cell.key);
      return { ...row, chunks: answer ? contextsOf(cell, answer) : cell.chunks };
    });
  }, 600_000);

  for (const judgeId of ['heuristic/numeric', 'heuristic/lexical'])
    it(`${judgeId}: no quote without the answer's figures, no figure unquoted, no quote cut`, () => {
      expect(rows).toHaveLength(1200);
      const counts = measure(rows, judgeId);
      console.log(
        `${judgeId}: ${counts.verdicts} grounding-2 verdicts on answers with figures, ${counts.quotes} quotes; ` +
          `${counts.withoutFigures.length} without the answer's figures, ${counts.figureUnquoted.length} verdicts with a figure unquoted, ${counts.cut.length} quotes cut`,
      );
      expect(counts.verdicts).toBeGreaterThan(800);
      expect(counts.quotes).toBeGreaterThanOrEqual(counts.verdicts);
      expect(counts.withoutFigures.slice(0, 5)).toEqual([]);
      expect(counts.figureUnquoted.slice(0, 5)).toEqual([]);
      expect(counts.cut.slice(0, 5)).toEqual([]);
    });
});
