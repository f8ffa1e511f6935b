/**
 * The floor of the scale bench (issue 53): what a warm run of N cases must at least do, written without
 * rge's code (this module imports only Node's own). It reads the same JSONL lines of the results store
 * that a warm case reads, every answer and every verdict of the stores (`cells/answers/*.jsonl`,
 * `cells/verdicts/*.jsonl`), parses each line, scores each answer with GFS from its judges' verdicts (the
 * methodology's weights: (0.40 grounding + 0.35 correctness + 0.25 calibration) / 2, each dimension the
 * mean of the judges that scored), takes each subject's mean, and draws one bootstrap: 2,000 resamples of
 * the first subject's question clusters, percentile 95% interval. Its means are rge's `summary.json` GFS
 * estimates (the bench checks them), so it computes what rge does for the headline, and nothing else:
 * no Vitest, no checks, no report, no published rows. It counts every scored verdict of an answer, so
 * it is for a folder of one run's cells under one judge prompt (as the scale bench fills them).
 *
 * `node --import tsx bench/scale-floor.ts RESULTS_DIR` runs it in a process of its own (the bench
 * measures that process's time and memory, bench/process-tree.ts) and prints its result and the seconds
 * of its work as one JSON line.
 */
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface FloorResult {
  /** answers read (cases) */
  cases: number;
  /** lines read: answers and verdicts */
  lines: number;
  /** each subject's mean GFS (primary weights), by the subject id the answers record */
  means: Record<string, number>;
  /** the bootstrap's interval of the first subject's mean */
  interval: { subject: string; low: number; high: number };
}

const WEIGHTS = { grounding: 0.4, correctness: 0.35, calibration: 0.25 };
const RESAMPLES = 2_000;

/** Calls `onLine` for every line of a file, read in 4 MiB chunks. */
function eachLine(file: string, onLine: (line: string) => void): void {
  const fd = openSync(file, 'r');
  try {
    let buf = Buffer.alloc(1 << 22);
    let kept = 0;
    for (;;) {
      const n = readSync(fd, buf, kept, buf.length - kept, null);
      const end = kept + n;
      let start = 0;
      for (let nl = buf.indexOf(10, start); nl >= 0 && nl < end; nl = buf.indexOf(10, start)) {
        if (nl > start) onLine(buf.toString('utf8', start, nl));
        start = nl + 1;
      }
      if (n === 0) break;
      kept = end - start;
      if (kept === buf.length) {
        const bigger = Buffer.alloc(buf.length * 2);
        buf.copy(bigger, 0, 0, kept);
        buf = bigger;
      } else buf.copy(buf, 0, start, end);
    }
  } finally {
    closeSync(fd);
  }
}

const jsonlIn = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => join(dir, f));

interface Scored {
  judges: number;
  grounding: number;
  correctness: number;
  calibration: number;
}

/** A small seeded generator (mulberry32), uniform on [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Percentile interval of the mean over clusters resampled with replacement. */
function clusterBootstrap(clusters: { sum: number; n: number }[]): { low: number; high: number } {
  const draw = mulberry32(53);
  const means = new Float64Array(RESAMPLES);
  for (let b = 0; b < RESAMPLES; b++) {
    let sum = 0;
    let n = 0;
    for (let j = 0; j < clusters.length; j++) {
      const c = clusters[Math.floor(draw() * clusters.length)] as { sum: number; n: number };
      sum += c.sum;
      n += c.n;
    }
    means[b] = sum / n;
  }
  means.sort();
  const at = (p: number) => means[Math.min(RESAMPLES - 1, Math.floor(p * RESAMPLES))] as number;
  return { low: at(0.025), high: at(0.975) };
}

/** The floor's work on a results folder: read, score, average, one bootstrap. */
export function floorRun(resultsDir: string): FloorResult {
  const scored = new Map<string, Scored>();
  let lines = 0;
  for (const file of jsonlIn(join(resultsDir, 'cells', 'verdicts')))
    eachLine(file, (line) => {
      lines++;
      const v = JSON.parse(line);
      if (v.outcome.status !== 'scored' || !v.outcome.verdict) return;
      const s = scored.get(v.identity.answer_key) ?? {
        judges: 0,
        grounding: 0,
        correctness: 0,
        calibration: 0,
      };
      s.judges++;
      s.grounding += v.outcome.verdict.grounding.score;
      s.correctness += v.outcome.verdict.correctness.score;
      s.calibration += v.outcome.verdict.calibration.score;
      scored.set(v.identity.answer_key, s);
    });
  // per subject, per question: the sum and number of the cases' GFS
  const bySubject = new Map<string, Map<string, { sum: number; n: number }>>();
  let cases = 0;
  for (const file of jsonlIn(join(resultsDir, 'cells', 'answers')))
    eachLine(file, (line) => {
      lines++;
      const a = JSON.parse(line);
      cases++;
      const s = scored.get(a.key);
      if (!s) return;
      const gfs =
        (WEIGHTS.grounding * (s.grounding / s.judges) +
          WEIGHTS.correctness * (s.correctness / s.judges) +
          WEIGHTS.calibration * (s.calibration / s.judges)) /
        2;
      const questions = bySubject.get(a.subject_id) ?? new Map<string, { sum: number; n: number }>();
      const q = questions.get(a.identity.question_id) ?? { sum: 0, n: 0 };
      q.sum += gfs;
      q.n++;
      questions.set(a.identity.question_id, q);
      bySubject.set(a.subject_id, questions);
    });
  const means: Record<string, number> = {};
  for (const [subject, questions] of bySubject) {
    let sum = 0;
    let n = 0;
    for (const q of questions.values()) {
      sum += q.sum;
      n += q.n;
    }
    means[subject] = sum / n;
  }
  const [first] = [...bySubject.keys()].sort();
  if (first === undefined) throw new Error(`the floor found no scored answer in ${resultsDir}`);
  const interval = clusterBootstrap([...(bySubject.get(first)?.values() ?? [])]);
  return { cases, lines, means, interval: { subject: first, ...interval } };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const dir = process.argv[2];
  if (dir === undefined) {
    process.stderr.write('usage: node --import tsx bench/scale-floor.ts RESULTS_DIR\n');
    process.exit(2);
  }
  const t0 = performance.now();
  const result = floorRun(dir);
  process.stdout.write(`${JSON.stringify({ ...result, seconds: (performance.now() - t0) / 1000 })}\n`);
}
