/**
 * How the offline baselines do on the fixture questions: for each baseline, the share of grounded-direct
 * questions whose answer contains the gold value (every must_include string, else the gold answer) and
 * the share of out-of-domain questions it abstains on; plus, for adversarial questions, the share
 * answered with the gold value and the share that quote the planted distractor sentence.
 *
 * Run directly against any index: `npx tsx test/subject/baseline-figures.ts [index-dir]`
 * (default fixtures/generated/index, the index `rge fixtures build` writes).
 */
import { fileURLToPath } from 'node:url';
import { EagerProvider } from '../../src/providers/offline/eager.ts';
import { ABSTENTION_PREFIX, ExtractiveProvider } from '../../src/providers/offline/extractive.ts';
import type { ContextChunk, Provider } from '../../src/providers/types.ts';
import { loadQuestions } from '../../src/questions/load.ts';
import type { Question } from '../../src/questions/schema.ts';
import { openIndex } from '../../src/retrieval/index.ts';
import { renderSubjectRequest } from '../../src/subject/prompt.ts';

export interface BaselineFigures {
  provider: string;
  groundedDirect: { n: number; correct: number; share: number };
  outOfDomain: { n: number; abstained: number; share: number };
  adversarial: { n: number; correct: number; distracted: number };
}

export interface RetrievedQuestion {
  question: Question;
  chunks: ContextChunk[];
}

export async function retrieveAll(indexDir: string, questionsFile: string): Promise<RetrievedQuestion[]> {
  const index = await openIndex(indexDir);
  const questions = (await loadQuestions(questionsFile)).map((r) => r.value);
  const out: RetrievedQuestion[] = [];
  for (const question of questions) {
    const hits = await index.retrieve(question.text, { k: 5 });
    out.push({
      question,
      chunks: hits.map((c) => ({
        id: c.id,
        company: c.company,
        fy: c.fy,
        heading: c.heading,
        pages: c.pages,
        text: c.text,
      })),
    });
  }
  return out;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

export function containsGold(answer: string, q: Question): boolean {
  const wanted = q.must_include.length > 0 ? q.must_include : [q.gold_answer];
  return wanted.every((w) => squash(answer).includes(squash(w)));
}

export async function measureBaseline(
  provider: Provider,
  retrieved: readonly RetrievedQuestion[],
  temperature = 0,
): Promise<BaselineFigures & { answers: Map<string, string> }> {
  const answers = new Map<string, string>();
  const figures: BaselineFigures = {
    provider: provider.id,
    groundedDirect: { n: 0, correct: 0, share: 0 },
    outOfDomain: { n: 0, abstained: 0, share: 0 },
    adversarial: { n: 0, correct: 0, distracted: 0 },
  };
  for (const { question: q, chunks } of retrieved) {
    const request = renderSubjectRequest(
      { kind: 'subject', questionId: q.id, question: q.text, chunks },
      {
        model: provider.id,
        parameters: { temperature },
        maxTokens: 512,
        cell: { questionId: q.id, runIndex: 0, seed: 'baseline-figures' },
      },
    );
    const { text } = await provider.complete(request);
    answers.set(q.id, text);
    if (q.category === 'grounded-direct') {
      figures.groundedDirect.n++;
      if (containsGold(text, q)) figures.groundedDirect.correct++;
    } else if (q.category === 'out-of-domain') {
      figures.outOfDomain.n++;
      if (text.startsWith(ABSTENTION_PREFIX)) figures.outOfDomain.abstained++;
    } else if (q.category === 'adversarial') {
      figures.adversarial.n++;
      if (containsGold(text, q)) figures.adversarial.correct++;
      const quote = q.distractor?.quote;
      if (quote && squash(text).includes(squash(quote))) figures.adversarial.distracted++;
    }
  }
  figures.groundedDirect.share = figures.groundedDirect.correct / figures.groundedDirect.n;
  figures.outOfDomain.share = figures.outOfDomain.abstained / figures.outOfDomain.n;
  return { ...figures, answers };
}

export function formatFigures(f: BaselineFigures): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  return (
    `${f.provider}: grounded-direct gold value ${f.groundedDirect.correct}/${f.groundedDirect.n} ` +
    `(${pct(f.groundedDirect.share)}); out-of-domain abstained ${f.outOfDomain.abstained}/${f.outOfDomain.n} ` +
    `(${pct(f.outOfDomain.share)}); adversarial gold ${f.adversarial.correct}/${f.adversarial.n}, ` +
    `distractor quoted ${f.adversarial.distracted}/${f.adversarial.n}`
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const indexDir = process.argv[2] ?? `${root}fixtures/generated/index`;
  const retrieved = await retrieveAll(indexDir, `${root}fixtures/questions.jsonl`);
  const verbose = process.env.VERBOSE === '1';
  for (const provider of [new ExtractiveProvider(), new EagerProvider()]) {
    const f = await measureBaseline(provider, retrieved);
    console.log(formatFigures(f));
    if (verbose)
      for (const { question: q } of retrieved) {
        const a = f.answers.get(q.id) ?? '';
        const ok = q.category === 'out-of-domain' ? a.startsWith(ABSTENTION_PREFIX) : !!containsGold(a, q);
        if (!ok)
          console.log(`  MISS ${q.id} ${q.text}\n    gold: ${q.must_include.join(' | ')}\n    got: ${a}`);
      }
  }
}
