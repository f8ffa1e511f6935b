/**
 * Verification: every candidate checked against the documents before it is kept, each rejection stored
 * with its reason (candidate.ts REJECTION_REASONS). The order: the schema (done by the generator: a
 * candidate that does not parse never becomes one), then per candidate 1 quotes found, 2 resolved to
 * chunks, 3 answer supported, 4 no leak, 5 multihop over two chunks, 6 premise contradicted or absence
 * confirmed, 9 language; then over the survivors 7 near-duplicates, 8 coverage, and 10 the optional
 * judge. A rejection names the first check a candidate fails.
 */
import { contentWords } from '../../../analysis/tokens.ts';
import type { QuestionCategory } from '../../schema.ts';
import type { Candidate, Rejection, RejectionReason, VerifyCheck } from '../candidate.ts';
import {
  answerSupported,
  type Failure,
  type LocatedQuote,
  multihopChunks,
  noLeak,
  outOfDomainAbsent,
  premiseContradicted,
  type TopK,
} from './checks.ts';
import { coverCategory } from './coverage.ts';
import { nearDuplicates } from './duplicates.ts';
import type { QuoteIndex } from './quote-index.ts';

/** A gold quote found and resolved: the text as its chunk prints it, where it is, the chunks that hold it. */
export interface VerifiedQuote extends LocatedQuote {
  document: string;
  page: number | null;
  span: [number, number] | null;
  section: string | null;
}

export interface Verified {
  candidate: Candidate;
  quotes: VerifiedQuote[];
  /** the checks it passed, in order */
  checks: VerifyCheck[];
  /** what was noted without rejecting it */
  flags: string[];
}

/** A language detector (the document's language is known per document). */
export interface LanguageCheck {
  detect(text: string): { language: string | null; reliable: boolean };
  /** each document's language, by `Chunk.source` (null: not told) */
  documents: ReadonlyMap<string, string | null>;
}

export interface VerifyInput {
  candidates: readonly Candidate[];
  quotes: QuoteIndex;
  /** the config's retrievers (top k), asked for each out-of-domain question */
  retrievers: readonly TopK[];
  /** sentence embeddings for the near-duplicate rule (without: the lexical rule only) */
  embed?: (texts: readonly string[]) => Promise<ArrayLike<number>[]>;
  language?: LanguageCheck;
  /** how many to keep per category (null: every verified candidate, no coverage cap) */
  target: Record<QuestionCategory, number> | null;
  /** a document's cap as a share of its category's target (null: coverage.ts's default) */
  maxShare: number | null;
  /** check 10: a judge of another family; a failure rejects */
  judge?: (v: Verified) => Promise<Failure | null>;
}

export interface VerifyResult {
  kept: Verified[];
  rejections: Rejection[];
}

export type Outcome = { ok: Verified } | { failed: Failure };

/** Checks 1 and 2: each quote found in its document and resolved to chunks. */
function locateQuotes(c: Candidate, index: QuoteIndex): VerifiedQuote[] | Failure {
  if (c.body.category === 'out-of-domain') return [];
  const out: VerifiedQuote[] = [];
  for (const [i, q] of c.body.gold_quotes.entries()) {
    const hit = index.locate(q.document, q.text);
    const which = `quote ${i + 1} "${short(q.text)}"`;
    switch (hit.kind) {
      case 'found':
        out.push({ ...hit, document: q.document });
        break;
      case 'no-document':
        return {
          reason: 'quote-not-found',
          message: `${which}: ${q.document} is not a document of the index`,
        };
      case 'across':
        return {
          reason: 'quote-across-chunks',
          message: `${which} runs across chunks ${hit.chunkIds[0]} and ${hit.chunkIds[1]}: no one chunk holds it`,
        };
      case 'not-in-index':
        return {
          reason: 'quote-not-in-index',
          message: `${which} is printed in ${q.document}${hit.page ? ` on page ${hit.page}` : ''} but in no chunk of the index (a running header or footer?)`,
        };
      case 'not-found': {
        const near = hit.nearest;
        const nearest = near
          ? ` (nearest${near.page !== null ? `: page ${near.page},` : ':'} holds ${Math.round(near.overlap * 100)}% of its words${near.overlap >= 0.5 ? ': paraphrased?' : ''})`
          : '';
        return { reason: 'quote-not-found', message: `${which} is not in ${q.document}${nearest}` };
      }
    }
  }
  return out;
}

function short(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > 60 ? `${t.slice(0, 57)}...` : t;
}

