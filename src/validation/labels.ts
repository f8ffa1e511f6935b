/**
 * The files of human validation, and their readers for the report:
 * - `<labels-dir>/samples/<sample_id>.json`: a validation sample (written whole, atomically);
 * - `<labels-dir>/labels-<sample_id>.jsonl`: one `HumanLabel` per line, appended as each is given;
 * - `<labels-dir>/reviews.jsonl`: one `ContestedReview` per line, appended as each is given.
 * The JSONL files are never rewritten: a re-label (a re-review) appends a new line and the last one wins.
 * A torn last line (a crash mid-write) is skipped by the readers and cut off into `<file>.torn` by the
 * writers and `rge validation label`; a bad line anywhere else is an error naming file:line. Join labels and reviews to a run's case rows by `answer_key`.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import canonicalizeModule from 'canonicalize';
import type { JudgeOutcome } from '../judging/verdict.ts';
import { RgeError } from '../util/errors.ts';
import { readTextFile, sha256 } from '../util/fs.ts';
import { parseJsonlLines, readJsonl } from '../util/jsonl.ts';
import { tornTail } from '../util/jsonl-append.ts';
import { ContestedReview, HumanLabel, ValidationSample } from './schema.ts';

// the append-only helpers live in util (question review appends the same way); re-exported for callers here
export { appendRecord, setAsideTornTail, tornFile, tornTail } from '../util/jsonl-append.ts';

const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

export const SAMPLES_DIR = 'samples';
export const REVIEWS_FILE = 'reviews.jsonl';

export function labelsFile(labelsDir: string, sampleId: string): string {
  return join(labelsDir, `labels-${sampleId}.jsonl`);
}

export function reviewsFile(labelsDir: string): string {
  return join(labelsDir, REVIEWS_FILE);
}

/** Reads and validates a validation sample file. */
export async function loadSample(file: string): Promise<ValidationSample> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new RgeError(err.code === 'ENOENT' ? 'file not found' : err.message, { file });
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new RgeError(`not JSON (${(err as Error).message})`, { file });
  }
  const parsed = ValidationSample.safeParse(json);
  if (!parsed.success)
    throw new RgeError(
      `not a validation sample: ${parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; ')}`,
      { file },
    );
  return parsed.data;
}

/** The most recently written sample file of `<labels-dir>/samples`, or null when there is none. */
export async function latestSampleFile(labelsDir: string): Promise<string | null> {
  const dir = join(labelsDir, SAMPLES_DIR);
  if (!existsSync(dir)) return null;
  const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).map((f) => join(dir, f));
  const dated = await Promise.all(files.map(async (f) => ({ f, at: (await stat(f)).mtimeMs })));
  dated.sort((a, b) => b.at - a.at || (a.f < b.f ? -1 : 1));
  return dated[0]?.f ?? null;
}

/** The last record per key, in the order each key first appears. */
function lastPerKey<T>(records: readonly T[], key: (r: T) => string): T[] {
  const last = new Map<string, T>();
  for (const r of records) last.set(key(r), r);
  return [...last.values()];
}

const LINE_REMEDY =
  'fix or delete that line (one label per line; a later label of the same item replaces an earlier one)';

/**
 * The labels of one labels file, last per (labeller, item_id); [] when the file does not exist. A torn
 * last line is not a label and is skipped (`setAsideTornTail` moves it out of the file); a bad line
 * anywhere else is an error naming file:line and what to do.
 */
export async function readLabelsFile(file: string): Promise<HumanLabel[]> {
  if (!existsSync(file)) return [];
  const text = await readTextFile(file);
  const torn = tornTail(text);
  const lines = parseJsonlLines(torn ? text.slice(0, torn.at) : text, HumanLabel);
  const issues = lines.flatMap((l) => l.issues);
  const [first] = issues;
  if (first) {
    const bad = lines.filter((l) => l.issues.length > 0).length;
    const more = bad > 1 ? ` (first of ${bad} bad lines)` : '';
    throw new RgeError(`${first.field ? `${first.field}: ` : ''}${first.message}; ${LINE_REMEDY}${more}`, {
      file,
      line: first.line,
    });
  }
  const records = lines.map((l) => l.value as HumanLabel);
  return lastPerKey(records, (l) => `${l.sample_id}\u0000${l.labeller}\u0000${l.item_id}`);
}

/**
 * Every human label of the labels folder (each `labels-*.jsonl`): the last label per
 * (sample, labeller, item_id) wins. [] when the folder does not exist.
 */
export async function readLabels(labelsDir: string): Promise<HumanLabel[]> {
  if (!existsSync(labelsDir)) return [];
  const files = (await readdir(labelsDir)).filter((f) => /^labels-.+\.jsonl$/.test(f)).sort();
  const labels: HumanLabel[] = [];
  for (const f of files) labels.push(...(await readLabelsFile(join(labelsDir, f))));
  return labels;
}

/**
 * Every hand-review of contested responses in the labels folder: the last review per
 * (reviewer, answer_key) wins. [] when there is none.
 */
export async function readReviews(labelsDir: string): Promise<ContestedReview[]> {
  const file = reviewsFile(labelsDir);
  if (!existsSync(file)) return [];
  const records = (await readJsonl(file, ContestedReview)).map((r) => r.value);
  return lastPerKey(records, (r) => `${r.reviewer}\u0000${r.answer_key}`);
}

/**
 * sha256 of the raw judge outputs a review looked at: the canonical JSON of each judge's id and raw
 * reply, in panel order. A review whose hash differs from the current verdicts' reviewed other outputs.
 */
export function judgeOutcomesHash(verdicts: readonly JudgeOutcome[]): string {
  return sha256(canonicalize(verdicts.map((v) => ({ judge: v.judgeId, raw: v.raw }))) ?? '');
}
