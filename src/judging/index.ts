/**
 * Judging: the judge prompt (the canonical v2, and v1 kept byte for byte so that results pinned to it
 * reproduce; each version's rubric named by its sha256), the cross-family panel (the only way judges
 * are chosen), asking a judge and reading its verdict (one retry, then unscored). The agreement of
 * judges with people is src/validation/.
 */
export { crossFamilyPanel, PANEL_SIZE, PanelError, type PanelJudge } from './panel.ts';
export { extractJsonText, judgeCase, MAX_JUDGE_ATTEMPTS, parseVerdict, type VerdictParse } from './parse.ts';
export {
  JUDGE_PROMPT_VERSION,
  type JudgeModel,
  judgePromptSha256,
  judgePromptText,
  judgeVerdictJsonSchema,
  renderJudgeCase,
  renderJudgeRequest,
} from './prompt.ts';
export {
  DIMENSIONS,
  type Dimension,
  DimensionVerdict,
  JudgeOutcome,
  JudgeVerdict,
  Score,
} from './verdict.ts';
