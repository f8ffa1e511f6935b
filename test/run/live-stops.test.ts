/**
 * Replies that do not end on their own, end to end through the real SDKs (loopback servers), sync and
 * batch: an answer cut at the output limit, refused or stopped by a safety filter is stored with its
 * stop and never judged (its case is unscored); a verdict reply cut at the limit is unscored with its
 * stop, without the parse retry; the report counts each kind per model.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stopSection } from '../../src/report/sections/stops.ts';
import { stopCounts } from '../../src/report/stops.ts';
import { caseRow } from '../../src/run/case/case.ts';
import { runStages } from '../../src/run/stages/stages.ts';
import { worldOverrides } from '../helpers/fixture-world.ts';
import { liveEnv, liveOverrides, root, serverKeys } from '../helpers/live.ts';
import { openTestRun } from '../helpers/open-run.ts';
import { defaultReply, type LoopbackCall, userTextOf } from '../loopback/common.ts';
import { startLoopbackServers } from '../loopback/index.ts';

const quiet = () => {};

beforeAll(() => worldOverrides('bm25'), 600_000);

describe('replies that did not end on their own are recorded as what they are, never scored as complete', () => {
  for (const mode of ['sync', 'batch'] as const) {
    it(`${mode}: truncated, refused and safety-stopped answers are not judged; a truncated verdict is unscored`, async () => {
      let firstQuestion = '';
      const respond = (call: LoopbackCall) => {
        const reply = defaultReply(call);
        if (call.schema !== null)
          // the Gemini judge rambles past its output limit (4,096 tokens with its thinking allowance)
          return call.provider === 'gemini' ? { text: `${reply.text}${' and so on'.repeat(6000)}` } : reply;
        if (call.provider === 'gemini') return { ...reply, stop: 'safety' as const };
        // Claude declines its first question (both runs) and answers the others
        if (call.provider === 'anthropic' && userTextOf(call).includes(firstQuestion))
          return { ...reply, stop: 'refusal' as const };
        return reply;
      };
      const s = await startLoopbackServers({ latencyMs: 1, respond }, serverKeys);
      try {
        const run = await openTestRun({
          config: 'configs/published.yaml',
          root,
          resultsDir: await mkdtemp(join(tmpdir(), `rge-live-stops-${mode}-`)),
          env: liveEnv(s),
          // GPT-5.4's answers are cut at 5 tokens
          overrides: [...liveOverrides(), 'subjects.1.max_tokens=5'],
          log: quiet,
          questions: 3,
          runs: 2,
          mode,
        });
        firstQuestion = run.plan.questions[0]?.text ?? '';
        expect(run.plan.subjects.map((x) => x.id)).toEqual(['claude', 'gpt', 'gemini']);
        const { state } = await runStages(run, { log: quiet });
        expect(state.counts.answers).toEqual({ computed: 18, reused: 0, failed: 0 });
        // only Claude's four complete answers are judged, by the GPT and Gemini judges
        expect(state.counts.verdicts).toEqual({ computed: 8, reused: 0, failed: 0 });
        expect(s.anthropic.calls.filter((c) => c.schema !== null)).toHaveLength(0);
        expect(s.openai.calls.filter((c) => c.schema !== null)).toHaveLength(4);
        // a truncated verdict reply is not asked again (it would be cut again at the same limit)
        expect(s.gemini.calls.filter((c) => c.schema !== null)).toHaveLength(4);

        const stops = (id: string) => {
          const subject = run.plan.subjects.find((x) => x.id === id);
          if (!subject) throw new Error(`no subject ${id}`);
          return run
            .answers(subject)
            .records()
            .map((r) => r.stop?.kind)
            .sort();
        };
        expect(stops('claude')).toEqual([
          'complete',
          'complete',
          'complete',
          'complete',
          'refusal',
          'refusal',
        ]);
        expect(new Set(stops('gpt'))).toEqual(new Set(['truncated']));
        expect(new Set(stops('gemini'))).toEqual(new Set(['safety']));

        const rows = (await run.work.cells()).map((c) => caseRow(run, c));
        for (const row of rows.filter((r) => r.answer_stop?.kind !== 'complete')) {
          expect(row.verdicts).toEqual([]);
          expect(row.scores.unscored).toBe(true);
          expect(row.scores.gfsPrimary).toBeNull();
        }
        expect(rows.find((r) => r.subject_id === 'gpt')?.answer_stop).toEqual({
          kind: 'truncated',
          reason: 'length',
        });
        expect(rows.find((r) => r.subject_id === 'gemini')?.answer_stop).toEqual({
          kind: 'safety',
          reason: 'SAFETY',
        });
        expect(rows.find((r) => r.answer_stop?.kind === 'refusal')?.answer_stop?.reason).toBe('refusal');
        const judged = rows.filter((r) => r.answer_stop?.kind === 'complete');
        expect(judged).toHaveLength(4);
        for (const row of judged) {
          const gemini = row.verdicts.find((v) => v.judgeId === 'gemini/gemini-3.1-pro-preview');
          expect(gemini).toMatchObject({
            status: 'unscored',
            verdict: null,
            attempts: 1,
            stop: { kind: 'truncated', reason: 'MAX_TOKENS' },
          });
          expect(gemini?.error).toMatch(/^the reply was cut at the output limit \(MAX_TOKENS, 4096 tokens\)/);
          // the case rests on the one judge that scored
          expect(row.scores).toMatchObject({ unscored: false, partial: true, scoredJudges: 1 });
        }

        // the report counts each kind per model
        const counts = stopCounts(rows);
        expect(counts.answers).toEqual({
          claude: { complete: 4, truncated: 0, refusal: 2, safety: 0, other: 0 },
          gpt: { complete: 0, truncated: 6, refusal: 0, safety: 0, other: 0 },
          gemini: { complete: 0, truncated: 0, refusal: 0, safety: 6, other: 0 },
        });
        expect(counts.verdicts).toEqual({
          'openai/gpt-5.4': { complete: 4, truncated: 0, refusal: 0, safety: 0, other: 0 },
          'gemini/gemini-3.1-pro-preview': { complete: 0, truncated: 4, refusal: 0, safety: 0, other: 0 },
        });
        expect(stopSection(counts)).toContain('| gpt | subject (answers) | 0 | 6 | 0 | 0 | 0 |');
      } finally {
        await s.close();
      }
    }, 240_000);
  }
});
