/**
 * What a run would do, without calling any provider: cells, calls and tokens. Input tokens are counted
 * with cl100k on the rendered requests (the retrieved chunks are real); output tokens are bounded by
 * each model's max_tokens. Cells already in the results store would be reused and cost nothing.
 */
import { encode } from 'gpt-tokenizer/encoding/cl100k_base';
import { crossFamilyPanel } from '../judging/panel.ts';
import { JUDGE_MAX_TOKENS, judgePromptText, renderJudgeRequest } from '../judging/prompt.ts';
import type { ModelRequest } from '../providers/types.ts';
import { promptHash } from '../subject/prompt.ts';
import { judgeInputFor, type PreparedRun, retrieveContext, subjectRequestFor } from './case.ts';

export interface RunPlan {
  runId: string;
  subjects: string[];
  questions: number;
  runs: number;
  cells: number;
  stored: number;
  toCompute: number;
  calls: { subject: number; judge: number };
  tokens: { input: number; outputMax: number };
}

const tokensOf = (r: ModelRequest) =>
  encode(`${r.system}\n${r.messages.map((m) => m.content).join('\n')}`).length;

export async function planRun(run: PreparedRun): Promise<RunPlan> {
  let cells = 0;
  let stored = 0;
  let input = 0;
  let outputMax = 0;
  let judgeCalls = 0;
  const promptText = run.config.judge_prompt.text ?? judgePromptText();
  for (const subject of run.subjects) {
    const panel = crossFamilyPanel(subject.config.family, run.judges);
    const store = run.stores.get(subject.id);
    for (const question of run.questions) {
      const chunks = await retrieveContext(run.index, question, run.config.retrieval.k);
      for (let runIndex = 0; runIndex < run.runs; runIndex++) {
        cells++;
        const request = subjectRequestFor(run, subject, question, chunks, runIndex);
        const key = {
          question_id: question.id,
          subject_id: subject.id,
          run_index: runIndex,
          prompt_hash: promptHash(request),
        };
        if (store?.get(key)) {
          stored++;
          continue;
        }
        input += tokensOf(request);
        outputMax += subject.config.max_tokens;
        for (const judge of panel) {
          const judgeRequest = renderJudgeRequest(judgeInputFor(question, chunks, ''), judge, promptText);
          // the answer is not known yet: count it at the subject's max_tokens
          input += tokensOf(judgeRequest) + subject.config.max_tokens;
          outputMax += JUDGE_MAX_TOKENS;
          judgeCalls++;
        }
      }
    }
  }
  return {
    runId: run.info.runId,
    subjects: run.subjects.map((s) => s.id),
    questions: run.questions.length,
    runs: run.runs,
    cells,
    stored,
    toCompute: cells - stored,
    calls: { subject: cells - stored, judge: judgeCalls },
    tokens: { input, outputMax },
  };
}
