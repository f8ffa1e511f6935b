/**
 * The methodology's question set over the real reports (data/questions/questions.jsonl), written from
 * audited figures: the NSE XBRL results filings of seven of the ten companies (FY23 and FY24, standalone
 * and consolidated, quarter and full year), as `rge fixtures facts` read them into fixtures/facts.json.
 * Every gold figure carries its filing, element and context (`gold_source`); every gold evidence is a
 * pattern the report prints (the line label and the figure, `gold_evidence`), resolved to chunk ids on
 * the built index by `rge questions resolve`, never typed.
 *
 * The three companies without a staged XBRL filing (Ola Electric, Nykaa, Paytm) get out-of-domain
 * questions and a few grounded-direct ones whose gold is marked `untraced` with the reason; the run's
 * report counts those apart. Selection is seeded (seedrandom) and recorded in every question's notes.
 *
 * This file picks the set; the templates that write the drafts it picks from are authoring-grounded.ts
 * (grounded-direct, grounded-multihop) and authoring-adversarial.ts (adversarial, out-of-domain), with
 * what they share in authoring-drafts.ts.
 */
import seedrandom from 'seedrandom';
import { z } from 'zod';
import { RgeError } from '../util/errors.ts';
import { pickRoundRobin } from '../util/shuffle.ts';
import { adversarial, outOfDomain } from './authoring-adversarial.ts';
import { type AuthoringInput, type Draft, Facts, type UntracedFigure } from './authoring-drafts.ts';
import { direct, multihop } from './authoring-grounded.ts';
import { CATEGORY_COUNTS, type QuestionInput } from './schema.ts';

/** What an untraced question's `gold_source` says. */
export const UNTRACED_REASON =
  'no XBRL filing of this company is staged here; the figure is as its annual report publishes it, not checked against a file on this machine (data/questions/untraced-figures.json)';

export const AUTHORING_SEED = 'rge-published-questions-v1';

/** data/questions/untraced-figures.json: the figures of companies with no filing here, and why. */
const UntracedFile = z.strictObject({
  note: z.string(),
  figures: z.array(
    z.strictObject({
      company: z.string().min(1),
      fy: z.string().regex(/^FY\d{2}$/),
      metric: z.literal('revenue_from_operations'),
      value: z.number().finite(),
    }),
  ),
});

/** The untraced figures of `text` (the file at `file`), each with the reason it is untraced. */
export function parseUntracedFigures(text: string, file: string): UntracedFigure[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new RgeError(`not JSON: ${(err as Error).message}`, { file });
  }
  const parsed = UntracedFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RgeError(`${issue?.path.join('.') || 'file'}: ${issue?.message}`, { file });
  }
  return parsed.data.figures.map((f) => ({ ...f, reason: UNTRACED_REASON }));
}

/** Takes `n` drafts, round-robin over templates, so that every template is represented. */
function pick(drafts: readonly Draft[], n: number, random: () => number, category: string): Draft[] {
  const out = pickRoundRobin(drafts, n, random, (d) => d.template);
  if (out.length < n)
    throw new Error(`only ${out.length} ${category} questions could be written, ${n} needed`);
  return out;
}

/** The question set: 45/45/65/45, unresolved (`rge questions resolve` fills gold chunk ids on an index). */
export function authorQuestions(input: AuthoringInput, seed = AUTHORING_SEED): QuestionInput[] {
  const facts = new Facts(input.facts);
  const random = seedrandom(seed);
  const sets: [keyof typeof CATEGORY_COUNTS, string, Draft[]][] = [
    ['grounded-direct', 'gd', direct(facts, input)],
    ['grounded-multihop', 'gm', multihop(facts, input)],
    ['adversarial', 'adv', adversarial(facts, input)],
    ['out-of-domain', 'ood', outOfDomain(input.names)],
  ];
  const questions: QuestionInput[] = [];
  for (const [category, prefix, drafts] of sets) {
    // the untraced questions are all kept: they are few, and the report counts them apart
    const kept = drafts.filter((d) => d.gold_source?.kind === 'untraced');
    const chosen = [
      ...kept,
      ...pick(
        drafts.filter((d) => !kept.includes(d)),
        CATEGORY_COUNTS[category] - kept.length,
        random,
        category,
      ),
    ];
    for (const [i, { template: _template, ...d }] of chosen.entries())
      questions.push({
        version: 1,
        id: `${prefix}-${String(i + 1).padStart(3, '0')}`,
        ...d,
        authoring_notes: `${d.authoring_notes}; selected with seed ${seed}`,
      });
  }
  return questions;
}
