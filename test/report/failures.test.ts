/**
 * The failing cases grouped by kind (src/report/failures.ts): each planted failure lands in its kind,
 * a case that fits several lands in the first of the precedence, every failing case is counted exactly
 * once, passing cases are not counted, and the report's section shows the counts and one example of each
 * kind, with the gold answer and each gold quote on lines of their own.
 */
import { describe, expect, it } from 'vitest';
import { FAILURE_KINDS, failureKind, failureKinds } from '../../src/report/failures.ts';
import { renderMarkdown } from '../../src/report/markdown.ts';
import { failureKindsMarkdown } from '../../src/report/sections/failure-kinds.ts';
import { summarise } from '../../src/report/summary.ts';
import type { CaseRowView } from '../../src/report/views.ts';

interface Plant {
  q: string;
  subject?: string;
  c?: number;
  g?: number;
  k?: number;
  expected?: 'answer' | 'refuse';
  refusal?: 'passed' | 'over' | 'missed';
  mustNotInclude?: boolean;
  mustInclude?: boolean;
  recall?: number | null;
  hit?: boolean | null;
  unscored?: boolean;
  run?: number;
}

const judged = (c: number, g: number, k: number) => ({
  correctness: { score: c, rationale: `correctness ${c}` },
  grounding: { score: g, rationale: `grounding ${g}` },
  calibration: { score: k, rationale: `calibration ${k}` },
});

function plant(p: Plant): CaseRowView {
  const { c = 2, g = 2, k = 2 } = p;
  const check = (passed: boolean | null, detail: string) => ({ passed, detail });
  const refusal = p.refusal ?? 'passed';
  return {
    question_id: p.q,
    category: p.expected === 'refuse' ? 'out-of-domain' : 'grounded-direct',
    expected_behavior: p.expected ?? 'answer',
    question: {
      text: `What is ${p.q}?`,
      gold_answer: `gold ${p.q}`,
      gold_quotes: [`quote one ${p.q}`, `quote two ${p.q}`],
    },
    subject_id: p.subject ?? 's',
    model: p.subject ?? 's',
    run_index: p.run ?? 0,
    subject_prompt_hash: 'sp',
    judge_prompt_hash: 'jp',
    latency_ms: 1,
    cost_usd: 0,
    answer: `answer to ${p.q}`,
    ...(p.hit === undefined ? {} : { retrieval_hit: p.hit }),
    ...(p.recall === undefined
      ? {}
      : { evidence: { recall: p.recall, missing: p.recall === 0 ? [`figure of ${p.q}`] : [] } }),
    verdicts: p.unscored
      ? [
          { judgeId: 'j1', family: 'f1', status: 'unscored', verdict: null },
          { judgeId: 'j2', family: 'f2', status: 'unscored', verdict: null },
        ]
      : [
          { judgeId: 'j1', family: 'f1', status: 'scored', verdict: judged(c, g, k) },
          { judgeId: 'j2', family: 'f2', status: 'scored', verdict: judged(c, g, k) },
        ],
    scores: p.unscored
      ? {
          correctness: null,
          grounding: null,
          calibration: null,
          gfsPrimary: null,
          gfsEqual: null,
          unscored: true,
          contested: false,
          contestedDimensions: [],
        }
      : {
          correctness: c,
          grounding: g,
          calibration: k,
          gfsPrimary: (0.4 * g + 0.35 * c + 0.25 * k) / 2,
          gfsEqual: (c + g + k) / 6,
          unscored: false,
          contested: false,
          contestedDimensions: [],
        },
    checks: {
      refusalAccuracy:
        refusal === 'over'
          ? check(false, 'over-refusal: declined although answer was expected')
          : refusal === 'missed'
            ? check(false, 'missed refusal: answered although refuse was expected')
            : check(true, 'answered as expected'),
      mustNotInclude:
        p.mustNotInclude === false ? check(false, `contains: distractor of ${p.q}`) : check(null, 'nothing'),
      mustInclude: p.mustInclude === false ? check(false, `missing: figure of ${p.q}`) : check(true, 'all'),
      numbersTraced: check(true, 'traced'),
    },
  };
}

