/**
 * The files of human validation, and their readers for the report:
 * - `<labels-dir>/samples/<sample_id>.json`: a validation sample (written whole, atomically);
 * - `<labels-dir>/labels-<sample_id>.jsonl`: one `HumanLabel` per line, appended as each is given;
 * - `<labels-dir>/reviews.jsonl`: one `ContestedReview` per line, appended as each is given.
 * The JSONL files are never rewritten: a re-label (a re-review) appends a new line and the last one wins.
 * A bad line is an error naming file:line. Join labels and reviews to a run's case rows by `answer_key`.
 */
import { existsSync } from 'node:fs';
import { appendFile, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import canonicalizeModule from 'canonicalize';
import type { JudgeOutcome } from '../judging/verdict.ts';
import { RgeError } from '../util/errors.ts';
import { sha256 } from '../util/fs.ts';
import { readJsonl } from '../util/jsonl.ts';
import { withFileLock } from '../util/lock.ts';
import { ContestedReview, HumanLabel, ValidationSample } from './schema.ts';

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

/** The labels of one labels file, last per (labeller, item_id); [] when the file does not exist. */
export async function readLabelsFile(file: string): Promise<HumanLabel[]> {
  if (!existsSync(file)) return [];
  const records = (await readJsonl(file, HumanLabel)).map((r) => r.value);
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
 * Appends one record as one line (under the file's lock). A torn last line left by a crash stays as it
 * is (the readers then name it) and the record goes on a line of its own: nothing is rewritten.
 */
export async function appendRecord(file: string, record: unknown): Promise<void> {
  await withFileLock(file, async () => {
    let prefix = '';
    if (existsSync(file)) {
      const text = await readFile(file, 'utf8');
      if (text.length > 0 && !text.endsWith('\n')) prefix = '\n';
    }
    await appendFile(file, `${prefix}${JSON.stringify(record)}\n`);
  });
}

/**
 * sha256 of the raw judge outputs a review looked at: the canonical JSON of each judge's id and raw
 * reply, in panel order. A review whose hash differs from the current verdicts' reviewed other outputs.
 */
export function judgeOutcomesHash(verdicts: readonly JudgeOutcome[]): string {
  return sha256(canonicalize(verdicts.map((v) => ({ judge: v.judgeId, raw: v.raw }))) ?? '');
}
