/**
 * A validation sample written by hand from the schema (no run needed), for the server and browser
 * tests. Every judge rationale and evidence quote carries `JUDGE_MARK`, so a test can tell whether any
 * of the judges' output reached the page.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JudgeOutcome } from '../../src/judging/verdict.ts';
import { type ValidationItem, ValidationSample } from '../../src/validation/index.ts';

export const JUDGE_MARK = 'JUDGE-SAID';

const CATEGORIES = ['grounded-direct', 'grounded-multihop', 'adversarial', 'out-of-domain'] as const;

export function judgeOutcome(judgeId: string, scores: [0 | 1 | 2, 0 | 1 | 2, 0 | 1 | 2]): JudgeOutcome {
  const dim = (score: 0 | 1 | 2, what: string) => ({
    evidence: [`${JUDGE_MARK} evidence for ${what} by ${judgeId}`],
    rationale: `${JUDGE_MARK} ${judgeId} gives ${what} ${score}`,
    score,
  });
  const verdict = {
    correctness: dim(scores[0], 'correctness'),
    grounding: dim(scores[1], 'grounding'),
    calibration: dim(scores[2], 'calibration'),
    unsupported_claims: [],
  };
  return {
    judgeId,
    family: `family-of-${judgeId}`,
    status: 'scored',
    verdict,
    raw: JSON.stringify(verdict),
    attempts: 1,
    error: null,
    latencyMs: 0,
    costUsd: 0,
  };
}

export function handItem(i: number, judges: [JudgeOutcome, JudgeOutcome] | null = null): ValidationItem {
  const chunkA = `acme-FY24-${String(i).padStart(4, '0')}aaaa`;
  const chunkB = `acme-FY23-${String(i).padStart(4, '0')}bbbb`;
  return {
    item_id: `extractive/q-${i}/run 0`,
    answer_key: `answer-key-${i}`,
    subject_id: 'extractive',
    model: 'extractive',
    question_id: `q-${i}`,
    run_index: 0,
    category: CATEGORIES[i % 4] ?? 'grounded-direct',
    expected_behavior: i % 4 === 3 ? 'refuse' : 'answer',
    question: `What was Acme's consolidated revenue in FY24 (question ${i})?`,
    gold_answer: `Rs ${1000 + i}.50 crore`,
    gold_quotes: [`Consolidated revenue from operations for FY24 was Rs ${1000 + i}.50 crore.`],
    chunks: [
      {
        id: chunkA,
        company: 'acme',
        fy: 'FY24',
        heading: '2. FINANCIAL HIGHLIGHTS',
        pages: [3, 4],
        text:
          `The board met four times during the year.\nConsolidated revenue from operations for FY24 was Rs ${1000 + i}.50\n` +
          'crore, compared with Rs 900.00 crore in FY23.\nSegment | Revenue\nPorts | 600.25\n',
      },
      {
        id: chunkB,
        company: 'acme',
        fy: 'FY23',
        heading: null,
        pages: [7, 7],
        text: 'Standalone revenue for FY23 was Rs 850.00 crore.',
      },
    ],
    answer: `Acme's consolidated revenue from operations for FY24 was Rs ${1000 + i}.50 crore [${chunkA}].`,
    verdicts: judges ?? [judgeOutcome('judge-a', [2, 2, 2]), judgeOutcome('judge-b', [1, 2, 2])],
  };
}

export function handSample(n: number): ValidationSample {
  return ValidationSample.parse({
    sample_id: 'hand-0123456789ab',
    created_at: '2026-01-01T00:00:00.000Z',
    config: 'configs/fixture.yaml',
    run_id: 'hand-run',
    seed: 'hand:validation',
    allocation: {
      'grounded-direct': { extractive: 2 },
      'grounded-multihop': { extractive: 2 },
      adversarial: { extractive: 2 },
      'out-of-domain': { extractive: 2 },
    },
    items: Array.from({ length: n }, (_, i) => handItem(i)),
  });
}

/** Writes the hand sample under `dir/samples/` and returns its file. */
export async function writeHandSample(dir: string, n: number): Promise<string> {
  const file = join(dir, 'samples', 'hand-0123456789ab.json');
  await mkdir(join(dir, 'samples'), { recursive: true });
  await writeFile(file, `${JSON.stringify(handSample(n), null, 2)}\n`);
  return file;
}

/**
 * A response as a real run gives it: five long chunks (about 60 lines each, PDF line wraps kept), the
 * cited one retrieved last with its supporting sentence near its end, and the gold quote in a chunk the
 * answer does not cite. On a page that shows chunks in retrieval order and in full, the supporting
 * sentence sits thousands of pixels down.
 */
export function longItem(): ValidationItem {
  const filler = (company: string, n: number) =>
    Array.from(
      { length: n },
      (_, i) =>
        `The ${company} business focused on capacity expansion and new markets in line ${i}, while input\ncosts and competition remained the main uncertainties for the year.`,
    ).join('\n');
  const ids = [1, 2, 3, 4, 5].map((r) => `acme-FY24-${String(r).padStart(8, '0')}`);
  const gold = 'Consolidated revenue from operations for FY24 was Rs 2,345.67 crore.';
  const texts = [
    `ACME LIMITED\n2. FINANCIAL HIGHLIGHTS\n${filler('ports', 12)}\n${gold}\n${filler('logistics', 12)}`,
    `ACME LIMITED\n${filler('energy', 30)}`,
    `ACME LIMITED\n${filler('airports', 30)}`,
    `ACME LIMITED\n${filler('roads', 30)}`,
    `ACME LIMITED\n5. SEGMENT RESULTS\n${filler('mining', 26)}\nThe Mining segment reported revenue of Rs 987.65\ncrore in FY24.\n${filler('water', 3)}`,
  ];
  return {
    ...handItem(0),
    item_id: 'extractive/q-long/run 0',
    answer_key: 'answer-key-long',
    question_id: 'q-long',
    category: 'grounded-direct',
    expected_behavior: 'answer',
    question: "What was Acme's consolidated revenue from operations for FY24?",
    gold_answer: 'Rs 2,345.67 crore',
    gold_quotes: [gold],
    chunks: ids.map((id, i) => ({
      id,
      company: 'acme',
      fy: 'FY24',
      heading: null,
      pages: [i * 3 + 1, i * 3 + 3] as [number, number],
      text: texts[i] as string,
    })),
    answer: `The Mining segment reported revenue of Rs 987.65 crore in FY24 [${ids[4]}].`,
  };
}