describe('failing cases by kind', () => {
  it('puts each planted failure in its kind', () => {
    const kinds = {
      unscored: plant({ q: 'u', unscored: true }),
      'under-refusal': plant({ q: 'ur', expected: 'refuse', refusal: 'missed', c: 0, k: 0 }),
      'retrieval miss': plant({ q: 'rm', c: 0, recall: 0, mustInclude: false }),
      'over-refusal': plant({ q: 'or', c: 0, k: 0, refusal: 'over', recall: 1 }),
      'wrong period or entity': plant({
        q: 'wp',
        c: 0,
        mustNotInclude: false,
        mustInclude: false,
        recall: 1,
      }),
      'wrong figure': plant({ q: 'wf', c: 1, mustInclude: false, recall: 1 }),
      ungrounded: plant({ q: 'ug', c: 2, g: 1, recall: 1 }),
    } as const;
    for (const [kind, r] of Object.entries(kinds)) expect(failureKind(r), kind).toBe(kind);
    // passing cases are not failures, whatever their checks say
    expect(failureKind(plant({ q: 'ok', recall: 0, mustNotInclude: false }))).toBeNull();
    expect(failureKind(plant({ q: 'ok2', c: 1.5, g: 1.5 }))).toBeNull();
  });

  it('takes the first kind of the precedence when several apply', () => {
    // no judge scored it: unscored, whatever its checks
    expect(failureKind(plant({ q: 'a', unscored: true, refusal: 'missed', expected: 'refuse' }))).toBe(
      'unscored',
    );
    // declined with none of the evidence in its passages: the retrieval missed, not the model
    expect(failureKind(plant({ q: 'b', c: 0, refusal: 'over', recall: 0 }))).toBe('retrieval miss');
    // older rows without evidence recall: the gold chunk not in the top k
    expect(failureKind(plant({ q: 'c', c: 0, refusal: 'over', hit: false }))).toBe('retrieval miss');
    expect(failureKind(plant({ q: 'd', c: 0, refusal: 'over', hit: true }))).toBe('over-refusal');
    // the distractor's figure and a wrong answer: the distractor says why
    expect(failureKind(plant({ q: 'e', c: 0, g: 0, mustNotInclude: false, recall: 0.5 }))).toBe(
      'wrong period or entity',
    );
    // wrong and ungrounded: wrong figure comes first
    expect(failureKind(plant({ q: 'f', c: 0, g: 0, recall: 1 }))).toBe('wrong figure');
    expect(FAILURE_KINDS[0]).toBe('unscored');
  });

  it('counts every failing case exactly once, per subject, and shows its lowest-GFS case as the example', () => {
    const rows = [
      plant({ q: 'q1', subject: 'a', c: 1, mustInclude: false, recall: 0.5 }),
      plant({ q: 'q2', subject: 'a', c: 0, mustInclude: false, recall: 1 }),
      plant({ q: 'q3', subject: 'a', c: 0, mustInclude: false, recall: 1, run: 1 }),
      plant({ q: 'q3', subject: 'b', expected: 'refuse', refusal: 'missed', c: 0, k: 0 }),
      plant({ q: 'q4', subject: 'b', unscored: true }),
      plant({ q: 'q5', subject: 'b' }),
      plant({ q: 'q6', subject: 'b', c: 2, g: 0, recall: 1 }),
    ];
    const f = failureKinds(rows);
    expect(f.bySubject.a).toEqual({
      cases: 3,
      failing: 3,
      kinds: { ...zero(), 'wrong figure': 3 },
    });
    expect(f.bySubject.b).toEqual({
      cases: 4,
      failing: 3,
      kinds: { ...zero(), unscored: 1, 'under-refusal': 1, ungrounded: 1 },
    });
    for (const m of ['a', 'b']) {
      const x = f.bySubject[m];
      expect(Object.values(x?.kinds ?? {}).reduce((s, n) => s + n, 0)).toBe(x?.failing);
    }
    // q2 and q3 both score GFS 0.35: the earlier question
    expect(f.examples['wrong figure']).toMatchObject({
      cell: 'a/q2/run 0',
      why: 'mustInclude: missing: figure of q2',
    });
    expect(f.examples['under-refusal']?.why).toBe(
      'refusalAccuracy: missed refusal: answered although refuse was expected',
    );
    expect(f.examples.unscored?.why).toBe('j1 unscored; j2 unscored');
    // numbersTraced passed: the judges' grounding rationale says why
    expect(f.examples.ungrounded?.why).toBe('j1: grounding 0');
    expect(f.examples['retrieval miss']).toBeNull();
  });

  it('says in the report how many cases share each failure, with one example each, gold on lines of its own', () => {
    const rows = [
      ...Array.from({ length: 4 }, (_, i) =>
        plant({ q: `ood-${i}`, subject: 'eager', expected: 'refuse', refusal: 'missed', c: 0, k: 0 }),
      ),
      plant({ q: 'gd-1', subject: 'eager', c: 0, recall: 0 }),
      plant({ q: 'gd-1', subject: 'careful', c: 0, k: 0, refusal: 'over', recall: 1 }),
      plant({ q: 'gd-2', subject: 'careful' }),
    ];
    const md = failureKindsMarkdown(failureKinds(rows));
    const text = md.join('\n');
    expect(text).toContain('6 of 7 cases fail');
    expect(md).toContain(
      `| under-refusal | 0 | 4 | 4 | answered a question it should have declined (refusalAccuracy: missed refusal) |`,
    );
    expect(md.some((l) => l.startsWith('| retrieval miss | 0 | 1 | 1 |'))).toBe(true);
    expect(md.some((l) => l.startsWith('| over-refusal | 1 | 0 | 1 |'))).toBe(true);
    expect(md).toContain('| **failing** | **1** of 2 | **5** of 5 | **6** | |');
    // one example per kind seen, none for the kinds not seen
    expect(md.filter((l) => l.startsWith('### '))).toEqual([
      '### under-refusal: 4 cases; for example eager/ood-0/run 0 (out-of-domain, GFS 0.400)',
      '### retrieval miss: 1 case; for example eager/gd-1/run 0 (grounded-direct, GFS 0.650)',
      '### over-refusal: 1 case; for example careful/gd-1/run 0 (grounded-direct, GFS 0.400)',
    ]);
    expect(text).toContain(
      'Gold answer: gold gd-1\n\nGold quotes:\n\n- "quote one gd-1"\n- "quote two gd-1"\n\nAnswer:\n\n> answer to gd-1',
    );
    expect(text).toContain('Why retrieval miss: not in the passages: figure of gd-1.');
    // in the whole report, right after the answer
    const report = renderMarkdown(
      summarise(rows, {
        seed: 's',
        resamples: 100,
        run: { runId: 'r', configHash: 'c', indexChecksum: 'i', questionsHash: 'q' },
      }),
    );
    expect(report.indexOf('## Where the models fail, by kind')).toBeGreaterThan(
      report.indexOf('## The answer'),
    );
    expect(report.indexOf('## Where the models fail, by kind')).toBeLessThan(
      report.indexOf('## Grounding Fidelity Score'),
    );
  });
});

function zero() {
  return Object.fromEntries(FAILURE_KINDS.map((k) => [k, 0]));
}
