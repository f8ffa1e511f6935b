/**
 * Gold chunks from gold evidence patterns (`gold_evidence`), never typed: among the chunks of the
 * pattern's company and year, a figure pattern takes the chunks that print the figure (in any printed
 * form: `findPrintedFigure`) on a line that carries its label (or one of its aliases); failing that,
 * the chunks that print both anywhere. A quote pattern takes the chunks that hold it, whitespace aside.
 * The line that prints the figure becomes the gold quote, so the validator can check it in its chunk.
 *
 * A pattern found in no chunk leaves the question unresolved, with its nearest candidates: the chunks
 * that print the figure without the label, and those that print the label without the figure.
 */
import { type FigureHit, figureReader } from '../analysis/printed-figures.ts';
import type { Chunk } from '../corpus/schema.ts';
import { normaliseWhitespace } from './load.ts';
import type { GoldEvidence } from './schema.ts';

export interface EvidenceCandidate {
  chunkId: string;
  pages: [number, number];
  why: string;
}

export interface EvidenceResolution {
  id: string;
  goldChunkIds: string[];
  /** the printed lines (or quotes) found, one per pattern resolved */
  quotes: string[];
  /** each pattern found in no chunk, with the nearest candidates (at most 3 of each kind) */
  unresolved: { evidence: GoldEvidence; candidates: EvidenceCandidate[] }[];
}

export interface EvidenceQuestion {
  id: string;
  gold_evidence?: readonly GoldEvidence[] | undefined;
}

const lower = (s: string) => normaliseWhitespace(s).toLowerCase();

/** The line of `text` around offset `at`. */
function lineAt(text: string, at: number): string {
  const start = text.lastIndexOf('\n', at) + 1;
  const end = text.indexOf('\n', at);
  return text.slice(start, end === -1 ? text.length : end).trim();
}

/** A chunk as the resolver reads it, prepared once for every pattern of every question. */
interface ReadChunk {
  chunk: Chunk;
  /** whitespace-normalised */
  text: string;
  /** `text` lowercased: where labels are looked for */
  lowered: string;
  /** the heading and `text`, lowercased: where the statement (standalone, consolidated) is looked for */
  withHeading: string;
  figures: (value: number, unit: string) => FigureHit[];
}

function readChunk(chunk: Chunk): ReadChunk {
  const text = normaliseWhitespace(chunk.text);
  return {
    chunk,
    text,
    lowered: text.toLowerCase(),
    withHeading: `${chunk.heading ?? ''} ${text}`.toLowerCase(),
    figures: figureReader(chunk.text),
  };
}

function figureIn(chunks: readonly ReadChunk[], e: Extract<GoldEvidence, { kind: 'figure' }>) {
  const labels = [e.label, ...e.aliases].map(lower);
  const hasLabel = (lowered: string) => labels.some((l) => lowered.includes(l));
  const sameLine: { read: ReadChunk; line: string }[] = [];
  const both: { read: ReadChunk; line: string }[] = [];
  const figureOnly: EvidenceCandidate[] = [];
  const labelOnly: EvidenceCandidate[] = [];
  for (const read of chunks) {
    const { chunk } = read;
    const hits = read.figures(e.value, e.unit);
    const labelled = hasLabel(read.lowered);
    const onLine = hits.map((h) => lineAt(chunk.text, h.start)).find((l) => hasLabel(lower(l)));
    if (onLine) sameLine.push({ read, line: onLine });
    else if (hits[0] && labelled) both.push({ read, line: lineAt(chunk.text, hits[0].start) });
    else if (hits[0])
      figureOnly.push({
        chunkId: chunk.id,
        pages: chunk.pages,
        why: `prints ${hits[0].raw} (${hits[0].scale}) but not the label "${e.label}"`,
      });
    else if (labelled)
      labelOnly.push({
        chunkId: chunk.id,
        pages: chunk.pages,
        why: `prints "${e.label}" but not the figure`,
      });
  }
  // the statement the pattern names, where the chunks say which they print
  const found = sameLine.length > 0 ? sameLine : both;
  const named = found.filter((f) => f.read.withHeading.includes(e.statement));
  return {
    found: named.length > 0 ? named : found,
    candidates: [...figureOnly.slice(0, 3), ...labelOnly.slice(0, 3)],
  };
}

