/**
 * The report's sections are values in one list (src/report/sections.ts, docs/adr/0037): the list's ids are
 * unique, each has its file under src/report/sections/ and each file its line in the list; the list's
 * order is the report's order; every summary field is one section's, and summary.json keeps the field
 * order it has always had. Adding a section is one file and one line: a test-only section put into the
 * list shows in its place in the markdown and in the summary, and changes nothing else.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderMarkdown, renderSections } from '../../src/report/markdown.ts';
import { PLACES, type ReportSection } from '../../src/report/section.ts';
import { REPORT_SECTIONS } from '../../src/report/sections.ts';
import { SUMMARY_FIELD_ORDER, type Summary, summarise, summariseSections } from '../../src/report/summary.ts';
import type { CaseErrorView, CaseRowView } from '../../src/report/views.ts';
import { scoredCell } from './scored-cell.ts';

/** Two subjects over 12 questions and 2 runs, one of them failing a case: every section has lines. */
const rows: CaseRowView[] = ['a', 'b'].flatMap((m) =>
  Array.from({ length: 12 }, (_, q) =>
    [0, 1].map((r) =>
      scoredCell(m, q, r, m === 'a' ? [2, 2, 2] : [q % 3 === 0 ? 0 : 2, q % 4 === 0 ? 1 : 2, 2], 0.001),
    ),
  ).flat(),
);
const errors: CaseErrorView[] = [
  {
    name: 'b › adversarial › q-12 › run 0',
    message: 'the system timed out',
    subject_id: 'b',
    question_id: 'q-12',
    run_index: 0,
    category: 'adversarial',
    by: 'subject',
  },
];
const opts = {
  seed: 's',
  resamples: 200,
  run: { runId: 'r', configHash: 'c', indexChecksum: 'i', questionsHash: 'q' },
  errors,
};

/** summary.json's fields, in the order it wrote them before the sections were values. */
const SUMMARY_JSON_FIELDS = [
  'run',
  'models',
  'categories',
  'cases',
  'outcomes',
  'gfs',
  'ranking',
  'ranks',
  'pairwise',
  'pairwiseMethod',
  'power',
  'corrected',
  'variance',
  'consistency',
  'judgeAgreement',
  'contested',
  'checkPassRates',
  'latency',
  'cost',
  'caching',
  'budget',
  'diagnostics',
  'evidence',
  'failures',
  'stops',
  'describe',
  'partial',
  'validation',
  'promptHashes',
];

const summaryOfTheRun = () => summarise(rows, opts);
/** The fields a section computes. */
const fieldsOf = (section: ReportSection<object, never>) => {
  const all = summariseSections([section], rows, opts);
  return Object.keys(all);
};

describe('the list of report sections', () => {
  it('has unique kebab-case ids, one file of src/report/sections/ each, and no section file outside it', () => {
    const ids = REPORT_SECTIONS.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z]+(-[a-z]+)*$/);
    const folder = fileURLToPath(new URL('../../src/report/sections/', import.meta.url));
    const files = readdirSync(folder)
      .filter((f) => f.endsWith('.ts') && f !== 'format.ts')
      .map((f) => f.slice(0, -'.ts'.length));
    expect([...ids].sort()).toEqual(files.sort());
  });

  it('keeps the first screen first', () => {
    const places = REPORT_SECTIONS.map((s) => PLACES.indexOf(s.place));
    expect(places).toEqual([...places].sort((x, y) => x - y));
    expect(REPORT_SECTIONS.filter((s) => s.place === 'first-screen').map((s) => s.id)).toEqual([
      'header',
      'answer',
    ]);
  });

  it('is the report: summary.md is each section in the list, in its order', () => {
    const s = summaryOfTheRun();
    const md = renderMarkdown(s, { chartFile: 'gfs.svg' });
    const parts = REPORT_SECTIONS.map((section) => section.render(s as never, { chartFile: 'gfs.svg' }));
    expect(md).toBe(`${parts.flat().join('\n')}\n`);
    // each section that shows something for this run (here all but budget, evidence and hit@k) after the one before
    const shown = parts.flatMap((lines, i) => (lines.length > 0 ? [REPORT_SECTIONS[i]?.id] : []));
    for (const id of ['header', 'answer', 'failure-kinds', 'no-answer', 'gfs', 'pairwise', 'errors'])
      expect(shown).toContain(id);
    expect(shown).not.toContain('budget');
    let at = -1;
    for (const [i, lines] of parts.entries()) {
      if (lines.length === 0) continue;
      const where = md.indexOf(lines.join('\n'), at + 1);
      expect(where, REPORT_SECTIONS[i]?.id).toBeGreaterThan(at);
      at = where;
    }
    expect(md.indexOf('## The answer')).toBeLessThan(md.indexOf('## Grounding Fidelity Score'));
    expect(md.indexOf('## Errors: 1')).toBeLessThan(md.indexOf('## What was run'));
  });

  it("computes each summary field in one section only, in summary.json's order of always", () => {
    const s = summaryOfTheRun();
    expect([...SUMMARY_FIELD_ORDER]).toEqual(SUMMARY_JSON_FIELDS);
    // the fields summary.json always had, in their order, then a newer section's in the list's order
    const owned = REPORT_SECTIONS.flatMap((section) => fieldsOf(section));
    const newer = owned.filter((f) => !SUMMARY_JSON_FIELDS.includes(f));
    expect(Object.keys(s)).toEqual([...SUMMARY_JSON_FIELDS, ...newer]);
    expect(Object.keys(JSON.parse(JSON.stringify(s)))).toEqual([...SUMMARY_JSON_FIELDS, ...newer]);
    expect(new Set(owned).size).toBe(owned.length);
    // a field two sections compute is a mistake of the list
    const copy = { ...REPORT_SECTIONS[4], id: 'gfs-again' } as ReportSection<object, never>;
    expect(() => summariseSections([...REPORT_SECTIONS, copy], rows, opts)).toThrow(
      /report section gfs-again: summary field gfs is another section's/,
    );
  });
});

