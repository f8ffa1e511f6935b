/**
 * Question generation against the loopback servers: a small annual report's chunks with known facts,
 * generation tasks over them, the replies a model would write (candidates in the generator's wire schema,
 * built from the facts of the chunks the request shows), and a live model entry pointed at a server.
 */
import type { Chunk } from '../../src/corpus/schema.ts';
import { Judge } from '../../src/judging/config.ts';
import type { ModelSpec } from '../../src/models/spec.ts';
import { ProviderSettings } from '../../src/providers/config.ts';
import type { GenerationTask } from '../../src/questions/generate/generator.ts';
import type { QuestionCategory } from '../../src/questions/schema.ts';
import type { LoopbackCall, LoopbackReply } from '../loopback/index.ts';

export const DOCUMENT = 'acme-annual-report-2024.pdf';
const COMPANY = 'Acme Industries Limited';

interface Fact {
  label: string;
  now: number;
  before: number;
  heading: string;
}

const METRICS = [
  'consolidated revenue from operations',
  'standalone revenue from operations',
  'consolidated profit after tax',
  'standalone EBITDA',
  'capital expenditure',
  'finance costs',
  'employee benefit expense',
  'research and development spend',
  'exports',
  'dividend paid',
] as const;

/** The fact of chunk `i`: a metric with this year's and last year's figure. */
function factOf(i: number): Fact {
  const now = 1000 + ((i * 7919) % 9000) + (i % 7) / 4;
  return {
    label: `${METRICS[i % METRICS.length]} (segment ${Math.floor(i / METRICS.length) + 1})`,
    now,
    before: Math.round(now * 0.91 * 100) / 100,
    heading: `Management Discussion and Analysis > Financial performance > Segment ${Math.floor(i / 3) + 1}`,
  };
}

