/**
 * What was run, last (the provenance): the config, the subjects and judges with their models and what
 * each was sent, the corpus and retrieval, the questions, the prompts, the thresholds, and the run's
 * hashes; and the same in one line for a terminal (`whatWasUsedLine`). In summary.json, `describe` and
 * `promptHashes`.
 */
import { figureText } from '../../util/figure.ts';
import type { ReportSection } from '../section.ts';
import type { DescribedModelView, RunDescription } from '../views.ts';
import type { HeaderData } from './header.ts';

export interface WhatWasRunData {
  /** what was run (from the run's description) */
  describe: RunDescription | null;
  promptHashes: { subject: string[]; judge: string[] };
}

const distinctSorted = (xs: readonly string[]) => [...new Set(xs)].sort();

const DIMS = ['correctness', 'grounding', 'calibration'] as const;
const threshold = (x: number | null) => (x === null ? 'not gated' : figureText(x));

/**
 * What a run used, in one line for a terminal (the end of `rge eval run`, the rge vitest reporter):
 * "judges j1 (anthropic/m1), j2 (openai/m2); embedder use-lite, k 5, 800/100-token chunks;
 * thresholds correctness 0.8, grounding not gated, calibration 0.6, GFS 0.7".
 */
export function whatWasUsedLine(d: RunDescription): string {
  const judges = d.judges.map((j) => `${j.id} (${j.provider}/${j.model})`).join(', ');
  const thresholds = [
    ...DIMS.map((x) => `${x} ${threshold(d.thresholds[x])}`),
    `GFS ${threshold(d.thresholds.gfs)}`,
  ];
  return (
    `judges ${judges || 'none'}; ` +
    (d.corpus
      ? `embedder ${d.corpus.embedder}, k ${d.corpus.k}, ${d.corpus.chunkTokens}/${d.corpus.overlapTokens}-token chunks`
      : "no index of rge's (the subjects are systems)") +
    `; thresholds ${thresholds.join(', ')}`
  );
}

/** What a subject or judge was sent; a user's system is sent the question and a seed, and has a version. */
function sentRow(x: DescribedModelView, role: string): string {
  if (x.version !== undefined)
    return `| sent to ${x.id} (${role}, a system) | the question, its run index and a seed (it samples as it does; rge's retrieval and subject prompt are not used); version \`${x.version === '' ? 'undeclared' : x.version.slice(0, 16)}\` |`;
  return `| sent to ${x.id} (${role}) | ${x.sent}; output limit ${x.maxTokens} tokens; ${x.deviation === null ? 'temperature 0 as the methodology fixes it' : `deviation from temperature 0: ${x.deviation}`} |`;
}

/** What was run: config, subjects and judges with their models, corpus and retrieval, questions, prompts. */
function describeRun(s: WhatWasRunData & Pick<HeaderData, 'run'>): string[] {
  const out: string[] = ['## What was run', '', '| | |', '|---|---|'];
  const d = s.describe;
  if (d) {
    out.push(
      `| config | \`${d.config}\`, mode ${d.mode}, ${d.runs} run(s) per question |`,
      `| subjects | ${d.subjects.map((x) => `${x.id}: ${x.provider}/${x.model} (${x.family})`).join('; ')} |`,
      `| judges | ${d.judges.map((x) => `${x.id}: ${x.provider}/${x.model} (${x.family})`).join('; ')}; each subject judged by two of other families |`,
      ...[
        ...d.subjects.map((x) => ({ x, role: 'subject' })),
        ...d.judges.map((x) => ({ x, role: 'judge' })),
      ].map(({ x, role }) => sentRow(x, role)),
      d.corpus
        ? `| corpus | embedder ${d.corpus.embedder}, ${d.corpus.chunkTokens}-token chunks (${d.corpus.overlapTokens} overlap), top-${d.corpus.k} retrieval |`
        : "| corpus | none of rge's: every subject is a system, which retrieves for itself |",
      `| questions | ${d.questions.n} from \`${d.questions.file}\` (version ${d.questions.version})${d.questions.slice ? `; a slice, ${d.questions.slice}` : ''}${d.questions.gold ? `; gold traced to XBRL ${d.questions.gold.xbrl}, untraced ${d.questions.gold.untraced} (not checked against a source here; the traced column of the GFS table leaves them out), out-of-domain ${d.questions.gold.absent}${d.questions.gold.unstated > 0 ? `, unstated ${d.questions.gold.unstated}` : ''}` : ''} |`,
      `| subject prompt | ${d.subjectPrompt.file ? `${d.subjectPrompt.file} ` : 'built-in '}${d.subjectPrompt.version} \`${d.subjectPrompt.sha256.slice(0, 16)}\` |`,
      `| judge prompt | ${d.judgePrompt.version} \`${d.judgePrompt.sha256.slice(0, 16)}\` |`,
      `| thresholds | ${DIMS.map((x) => `${x} ${threshold(d.thresholds[x])}`).join(', ')}, GFS ${threshold(d.thresholds.gfs)} |`,
    );
  }
  out.push(
    `| run id | \`${s.run.runId}\` |`,
    `| seed | \`${s.run.seed}\` |`,
    `| config hash | \`${s.run.configHash}\` |`,
    `| index checksum | \`${s.run.indexChecksum}\` |`,
    `| questions hash | \`${s.run.questionsHash}\` |`,
    `| prompt hashes seen | subject ${s.promptHashes.subject.map((h) => `\`${h.slice(0, 16)}\``).join(', ')}; judge ${s.promptHashes.judge.map((h) => `\`${h.slice(0, 16)}\``).join(', ')} |`,
    '',
  );
  return out;
}

const section: ReportSection<WhatWasRunData, WhatWasRunData & Pick<HeaderData, 'run'>> = {
  id: 'what-was-run',
  place: 'below',
  compute: (c) => ({
    describe: c.opts.describe ?? null,
    promptHashes: {
      subject: distinctSorted(c.rows.map((r) => r.subject_prompt_hash)),
      judge: distinctSorted(c.rows.map((r) => r.judge_prompt_hash)),
    },
  }),
  render: describeRun,
};
export default section;
