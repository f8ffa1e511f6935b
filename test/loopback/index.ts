/**
 * Offline loopback servers for the Anthropic, OpenAI and Gemini wire formats, for driving the official
 * SDKs without a network: see anthropic.ts, openai.ts, gemini.ts and common.ts. They refuse what the real
 * APIs refuse, with the APIs' own errors (the shared validation is in strict.ts).
 */
import { startAnthropicServer } from './anthropic.ts';
import type { LoopbackOptions, LoopbackServer, Provider } from './common.ts';
import { startGeminiServer } from './gemini.ts';
import { type OpenAILoopbackServer, startOpenAIServer } from './openai.ts';

export { startAnthropicServer } from './anthropic.ts';
export {
  ALL_FAULT_KINDS,
  type BilledCall,
  countTokens,
  defaultReply,
  type FaultKind,
  type LoopbackCall,
  type LoopbackOptions,
  type LoopbackReply,
  type LoopbackServer,
  type Provider,
  type RequestRecord,
  verdictFor,
} from './common.ts';
export { startGeminiServer } from './gemini.ts';
export { type OpenAILoopbackServer, startOpenAIServer } from './openai.ts';

export interface LoopbackServers {
  anthropic: LoopbackServer;
  openai: OpenAILoopbackServer;
  gemini: LoopbackServer;
  close(): Promise<void>;
}

/**
 * Starts all three servers on free ports: each gets `opts`, with `overrides[provider]` on top (for
 * example a different `apiKey` per provider).
 */
export async function startLoopbackServers(
  opts: LoopbackOptions = {},
  overrides: Partial<Record<Provider, LoopbackOptions>> = {},
): Promise<LoopbackServers> {
  const [anthropic, openai, gemini] = await Promise.all([
    startAnthropicServer({ ...opts, ...overrides.anthropic }),
    startOpenAIServer({ ...opts, ...overrides.openai }),
    startGeminiServer({ ...opts, ...overrides.gemini }),
  ]);
  return {
    anthropic,
    openai,
    gemini,
    close: async () => {
      await Promise.all([anthropic.close(), openai.close(), gemini.close()]);
    },
  };
}