export function resolveEvidence(
  questions: readonly EvidenceQuestion[],
  chunks: readonly Chunk[],
): EvidenceResolution[] {
  // each report's chunks, read once (lazily) for every pattern of every question that names it
  const reports = new Map<string, Chunk[]>();
  for (const c of chunks) {
    const key = `${c.company}\u0000${c.fy}`;
    reports.set(key, [...(reports.get(key) ?? []), c]);
  }
  const read = new Map<string, ReadChunk[]>();
  const reportOf = (company: string, fy: string): ReadChunk[] => {
    const key = `${company}\u0000${fy}`;
    let list = read.get(key);
    if (!list) {
      list = (reports.get(key) ?? []).map(readChunk);
      read.set(key, list);
    }
    return list;
  };
  return questions.map((q) => {
    const ids = new Set<string>();
    const quotes: string[] = [];
    const unresolved: EvidenceResolution['unresolved'] = [];
    for (const e of q.gold_evidence ?? []) {
      const scoped = reportOf(e.company, e.fy);
      if (e.kind === 'quote') {
        const wanted = normaliseWhitespace(e.text);
        const hits = scoped.filter((c) => c.text.includes(wanted));
        if (hits.length === 0) unresolved.push({ evidence: e, candidates: [] });
        else quotes.push(e.text);
        for (const c of hits) ids.add(c.chunk.id);
        continue;
      }
      const { found, candidates } = figureIn(scoped, e);
      if (found.length === 0) {
        unresolved.push({ evidence: e, candidates });
        continue;
      }
      for (const f of found) ids.add(f.read.chunk.id);
      if (found[0]) quotes.push(found[0].line);
    }
    return { id: q.id, goldChunkIds: [...ids].sort(), quotes, unresolved };
  });
}

/** One unresolved pattern, for the command's list: what was sought and the nearest candidates. */
export function describeUnresolved(u: EvidenceResolution['unresolved'][number]): string {
  const e = u.evidence;
  const sought =
    e.kind === 'figure'
      ? `"${e.label}" ${e.value} ${e.unit} (${e.statement}, ${e.period}) in ${e.company} ${e.fy}`
      : `quote "${e.text.slice(0, 60)}" in ${e.company} ${e.fy}`;
  const near = u.candidates.map((c) => `    ${c.chunkId} (pages ${c.pages[0]}-${c.pages[1]}): ${c.why}`);
  return [
    `  not found: ${sought}`,
    ...(near.length > 0 ? near : ['    no chunk prints the figure or the label']),
  ].join('\n');
}

/**
 * Why a question set cannot be scored on an index: questions whose gold evidence is unresolved
 * (`resolved_on` null) or was resolved on another index. Empty when every answerable question's gold
 * belongs to this index (and for sets without gold evidence, which carry typed-free gold quotes).
 */
export function goldNotReady(
  questions: readonly { id: string; gold_evidence?: unknown; resolved_on?: string | null | undefined }[],
  indexChecksum: string,
): string[] {
  const unresolved = questions.filter((q) => q.gold_evidence !== undefined && q.resolved_on === null);
  const elsewhere = questions.filter((q) => q.resolved_on && q.resolved_on !== indexChecksum);
  const problems: string[] = [];
  if (unresolved.length > 0)
    problems.push(
      `${unresolved.length} question(s) unresolved (${unresolved
        .slice(0, 5)
        .map((q) => q.id)
        .join(', ')}${unresolved.length > 5 ? ', ...' : ''})`,
    );
  if (elsewhere.length > 0)
    problems.push(
      `${elsewhere.length} question(s) resolved on another index than ${indexChecksum.slice(0, 12)} (${elsewhere
        .slice(0, 5)
        .map((q) => q.id)
        .join(', ')})`,
    );
  return problems;
}