const fmt = (x: number) => x.toLocaleString('en-IN', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** The sentence of a chunk that states its fact (what a model quotes). */
function factSentence(f: Fact): string {
  return `The ${f.label} of the Company stood at INR ${fmt(f.now)} crore in FY 2023-24, compared with INR ${fmt(f.before)} crore in FY 2022-23.`;
}

/** Chunk `i` of the report: its fact among sentences a report prints around one. */
export function reportChunk(i: number): Chunk {
  const f = factOf(i);
  const text = [
    `During the year under review, the operating environment remained challenging, with input cost inflation easing in the second half and demand recovering across most of the markets the Company serves.`,
    factSentence(f),
    `The movement reflects higher volumes, a richer product mix and the full-year contribution of the capacity commissioned at the Pune and Hosur plants, partly offset by higher freight and power costs.`,
    `The Board continues to review the capital allocation framework each quarter, balancing growth investments with returns to shareholders and the Company's net debt to EBITDA target of below 1.5 times.`,
  ].join(' ');
  const hex = (0x1a2b3c00 + i).toString(16).padStart(8, '0');
  return {
    id: `acme-FY24-${hex}`,
    company: 'acme',
    fy: 'FY24',
    source: DOCUMENT,
    heading: f.heading.split(' > ').at(-1) ?? null,
    headings: f.heading.split(' > '),
    pages: [10 + i, 10 + i],
    tokens: 120,
    text,
  };
}

const CATEGORIES: readonly QuestionCategory[] = [
  'grounded-direct',
  'grounded-multihop',
  'adversarial',
  'out-of-domain',
];

/** `n` tasks over the report, the four categories in turn; a multihop task has two chunks. */
export function generationTasks(n: number, count = 2): GenerationTask[] {
  return Array.from({ length: n }, (_, i) => {
    const category = CATEGORIES[i % CATEGORIES.length] as QuestionCategory;
    const chunks =
      category === 'grounded-multihop' ? [reportChunk(i), reportChunk(i + 100)] : [reportChunk(i)];
    return {
      id: `${category}:${DOCUMENT}:${chunks.map((c) => c.id).join('+')}`,
      category,
      document: DOCUMENT,
      chunks,
      count,
      language: 'en',
    };
  });
}

const NO_TRAP = { false_premise: '', distractor_kind: 'none', absent_terms: [] as string[] };
const figure = (label: string, value: number) => ({
  label,
  value,
  unit: 'INR crore',
  derivation: { op: 'none', operands: [] as unknown[] },
});

/** Candidate `k` of a category over chunks: what a careful model writes to the wire schema. */
function candidateFor(
  category: QuestionCategory,
  chunks: readonly Chunk[],
  k: number,
): Record<string, unknown> {
  const index = (c: Chunk) => Number.parseInt(c.id.slice(-8), 16) - 0x1a2b3c00;
  const [a, b] = chunks.map((c) => factOf(index(c))) as [Fact, Fact | undefined];
  const quote = (f: Fact) => ({ document: DOCUMENT, text: factSentence(f) });
  const year = k % 2 === 0 ? 'FY 2023-24' : 'the year ended 31 March 2024';
  if (category === 'grounded-direct')
    return {
      category,
      text: `What was the ${a.label} of ${COMPANY} in ${year}, as stated in its management discussion?`,
      gold_answer: `The ${a.label} of ${COMPANY} was INR ${fmt(a.now)} crore in FY 2023-24.`,
      gold_quotes: [quote(a)],
      expected_behavior: 'answer',
      numeric_gold: [figure(`${a.label}, FY24`, a.now)],
      ...NO_TRAP,
    };
  if (category === 'grounded-multihop' && b) {
    const sum = Math.round((a.now + b.now) * 100) / 100;
    return {
      category,
      text: `Taken together, what were the ${a.label} and the ${b.label} of ${COMPANY} in ${year}?`,
      gold_answer: `Together they were INR ${fmt(sum)} crore in FY 2023-24: INR ${fmt(a.now)} crore and INR ${fmt(b.now)} crore.`,
      gold_quotes: [quote(a), quote(b)],
      expected_behavior: 'answer',
      numeric_gold: [
        {
          label: `${a.label} plus ${b.label}, FY24`,
          value: sum,
          unit: 'INR crore',
          derivation: {
            op: 'sum',
            operands: [
              { label: `${a.label}, FY24`, value: a.now, unit: 'INR crore' },
              { label: `${b.label}, FY24`, value: b.now, unit: 'INR crore' },
            ],
          },
        },
      ],
      ...NO_TRAP,
    };
  }
  if (category === 'adversarial')
    return {
      category,
      text: `Why did the ${a.label} of ${COMPANY} fall in ${year} compared with the previous year?`,
      gold_answer: `It did not fall: it rose to INR ${fmt(a.now)} crore in FY 2023-24 from INR ${fmt(a.before)} crore in FY 2022-23.`,
      gold_quotes: [quote(a)],
      expected_behavior: 'answer-with-caveat',
      numeric_gold: [figure(`${a.label}, FY24`, a.now)],
      false_premise: `the ${a.label} fell in FY 2023-24`,
      distractor_kind: 'other-fiscal-year',
      absent_terms: [],
    };
  return {
    category,
    text: `What was the ${a.label} of ${COMPANY}'s subsidiary in Brazil in ${year}?`,
    gold_answer: `The documents do not state the ${a.label} of a subsidiary in Brazil.`,
    gold_quotes: [],
    expected_behavior: 'refuse',
    numeric_gold: [],
    false_premise: '',
    distractor_kind: 'none',
    absent_terms: [`${a.label} of a Brazilian subsidiary`],
  };
}

/** The chunks a request shows, by their ids in its <chunk> tags. */
function chunksShown(text: string): Chunk[] {
  return [...text.matchAll(/<chunk id="([^"]+)"/g)].map((m) => {
    const id = m[1] as string;
    return reportChunk(Number.parseInt(id.slice(-8), 16) - 0x1a2b3c00);
  });
}

/** The reply a careful model writes to a generation request: the count asked of its category. */
export function scriptedGeneration(call: LoopbackCall): LoopbackReply {
  const text = call.messages.map((m) => m.text).join('\n');
  const asked = /Write (\d+) candidate question\(s\) of the category ([a-z-]+)\./.exec(text);
  if (!asked) return { text: 'I can only write questions.' };
  const count = Number(asked[1]);
  const category = asked[2] as QuestionCategory;
  const chunks = chunksShown(text);
  const candidates = Array.from({ length: count }, (_, k) => candidateFor(category, chunks, k));
  return { text: JSON.stringify({ candidates }) };
}

/** A live model entry of a run config. */
export function liveSpec(provider: 'openai' | 'anthropic' | 'gemini', model: string): ModelSpec {
  return Judge.parse({ id: `gen-${provider}`, provider, model, family: provider });
}

/** A provider's settings pointed at a loopback server: no request spacing, fast retries. */
export function loopbackSettings(url: string, over: Partial<ProviderSettings> = {}): ProviderSettings {
  return ProviderSettings.parse({
    base_url: url,
    rpm: null,
    concurrency: 4,
    min_backoff_ms: 5,
    max_backoff_ms: 20,
    timeout_ms: 5000,
    ...over,
  });
}
