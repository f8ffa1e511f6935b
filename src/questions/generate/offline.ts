/**
 * The offline generator: no key, no model, deterministic. It writes a SEED SET from the facts of the
 * chunks it is shown (offline-facts.ts), by template: a direct question per figure or definition, a
 * multihop difference of two figures of one unit from two chunks (with the arithmetic recorded), an
 * adversarial question with a false premise (a figure half as large again as the one printed), and an
 * out-of-domain question about a topic from a fixed list. Its questions are extractive and plain; they
 * are labelled a seed set (`provenance.seed_set`) and go through the same verification as a model's.
 * It writes English only: a task over a document in another language is a problem, not a question.
 */
import seedrandom from 'seedrandom';
import { sha256 } from '../../util/fs.ts';
import { shuffle } from '../../util/shuffle.ts';
import type { GeneratorRef } from '../schema.ts';
import { type Candidate, CandidateBody, type CandidateBodyInput, candidateId } from './candidate.ts';
import type { GenerateOptions, GenerationTask, QuestionGenerator, TaskOutcome } from './generator.ts';
import { chunkFacts, documentName, type Fact, type FigureFact, goldOf } from './offline-facts.ts';

/** Changes when a template changes: part of the generator's identity (prompt_hash). */
export const OFFLINE_TEMPLATES_VERSION = 'offline-extractive-v1';

/** Topics no annual report or product manual is about, for out-of-domain questions (absence is verified). */
export const OUT_OF_DOMAIN_TOPICS = [
  'a lunar mining licence',
  'the 2038 Winter Olympics bid',
  'its racehorse breeding programme',
  'a submarine cable to Antarctica',
  'its position on time-travel insurance',
  'a stake in a Martian colony',
  'its kelp farming subsidiary in Iceland',
  'the number of llamas it owns',
  'its cryptocurrency mining rigs on the Moon',
  'a partnership with the International Space Station canteen',
  'its volcano observatory',
  'the dress code for its polar research base',
] as const;

function decimalsOf(raw: string): number {
  return /\d\.(\d+)/.exec(raw)?.[1]?.length ?? 0;
}

/** The figure as written, with its number replaced by `value` in the same style (decimals, grouping). */
function rewritten(raw: string, value: number): string {
  const m = /\d[\d,]*(?:\.\d+)?/.exec(raw);
  if (!m) return raw;
  const token = m[0];
  const decimals = decimalsOf(token);
  const indian = /\d,\d\d,\d{3}/.test(token);
  const grouped = token.includes(',');
  const text = value.toLocaleString(indian ? 'en-IN' : 'en-US', {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
    useGrouping: grouped,
  });
  return raw.replace(token, text);
}

function direct(fact: Fact, doc: string): CandidateBodyInput {
  const quote = [{ document: fact.chunk.source, text: fact.quote }];
  if (fact.kind === 'definition')
    return {
      category: 'grounded-direct',
      text: `How does ${doc} define ${fact.term}?`,
      gold_answer: fact.quote,
      gold_quotes: quote,
      expected_behavior: 'answer',
    };
  const gold = goldOf(fact.figure);
  return {
    category: 'grounded-direct',
    text: `What figure does ${doc} give for "${fact.label}"?`,
    gold_answer: `${fact.figure.raw.trim()}, for "${fact.label}" in ${doc}`,
    gold_quotes: quote,
    expected_behavior: 'answer',
    numeric_gold: gold ? [{ label: fact.label, ...gold }] : [],
  };
}

function multihop(a: FigureFact, b: FigureFact): CandidateBodyInput | null {
  const doc =
    a.chunk.source === b.chunk.source
      ? documentName(a.chunk.source)
      : `${documentName(a.chunk.source)} and ${documentName(b.chunk.source)}`;
  const ga = goldOf(a.figure);
  const gb = goldOf(b.figure);
  if (!ga || !gb || ga.unit !== gb.unit || ga.value === gb.value) return null;
  const decimals = Math.max(decimalsOf(a.figure.raw), decimalsOf(b.figure.raw));
  const value = Number((ga.value - gb.value).toFixed(decimals));
  const shown = value.toLocaleString('en-US', {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
  });
  return {
    category: 'grounded-multihop',
    text: `In ${doc}, what is "${a.label}" minus "${b.label}"?`,
    gold_answer: `${shown} (${a.figure.raw.trim()} minus ${b.figure.raw.trim()})`,
    gold_quotes: [
      { document: a.chunk.source, text: a.quote },
      { document: b.chunk.source, text: b.quote },
    ],
    expected_behavior: 'answer',
    numeric_gold: [
      {
        label: `${a.label} minus ${b.label}`,
        value,
        unit: ga.unit,
        derivation: {
          op: 'difference',
          operands: [
            { label: a.label, ...ga },
            { label: b.label, ...gb },
          ],
        },
      },
    ],
  };
}

