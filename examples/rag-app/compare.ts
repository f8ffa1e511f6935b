/**
 * The planted regression, measured: rag-app answers the fixture questions three times, with its prompt
 * (baseline), with the prompt less its one "Answer only from the context" line (planted), and with the
 * prompt's seed alone changed (reseeded), and prints, by category, how often it declined (as rge counts
 * a refusal: `isRefusal`), how often the answer holds the gold figures, and how many answers differ from
 * the baseline's.
 *
 *   node --import tsx examples/rag-app/compare.ts [--corpus DIR] [--cache DIR] [--prompt FILE]
 *     [--questions fixtures/questions.jsonl] [--seed N]
 *
 * This script measures the app; it is not part of it (only it imports rge's code, for rge's refusal rule).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isRefusal } from '../../src/analysis/refusal.ts';
import { optionsFromEnv, runMain } from './config.ts';
import { openRagApp, type RagApp, type RagAppOptions } from './rag.ts';

/** The fixture questions' fields this script reads. */
export interface FixtureQuestion {
  id: string;
  category: string;
  text: string;
  must_include: string[];
}

/** The planted regression: the prompt without its "Answer only from the context" line (one line). */
export function plantRegression(prompt: string): string {
  const rule = /^- Answer only from the context\b.*\n/m;
  if (!rule.test(prompt)) throw new Error('the prompt has no "- Answer only from the context" line');
  return prompt.replace(rule, '');
}

/** The prompt with another seed: its `seed:` setting (one line) changed. */
export function reseed(prompt: string, seed: number): string {
  const setting = /^seed:\s*\d+/m;
  if (!setting.test(prompt)) throw new Error('the prompt has no seed: setting');
  return prompt.replace(setting, `seed: ${seed}`);
}

/** A question's seed for a run, in the manner of rge's: 31 bits of a hash of the question and the run. */
export function questionSeed(id: string, runIndex: number): number {
  return (
    Number.parseInt(createHash('sha256').update(`${id}:${runIndex}`).digest('hex').slice(0, 8), 16) >>> 1
  );
}

const figures = (text: string) =>
  [...text.matchAll(/-?\d[\d,]*(?:\.\d+)?/g)].map((m) => m[0].replace(/,/g, '').replace(/\.$/, ''));

/** The answer holds each gold item: its figures when it has any (Rs 3.50 for "3.50 per share"), else its words. */
export function goldFound(question: FixtureQuestion, answer: string): boolean {
  if (question.must_include.length === 0) return false;
  const stated = new Set(figures(answer));
  const lower = answer.toLowerCase();
  return question.must_include.every((gold) => {
    const wanted = figures(gold);
    return wanted.length > 0 ? wanted.every((f) => stated.has(f)) : lower.includes(gold.toLowerCase());
  });
}

export interface Measured {
  id: string;
  category: string;
  answer: string;
  refused: boolean;
  gold: boolean;
}

export async function measure(app: RagApp, questions: readonly FixtureQuestion[]): Promise<Measured[]> {
  const out: Measured[] = [];
  for (const q of questions) {
    const { answer } = await app.answer({
      id: q.id,
      text: q.text,
      run_index: 0,
      seed: questionSeed(q.id, 0),
    });
    out.push({
      id: q.id,
      category: q.category,
      answer,
      refused: isRefusal(answer),
      gold: goldFound(q, answer),
    });
  }
  return out;
}

export interface Tally {
  n: number;
  refused: number;
  gold: number;
}

/** Counts by category (in the order they come), and over all as `all` (last). */
export function tally(measured: readonly Measured[]): Record<string, Tally> {
  const keys = [...new Set(measured.map((m) => m.category)), 'all'];
  const out: Record<string, Tally> = Object.fromEntries(keys.map((k) => [k, { n: 0, refused: 0, gold: 0 }]));
  for (const m of measured)
    for (const t of [out[m.category], out.all] as Tally[]) {
      t.n++;
      if (m.refused) t.refused++;
      if (m.gold) t.gold++;
    }
  return out;
}

/** How many answers of `b` differ from `a`'s, by category and over all. */
export function changed(a: readonly Measured[], b: readonly Measured[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [i, m] of a.entries())
    for (const key of [m.category, 'all']) out[key] = (out[key] ?? 0) + (b[i]?.answer === m.answer ? 0 : 1);
  return out;
}

export interface Comparison {
  baseline: Measured[];
  planted: Measured[];
  reseeded: Measured[];
}

/** The three prompts' answers to the questions (the variants are written to a temporary folder). */
export async function comparePrompts(
  options: RagAppOptions,
  questions: readonly FixtureQuestion[],
  seed: number,
): Promise<Comparison> {
  const prompt = await readFile(options.prompt, 'utf8');
  const work = await mkdtemp(join(tmpdir(), 'rag-app-prompts-'));
  try {
    const run = async (name: string, text: string) => {
      const path = join(work, `${name}.md`);
      await writeFile(path, text);
      return measure(await openRagApp({ ...options, prompt: path }), questions);
    };
    return {
      baseline: await run('baseline', prompt),
      planted: await run('planted', plantRegression(prompt)),
      reseeded: await run('reseeded', reseed(prompt, seed)),
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** The comparison as a markdown table: refusals, gold figures found and answers changed, by category. */
export function comparisonTable(c: Comparison): string {
  const [base, plant, seed] = [tally(c.baseline), tally(c.planted), tally(c.reseeded)];
  const [byPlant, bySeed] = [changed(c.baseline, c.planted), changed(c.baseline, c.reseeded)];
  const rows = Object.keys(base).map((k) => {
    const b = base[k] as Tally;
    const cell = (t: Tally | undefined, field: 'refused' | 'gold') => `${t?.[field] ?? 0}/${b.n}`;
    return `| ${k} | ${cell(b, 'refused')} | ${cell(plant[k], 'refused')} | ${cell(b, 'gold')} | ${cell(plant[k], 'gold')} | ${byPlant[k] ?? 0} | ${cell(seed[k], 'gold')} | ${bySeed[k] ?? 0} |`;
  });
  return [
    '| category | declined: prompt | planted | gold: prompt | planted | answers changed by the plant | gold: reseeded | answers changed by the seed |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      corpus: { type: 'string' },
      cache: { type: 'string' },
      prompt: { type: 'string' },
      questions: { type: 'string', default: 'fixtures/questions.jsonl' },
      seed: { type: 'string', default: '1' },
    },
  });
  const fromEnv = optionsFromEnv(process.env);
  const options = {
    corpus: values.corpus ? resolve(values.corpus) : fromEnv.corpus,
    cache: values.cache ? resolve(values.cache) : fromEnv.cache,
    prompt: values.prompt ? resolve(values.prompt) : fromEnv.prompt,
  };
  const lines = (await readFile(values.questions, 'utf8')).split('\n').filter((l) => l.trim());
  const questions = lines.map((l) => JSON.parse(l) as FixtureQuestion);
  const comparison = await comparePrompts(options, questions, Number(values.seed));
  process.stdout.write(`${comparisonTable(comparison)}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await runMain(main);
