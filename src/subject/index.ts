/** The subject stage: the versioned subject prompt and the request every subject provider receives. */
export {
  contextHeader,
  promptHash,
  type RenderSubjectOptions,
  renderSubjectRequest,
  renderSubjectUserMessage,
  SUBJECT_PROMPT,
  SUBJECT_PROMPT_VERSION,
  SUBJECT_SYSTEM_PROMPT_V1,
  subjectPromptHash,
} from './prompt.ts';
