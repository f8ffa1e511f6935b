/**
 * What two runs must share for the gate to compare them: the question set, the config, the judges and
 * their rubric, the index and retrieval, the runs per question, each shared subject's model and the GFS
 * weights. A difference there moves GFS for reasons other than the change under test, so `rge gate`
 * refuses such a pair (exit 2) unless told to (`--allow-different-config`), and `rge baseline update`
 * will not replace a baseline of another config without `--force`.
 *
 * What a gate exists to compare is NOT a difference here: the subject prompt, a system's version (its
 * code, prompt or declared version), the sampling seed, a subject's sampling parameters, and the subset
 * of subjects or questions a run was narrowed to (the gate pairs the cells both runs scored). Those are
 * listed as changes beside the verdicts (src/gate/gate.ts `whatChanged`).
 *
 * Pure: it reads only the two summaries. A field one of them does not record (an older summary) is not
 * compared.
 */
import type { GateSummary } from './gate.ts';

type Description = NonNullable<GateSummary['describe']>;
type Model = { id: string; provider?: string | undefined; model: string; sent?: string | undefined };

const short = (hash: string) => hash.slice(0, 12);

/** `config fixture (configs/fixture.yaml)`, or the run id when the summary describes no config. */
export function configLabel(s: GateSummary): string {
  const name = s.describe?.config;
  if (name === undefined) return s.run.runId;
  const file = s.describe?.configFile;
  return `config ${name}${file ? ` (${file})` : ''}`;
}

const modelText = (m: Model) =>
  `${m.provider ? `${m.provider}/` : ''}${m.model}${m.sent ? ` (${m.sent})` : ''}`;

function judgesText(d: Description): string {
  return d.judges
    .map((j) => `${j.id}=${modelText(j)}`)
    .sort()
    .join(', ');
}

/** Each shared subject whose provider or model differs (a system's version is the change under test). */
function subjectModelDifferences(b: Description, c: Description): string[] {
  const before = new Map((b.subjects ?? []).map((s) => [s.id, s]));
  const out: string[] = [];
  for (const s of c.subjects ?? []) {
    const was = before.get(s.id);
    if (!was) continue;
    const text = (m: { provider?: string | undefined; model?: string | undefined }) =>
      `${m.provider ? `${m.provider}/` : ''}${m.model ?? '?'}`;
    if (text(was) !== text(s)) out.push(`subject ${s.id}'s model ${text(was)} -> ${text(s)}`);
  }
  return out;
}

function retrievalDifferences(b: Description, c: Description): string[] {
  const out: string[] = [];
  if (!b.corpus || !c.corpus) return out;
  const fields: [keyof NonNullable<Description['corpus']>, string][] = [
    ['embedder', 'retrieval embedder'],
    ['chunkTokens', 'chunk_tokens'],
    ['overlapTokens', 'overlap_tokens'],
    ['k', 'retrieval k'],
  ];
  for (const [field, label] of fields)
    if (b.corpus[field] !== c.corpus[field]) out.push(`${label} ${b.corpus[field]} -> ${c.corpus[field]}`);
  return out;
}

function weightsText(w: { correctness: number; grounding: number; calibration: number }): string {
  return `correctness ${w.correctness}, grounding ${w.grounding}, calibration ${w.calibration}`;
}

/** The differences of two runs' descriptions that make their GFS incomparable. */
function descriptionDifferences(b: Description, c: Description): string[] {
  const out: string[] = [];
  if (b.config !== c.config)
    out.push(
      `config ${b.config}${b.configFile ? ` (${b.configFile})` : ''} -> ${c.config}${c.configFile ? ` (${c.configFile})` : ''}`,
    );
  if (b.questions && c.questions && b.questions.version !== c.questions.version)
    out.push(`question set version ${b.questions.version} -> ${c.questions.version}`);
  if (judgesText(b) !== judgesText(c)) out.push(`judges ${judgesText(b)} -> ${judgesText(c)}`);
  if (b.judgePrompt.sha256 !== c.judgePrompt.sha256)
    out.push(
      `judge prompt (rubric) ${b.judgePrompt.version} ${short(b.judgePrompt.sha256)} -> ${c.judgePrompt.version} ${short(c.judgePrompt.sha256)}`,
    );
  out.push(...retrievalDifferences(b, c));
  if (b.runs !== undefined && c.runs !== undefined && b.runs !== c.runs)
    out.push(`runs per question ${b.runs} -> ${c.runs}`);
  out.push(...subjectModelDifferences(b, c));
  if (b.gfsWeights && c.gfsWeights && weightsText(b.gfsWeights) !== weightsText(c.gfsWeights))
    out.push(`GFS weights ${weightsText(b.gfsWeights)} -> ${weightsText(c.gfsWeights)}`);
  return out;
}

/**
 * What differs between the baseline and the current run beyond the change under test, in words
 * (`question set ... -> ...`, `config fixture -> ci`, ...); empty when the gate may compare them.
 */
export function configDifferences(baseline: GateSummary, current: GateSummary): string[] {
  const [b, c] = [baseline.describe, current.describe];
  const described = b && c ? descriptionDifferences(b, c) : [];
  // the config first: it is what a reader recognises
  const out = described.filter((d) => d.startsWith('config '));
  if (baseline.run.questionsHash !== current.run.questionsHash) {
    const file = (s: GateSummary) => (s.describe?.questions?.file ? `${s.describe.questions.file} ` : '');
    out.push(
      `question set ${file(baseline)}${short(baseline.run.questionsHash)} -> ${file(current)}${short(current.run.questionsHash)}`,
    );
  }
  out.push(...described.filter((d) => !d.startsWith('config ')));
  if (baseline.run.indexChecksum !== current.run.indexChecksum)
    out.push(`corpus index ${short(baseline.run.indexChecksum)} -> ${short(current.run.indexChecksum)}`);
  return out;
}