/** Checks 1-6 and 9 of one candidate (what an edit on the review page is verified by again). */
export async function verifyOne(
  c: Candidate,
  input: Pick<VerifyInput, 'quotes' | 'retrievers' | 'language'>,
): Promise<Outcome> {
  const located = locateQuotes(c, input.quotes);
  if (!Array.isArray(located)) return { failed: located };
  const checks: VerifyCheck[] = ['schema', 'quote-found', 'quote-in-chunks'];
  const body = c.body;
  const printed = (text: string) => {
    const hit = input.quotes.locate(c.document, text);
    return hit.kind === 'found' || hit.kind === 'across' || hit.kind === 'not-in-index';
  };
  const steps: [VerifyCheck, () => Failure | null | Promise<Failure | null>][] = [
    ['answer-supported', () => answerSupported(body, located)],
    ['no-leak', () => noLeak(body, located)],
    ['multihop-chunks', () => multihopChunks(body, located)],
    [
      'premise-or-absence',
      () =>
        body.category === 'out-of-domain'
          ? outOfDomainAbsent(body, input.retrievers)
          : premiseContradicted(body, located, printed),
    ],
    ['language', () => languageFailure(c, input.language)],
  ];
  for (const [name, step] of steps) {
    const failed = await step();
    if (failed) return { failed };
    checks.push(name);
  }
  const flags = input.language ? [] : ['language not checked (no detector)'];
  return { ok: { candidate: c, quotes: located, checks, flags } };
}

/** Check 9: the question is in its document's language (both told reliably, else not judged). */
function languageFailure(c: Candidate, language: LanguageCheck | undefined): Failure | null {
  if (!language) return null;
  const wanted = language.documents.get(c.document) ?? null;
  if (wanted === null) return null;
  const got = language.detect(c.body.text);
  if (!got.reliable || got.language === null || got.language === wanted) return null;
  return {
    reason: 'wrong-language',
    message: `the question is in ${got.language}, its document ${c.document} in ${wanted}`,
  };
}

const reject = (candidate: string, reason: RejectionReason, message: string): Rejection => ({
  candidate,
  reason,
  message,
});

/** Verifies every candidate: the kept ones with their located quotes, and every rejection with its reason. */
export async function verifyCandidates(input: VerifyInput): Promise<VerifyResult> {
  const rejections: Rejection[] = [];
  let passed: Verified[] = [];
  for (const c of input.candidates) {
    const o = await verifyOne(c, input);
    if ('failed' in o) rejections.push(reject(c.id, o.failed.reason, o.failed.message));
    else passed.push(o.ok);
  }
  passed = await withoutDuplicates(passed, input, rejections);
  passed = covered(passed, input, rejections);
  if (input.judge) {
    // asked together (a live judge's limiter spaces the calls), read in order
    const judge = input.judge;
    const failures = await Promise.all(passed.map((v) => judge(v)));
    const judged: Verified[] = [];
    passed.forEach((v, i) => {
      const failed = failures[i];
      if (failed) rejections.push(reject(v.candidate.id, failed.reason, failed.message));
      else judged.push({ ...v, checks: [...v.checks, 'judge'] });
    });
    passed = judged;
  }
  return { kept: passed, rejections };
}

/** Check 7: near-duplicates within a document, the first kept. */
async function withoutDuplicates(
  passed: readonly Verified[],
  input: VerifyInput,
  rejections: Rejection[],
): Promise<Verified[]> {
  const items = passed.map((v) => ({
    id: v.candidate.id,
    group: v.candidate.document,
    text: v.candidate.body.text,
    answer: v.candidate.body.gold_answer,
    chunkIds: v.quotes.flatMap((q) => q.chunkIds),
    ignore: nameWords(v.candidate.document),
  }));
  const vectors = input.embed ? await input.embed(items.map((i) => i.text)) : undefined;
  const dups = nearDuplicates(items, vectors);
  const out: Verified[] = [];
  for (const v of passed) {
    const d = dups.get(v.candidate.id);
    if (!d) out.push({ ...v, checks: [...v.checks, 'near-duplicate'] });
    else
      rejections.push(
        reject(
          v.candidate.id,
          'near-duplicate',
          `repeats ${d.of} (${d.how} similarity ${d.similarity.toFixed(2)})`,
        ),
      );
  }
  return out;
}

const nameWordsCache = new Map<string, Set<string>>();
/** The content words of a document's file name ("Infosys_Q4FY24_FS.pdf": infosys, q4fy24, fs, pdf). */
function nameWords(source: string): Set<string> {
  let words = nameWordsCache.get(source);
  if (!words) {
    words = new Set(contentWords(source.replace(/[-_./\\]+/g, ' ')));
    nameWordsCache.set(source, words);
  }
  return words;
}

/** Check 8: each category's target shared over the documents. */
function covered(passed: readonly Verified[], input: VerifyInput, rejections: Rejection[]): Verified[] {
  if (input.target === null) return passed.map((v) => ({ ...v, checks: [...v.checks, 'coverage'] }));
  const keep = new Set<string>();
  for (const [category, target] of Object.entries(input.target)) {
    const items = passed
      .filter((v) => v.candidate.body.category === category)
      .map((v) => ({ id: v.candidate.id, document: v.candidate.document }));
    const allocation = coverCategory(items, target, input.maxShare);
    for (const id of allocation.kept) keep.add(id);
    for (const d of allocation.dropped) rejections.push(reject(d.id, d.reason, d.message));
  }
  return passed
    .filter((v) => keep.has(v.candidate.id))
    .map((v) => ({ ...v, checks: [...v.checks, 'coverage'] }));
}