function adversarial(fact: FigureFact, doc: string): CandidateBodyInput {
  const wrong = rewritten(fact.figure.raw.trim(), (fact.figure.value / fact.figure.scale) * 1.5);
  return {
    category: 'adversarial',
    text: `Why does ${doc} give ${wrong} for "${fact.label}"?`,
    gold_answer: `It does not: ${doc} gives ${fact.figure.raw.trim()} for "${fact.label}", not ${wrong}.`,
    gold_quotes: [{ document: fact.chunk.source, text: fact.quote }],
    expected_behavior: 'answer-with-caveat',
    false_premise: `${fact.label} ${wrong}`,
    distractor_kind: 'unit-or-period-near-duplicate',
  };
}

function outOfDomain(topic: string, doc: string): CandidateBodyInput {
  return {
    category: 'out-of-domain',
    text: `What does ${doc} say about ${topic}?`,
    gold_answer: `Nothing: no passage of the documents mentions ${topic}; a faithful answer declines.`,
    gold_quotes: [],
    expected_behavior: 'refuse',
    absent_terms: [topic.replace(/^(?:an?|the|its)\s+/i, '')],
  };
}

const isFigure = (f: Fact): f is FigureFact => f.kind !== 'definition';

/** The candidate bodies of one task, at most `task.count`, in a seeded order. */
function bodiesOf(task: GenerationTask, random: () => number): CandidateBodyInput[] {
  const doc = documentName(task.document);
  const facts = task.chunks.map((c) => shuffle(chunkFacts(c), random));
  const first = facts[0] ?? [];
  switch (task.category) {
    case 'grounded-direct':
      return first.map((f) => direct(f, doc));
    case 'adversarial':
      return first
        .filter(isFigure)
        .filter((f) => f.figure.value !== 0)
        .map((f) => adversarial(f, doc));
    case 'grounded-multihop': {
      const a = first.filter(isFigure);
      const b = (facts[1] ?? []).filter(isFigure);
      const out: CandidateBodyInput[] = [];
      for (const x of a)
        for (const y of b) {
          const body = multihop(x, y);
          if (body) out.push(body);
          if (out.length >= task.count) return out;
        }
      return out;
    }
    case 'out-of-domain':
      return shuffle([...OUT_OF_DOMAIN_TOPICS], random).map((t) => outOfDomain(t, doc));
  }
}

export class OfflineGenerator implements QuestionGenerator {
  readonly ref: GeneratorRef;

  constructor(seed: string) {
    this.ref = {
      id: 'offline/extractive',
      family: 'offline',
      kind: 'offline',
      prompt_hash: sha256(OFFLINE_TEMPLATES_VERSION).slice(0, 16),
      seed,
    };
  }

  async generate(tasks: readonly GenerationTask[], opts: GenerateOptions = {}): Promise<TaskOutcome[]> {
    const out: TaskOutcome[] = [];
    for (const task of tasks) {
      opts.signal?.throwIfAborted();
      const outcome = this.one(task);
      opts.onTask?.(outcome);
      out.push(outcome);
    }
    return out;
  }

  private one(task: GenerationTask): TaskOutcome {
    const none = { task, candidates: [], costUsd: 0, reused: false };
    if (task.language !== null && task.language !== 'en')
      return {
        ...none,
        problem: {
          task: task.id,
          message: `the offline generator writes English questions; ${task.document} is in ${task.language} (use a model generator)`,
        },
      };
    const random = seedrandom(`${this.ref.seed}:${task.id}`);
    const sourceIds = task.chunks.map((c) => c.id);
    const candidates: Candidate[] = bodiesOf(task, random)
      .slice(0, task.count)
      .map((input) => {
        const body = CandidateBody.parse(input);
        return {
          id: candidateId(body, sourceIds),
          body,
          generator: this.ref,
          document: task.document,
          source_chunk_ids: sourceIds,
        };
      });
    return { ...none, candidates, problem: null };
  }
}
