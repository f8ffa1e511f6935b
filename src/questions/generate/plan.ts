/**
 * Which tasks a generation has: the mix of categories (`--mix`), how many questions to keep (`--count`),
 * and the tasks that ask for them, spread round-robin over the documents (so no document takes the set
 * by being long: ragas #2040) and, within a document, over its chunks in a seeded order. A task shows a
 * generator one chunk (two of one document for multihop), never a whole document. More candidates are
 * asked for than are kept (`overGenerate`), since verification rejects some.
 */
import seedrandom from 'seedrandom';
import type { Chunk } from '../../corpus/schema.ts';
import { UsageError } from '../../util/errors.ts';
import { largestRemainder, shuffle } from '../../util/shuffle.ts';
import { QUESTION_CATEGORIES, type QuestionCategory } from '../schema.ts';
import type { GenerationTask } from './generator.ts';

/** Short names `--mix` takes for the categories. */
const MIX_NAMES: Record<string, QuestionCategory> = {
  direct: 'grounded-direct',
  'grounded-direct': 'grounded-direct',
  multihop: 'grounded-multihop',
  'grounded-multihop': 'grounded-multihop',
  adversarial: 'adversarial',
  ood: 'out-of-domain',
  'out-of-domain': 'out-of-domain',
};

/** The methodology's proportions (45/45/65/45 of 200). */
export const DEFAULT_MIX = 'direct=45,multihop=45,adversarial=65,ood=45';

/** `direct=40,multihop=30,adversarial=20,ood=10`: weights per category (any scale; absent = 0). */
export function parseMix(text: string): Record<QuestionCategory, number> {
  const mix = Object.fromEntries(QUESTION_CATEGORIES.map((c) => [c, 0])) as Record<QuestionCategory, number>;
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const m = /^([a-z-]+)\s*=\s*(\d+(?:\.\d+)?)$/.exec(part);
    const category = m ? MIX_NAMES[m[1] as string] : undefined;
    if (!m || !category)
      throw new UsageError(
        `--mix: "${part}" is not NAME=WEIGHT with NAME one of direct, multihop, adversarial, ood (e.g. ${DEFAULT_MIX})`,
      );
    mix[category] = Number(m[2]);
  }
  if (Object.values(mix).every((w) => w === 0)) throw new UsageError('--mix: every weight is 0');
  return mix;
}

/** How many questions of each category `count` makes under the mix (largest remainder). */
export function categoryTargets(
  count: number,
  mix: Record<QuestionCategory, number>,
): Record<QuestionCategory, number> {
  const shares = largestRemainder(
    count,
    QUESTION_CATEGORIES.map((c) => mix[c]),
  );
  return Object.fromEntries(QUESTION_CATEGORIES.map((c, i) => [c, shares[i] ?? 0])) as Record<
    QuestionCategory,
    number
  >;
}

export interface PlanOptions {
  chunks: readonly Chunk[];
  targets: Record<QuestionCategory, number>;
  /** candidates a task asks for */
  perTask: number;
  /** candidates asked for per question kept */
  overGenerate: number;
  seed: string;
  /** each document's language (ISO 639-1) by `Chunk.source`, when known */
  languages?: ReadonlyMap<string, string | null>;
}

/** Each document's chunks, in index order. */
function byDocument(chunks: readonly Chunk[]): Map<string, Chunk[]> {
  const out = new Map<string, Chunk[]>();
  for (const c of chunks) out.set(c.source, [...(out.get(c.source) ?? []), c]);
  return out;
}

/** The chunk windows of one document for a category, in a seeded order: single chunks, or pairs for multihop. */
function windows(chunks: readonly Chunk[], category: QuestionCategory, random: () => number): Chunk[][] {
  const order = shuffle(chunks, random);
  if (category !== 'grounded-multihop') return order.map((c) => [c]);
  if (chunks.length < 2) return [];
  // each chunk with a partner half the document away: two hops, never the neighbour it overlaps
  return order.map((c) => {
    const i = chunks.indexOf(c);
    const j = (i + Math.max(2, Math.floor(chunks.length / 2))) % chunks.length;
    return [c, chunks[j === i ? (i + 1) % chunks.length : j] as Chunk];
  });
}

/**
 * Multihop windows for a document of one chunk: its chunk with the first chunk of each other document
 * (nearest first), as a question about two files needs; none when there is one document.
 */
function acrossDocuments(docs: Map<string, Chunk[]>): Map<string, Chunk[][]> {
  const names = [...docs.keys()];
  const out = new Map<string, Chunk[][]>();
  names.forEach((name, i) => {
    const own = docs.get(name) as Chunk[];
    if (own.length !== 1 || names.length < 2) return;
    const others = names.map((_, k) => names[(i + 1 + k) % names.length] as string).filter((n) => n !== name);
    out.set(
      name,
      others.map((n) => [own[0] as Chunk, (docs.get(n) as Chunk[])[0] as Chunk]),
    );
  });
  return out;
}

/** The generation's tasks, category by category, round-robin over the documents. */
export function planTasks(opts: PlanOptions): GenerationTask[] {
  const docs = byDocument(opts.chunks);
  const pairs = acrossDocuments(docs);
  const tasks: GenerationTask[] = [];
  for (const category of QUESTION_CATEGORIES) {
    const wanted = Math.ceil(opts.targets[category] * opts.overGenerate);
    if (wanted === 0) continue;
    const random = seedrandom(`${opts.seed}:${category}`);
    const queues = [...docs.entries()].map(([doc, chunks]) => ({
      doc,
      windows:
        category === 'grounded-multihop' && pairs.has(doc)
          ? [...(pairs.get(doc) as Chunk[][])]
          : windows(chunks, category, random),
    }));
    let asked = 0;
    while (asked < wanted && queues.some((q) => q.windows.length > 0))
      for (const q of queues) {
        const w = q.windows.shift();
        if (!w || asked >= wanted) continue;
        const count = Math.min(opts.perTask, wanted - asked);
        tasks.push({
          id: `${category}:${q.doc}:${w.map((c) => c.id).join('+')}`,
          category,
          document: q.doc,
          chunks: w,
          count,
          language: opts.languages?.get(q.doc) ?? null,
        });
        asked += count;
      }
  }
  return tasks;
}
