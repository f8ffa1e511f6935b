/** The subject stage: the versioned subject prompt and the request every subject provider receives. */
export {
  BUILTIN_SUBJECT_PROMPT,
  contextHeader,
  loadSubjectPrompt,
  parseSubjectPrompt,
  promptHash,
  type RenderSubjectOptions,
  renderSubjectRequest,
  renderSubjectUserMessage,
  SUBJECT_PROMPT,
  SUBJECT_PROMPT_VERSION,
  SUBJECT_SYSTEM_PROMPT_V1,
  SUBJECT_USER_TEMPLATE_V1,
  type SubjectPrompt,
  subjectPromptHash,
} from './prompt.ts';
