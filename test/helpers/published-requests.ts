/**
 * The requests `configs/published.yaml` makes, built by the run's own code (a dry run of the config:
 * its subjects and judges with their resolved parameters, its subject prompt file and pinned judge
 * prompt), on a small hand-made context: each subject's answer request and each judge's verdict
 * request, as the stages would send them (sync, or as batch items).
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderJudgeRequest } from '../../src/judging/prompt.ts';
import type { ModelRequest } from '../../src/providers/types.ts';
import type { RunSession } from '../../src/run/session/open.ts';
import { judgeInputFor, subjectRequestFor } from '../../src/run/session/work.ts';
import { GOVERNANCE, HIGHLIGHTS } from '../providers/context.ts';
import { root } from './live.ts';
import { openTestRun } from './open-run.ts';

export interface PublishedRequest {
  /** the config entry's id (claude, gpt-judge, ...) */
  id: string;
  role: 'subject' | 'judge';
  provider: string;
  model: string;
  request: ModelRequest;
}

/** The published config, prepared as a dry run (no key, no index, nothing called). */
export async function preparedPublished(): Promise<RunSession> {
  return openTestRun({
    config: 'configs/published.yaml',
    root,
    dryRun: true,
    resultsDir: await mkdtemp(join(tmpdir(), 'rge-published-')),
    log: () => {},
  });
}

/** Every subject's request and every judge's request of the published config, for one question. */
export async function publishedRequests(): Promise<PublishedRequest[]> {
  const run = await preparedPublished();
  const question = run.plan.questions.find((q) => q.category === 'grounded-direct') ?? run.plan.questions[0];
  if (!question) throw new Error('the published config has no question');
  const chunks = [HIGHLIGHTS, GOVERNANCE];
  const out: PublishedRequest[] = [];
  for (const s of run.plan.subjects)
    out.push({
      id: s.id,
      role: 'subject',
      provider: s.config.provider,
      model: s.config.model,
      request: subjectRequestFor(run.plan, s, question, chunks, 1),
    });
  const answer = `Consolidated revenue from operations for FY24 was Rs 26,710.56 crore [${HIGHLIGHTS.id}].`;
  for (const j of run.plan.judges)
    out.push({
      id: j.id,
      role: 'judge',
      provider: j.config.provider,
      model: j.model,
      request: renderJudgeRequest(judgeInputFor(question, chunks, answer), j, run.plan.judgePrompt),
    });
  return out;
}
