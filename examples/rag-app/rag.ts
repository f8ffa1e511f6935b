/**
 * rag-app: one `answer(question)` over its own corpus, retriever, prompt and offline model, shared by
 * its three entry points (app.ts, server.ts, cli.ts). It speaks rge's system-under-test contract
 * (src/system/contract.ts), whose TYPES only it imports: nothing of rge's code runs in it.
 *
 * A question is `{ id, text, run_index, seed }`; the answer is the model's text, the passages it was
 * given (`contexts`, each with the id the text cites), the prompt's size and the answer's in tokens
 * (estimated at 4 characters a token), the model's name and the time it took.
 */
import type { SystemAnswer, SystemContext, SystemQuestion } from '../../src/system/contract.ts';
import { offlineAnswer, readQuestion } from './answerer.ts';
import { loadPassages } from './corpus.ts';
import type { Passage } from './ingest.ts';
import { type AnswerPrompt, readPrompt, renderPrompt } from './prompt.ts';
import { Bm25Index, type Retrieved } from './retrieve.ts';

export const MODEL = 'rag-app/offline';

export interface RagAppOptions {
  /** the folder of the corpus's PDFs */
  corpus: string;
  /** the prompt file */
  prompt: string;
  /** where the extracted passages are cached */
  cache: string;
}

export interface RagApp {
  answer(question: SystemQuestion): Promise<SystemAnswer>;
  readonly prompt: AnswerPrompt;
  readonly passages: number;
  /** whether the passages came from the cache */
  readonly cached: boolean;
}

/** A question that does not have the contract's shape, with what is wrong. */
export class BadQuestion extends Error {
  override name = 'BadQuestion';
}

const isCount = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** The question in a request, checked: `id` and `text` strings, `run_index` and `seed` counts (0 if absent). */
export function questionFrom(body: unknown): SystemQuestion {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new BadQuestion('a question is a JSON object: {"id", "text", "run_index", "seed"}');
  const q = body as Record<string, unknown>;
  const wrong = [
    typeof q.id === 'string' && q.id !== '' ? '' : 'id: a non-empty string',
    typeof q.text === 'string' && q.text.trim() !== '' ? '' : 'text: a non-empty string',
    q.run_index === undefined || isCount(q.run_index) ? '' : 'run_index: an integer >= 0',
    q.seed === undefined || isCount(q.seed) ? '' : 'seed: an integer >= 0',
  ].filter(Boolean);
  if (wrong.length > 0) throw new BadQuestion(`bad question: ${wrong.join('; ')}`);
  return {
    id: q.id as string,
    text: q.text as string,
    run_index: (q.run_index as number | undefined) ?? 0,
    seed: (q.seed as number | undefined) ?? 0,
  };
}

/** A passage as the model is shown it: its id, document and page, heading, then its paragraphs. */
function contextText(p: Passage): string {
  const where = `${p.title}, page ${p.page}${p.heading ? ` — ${p.heading}` : ''}`;
  return `${where}\n${p.paragraphs.join('\n')}`;
}

function contextOf(r: Retrieved): SystemContext {
  const score = Math.round(r.score * 1e4) / 1e4;
  return {
    id: r.passage.id,
    text: contextText(r.passage),
    source: r.passage.source,
    page: r.passage.page,
    score,
  };
}

const tokens = (text: string) => Math.ceil(text.length / 4);

/** Opens the app: reads (or takes from the cache) the corpus's passages, indexes them, reads the prompt. */
export async function openRagApp(options: RagAppOptions): Promise<RagApp> {
  const prompt = await readPrompt(options.prompt);
  const corpus = await loadPassages(options.corpus, options.cache);
  const index = new Bm25Index(corpus.passages);
  const idf = (t: string) => index.idf(t);
  return {
    prompt,
    passages: corpus.passages.length,
    cached: corpus.cached,
    async answer(question: SystemQuestion): Promise<SystemAnswer> {
      const t0 = performance.now();
      const retrieved = index.search(readQuestion(question.text).query, prompt.settings.top_k);
      const contexts = retrieved.map(contextOf);
      const rendered = renderPrompt(
        prompt,
        contexts.map((c) => `[${c.id}] ${c.text}`).join('\n\n'),
        question.text,
      );
      const reply = offlineAnswer(question, retrieved, prompt, idf);
      return {
        answer: reply.text,
        contexts,
        usage: { input_tokens: tokens(rendered), output_tokens: tokens(reply.text) },
        cost_usd: 0,
        latency_ms: Math.round((performance.now() - t0) * 1000) / 1000,
        model: MODEL,
        metadata: { prompt: prompt.version, declined: reply.declined, support: round(reply.support) },
      };
    },
  };
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;
