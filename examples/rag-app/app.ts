/**
 * rag-app's module entry, for rge's `module` way in: `export default answer(question)`. It runs in the
 * caller's process, so it takes its corpus, prompt and cache from the environment (`RAG_APP_CORPUS`,
 * `RAG_APP_PROMPT`, `RAG_APP_CACHE`; config.ts) and opens the app on the first question.
 *
 * It imports rge's contract TYPES only (erased when it runs): none of rge's code.
 */
import type { SystemAnswer, SystemQuestion } from '../../src/system/contract.ts';
import { optionsFromEnv } from './config.ts';
import { openRagApp, questionFrom, type RagApp } from './rag.ts';

let opened: Promise<RagApp> | undefined;

/** The app, opened once; a failed opening is tried again on the next question. */
function app(): Promise<RagApp> {
  if (!opened) {
    opened = openRagApp(optionsFromEnv(process.env));
    opened.catch(() => {
      opened = undefined;
    });
  }
  return opened;
}

export default async function answer(question: SystemQuestion): Promise<SystemAnswer> {
  return (await app()).answer(questionFrom(question));
}

/** The same function by name, for loaders that look for `answer` rather than the default export. */
export { answer };