describe('adding a section is one file and one line', () => {
  // the file: what it computes into the summary, how it renders, its place
  const subjectsCounted: ReportSection<{ subjectsCounted: { subjects: number; cases: number } }> = {
    id: 'subjects-counted',
    place: 'below',
    compute: (c) => ({ subjectsCounted: { subjects: c.models.length, cases: c.rows.length } }),
    render: (s) => [
      '## Subjects counted (a test-only section)',
      '',
      `${s.subjectsCounted.subjects} subjects, ${s.subjectsCounted.cases} cases.`,
      '',
    ],
  };
  // the line: after the GFS section
  const at = REPORT_SECTIONS.findIndex((s) => s.id === 'gfs') + 1;
  const sections = [...REPORT_SECTIONS.slice(0, at), subjectsCounted, ...REPORT_SECTIONS.slice(at)] as const;

  it('shows in its place in summary.md, and in the summary after the fields it always had', () => {
    const withIt = summariseSections(sections, rows, opts);
    const without = summarise(rows, opts);
    expect(withIt.subjectsCounted).toEqual({ subjects: 2, cases: 48 });
    const keys = Object.keys(withIt);
    expect(keys.slice(0, SUMMARY_JSON_FIELDS.length)).toEqual(SUMMARY_JSON_FIELDS);
    expect(keys.slice(SUMMARY_JSON_FIELDS.length)).toContain('subjectsCounted');
    expect(keys.filter((k) => k !== 'subjectsCounted')).toEqual(Object.keys(without));
    const { subjectsCounted: _, ...rest } = withIt;
    expect(JSON.stringify(rest)).toBe(JSON.stringify(without));

    const md = renderSections(sections, withIt, { chartFile: 'gfs.svg' });
    const block = '## Subjects counted (a test-only section)\n\n2 subjects, 48 cases.\n\n';
    expect(md).toContain(block);
    expect(md.indexOf('## Grounding Fidelity Score')).toBeLessThan(md.indexOf(block));
    expect(md.indexOf(block)).toBeLessThan(md.indexOf('## Judge-error-corrected GFS'));
    expect(md.replace(block, '')).toBe(renderMarkdown(without, { chartFile: 'gfs.svg' }));
  });

  it('does not compile when its renderer reads a field no section computes', () => {
    const readsTooMuch: ReportSection<object, { notComputed: number }> = {
      id: 'reads-too-much',
      place: 'below',
      render: (s) => [`${s.notComputed}`],
    };
    // renderMarkdown holds the list to this type: each section renders from the summary the list computes
    // @ts-expect-error no section of the list computes `notComputed`
    const list: readonly ReportSection<object, Summary>[] = [...REPORT_SECTIONS, readsTooMuch];
    expect(list.at(-1)?.id).toBe('reads-too-much');
  });
});
