/**
 * `rge questions from-traces`: logged questions as candidates for the golden set (issue 56). Each logged
 * trace (a line of `rge traces import`'s cases.jsonl) proposes its question, the application's answer
 * and, as gold quotes, the sentences of its retrieved contexts that support the answer, found in your
 * documents; verification then checks each as it checks a generated candidate, and the kept ones are
 * reviewed on the same page (`rge questions review`) before they gate anything. Writes what
 * `rge questions generate` writes: the questions, the rejections, the report (traces that give no
 * candidate are its problems, each with the reason).
 */
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { sha256 } from '../util/fs.ts';
import { type CliIO, existingPath } from './io.ts';
import {
  type GenerateFlags,
  openSource,
  type Result,
  sentenceEmbedder,
  writeOutputs,
} from './questions-generate.ts';

interface FromTracesFlags {
  cases: string;
  documents?: string;
  index?: string;
  out: string;
  similarity: string;
  indexDir?: string;
  cacheDir: string;
}

export function registerFromTracesCommand(questions: Command, io: CliIO): void {
  questions
    .command('from-traces')
    .description(
      "logged questions as candidates for the golden set: each logged trace's question, the application's answer and the " +
        'context sentences that support it, found in your documents and verified as generated candidates are; review them with rge questions review',
    )
    .requiredOption('--cases <file>', "the logged cases (`rge traces import`'s cases.jsonl)")
    .option('--documents <dir>', 'your documents folder (an index of them is built beside --out)')
    .option('--index <dir>', 'a built rge index of your documents instead')
    .requiredOption('--out <file>', 'questions JSONL to write (the report and rejections beside it)')
    .option('--similarity <kind>', 'near-duplicates by use-lite embeddings and words, or lexical', 'use-lite')
    .option('--index-dir <dir>', 'with --documents: where to build the index (default: beside --out)')
    .option('--cache-dir <dir>', 'cache of extracted pages and embeddings', '.cache/rge')
    .action((flags: FromTracesFlags) => fromTracesAction(io, flags));
}

async function fromTracesAction(io: CliIO, flags: FromTracesFlags): Promise<void> {
  const started = performance.now();
  const file = existingPath(io.cwd, '--cases', flags.cases, 'file');
  const { readJsonl } = await import('../util/jsonl.ts');
  const { TraceCase } = await import('../traces/case.ts');
  const cases = (await readJsonl(file, TraceCase)).map((r) => r.value);
  const out = resolve(io.cwd, flags.out);
  const generateFlags: GenerateFlags = {
    ...flags,
    generator: 'offline',
    count: '1',
    seed: 'none',
    resultsDir: '.rge/generate',
  };
  const source = await openSource(io, generateFlags, out);
  const { QuoteIndex } = await import('../questions/generate/verify/quote-index.ts');
  const { traceCandidates } = await import('../run/generate/from-traces.ts');
  const { verifiedQuestions } = await import('../questions/generate/run.ts');
  // the candidates' quotes are looked for in every document (a trace does not say which it came from)
  const quotes = new QuoteIndex(source.chunks, {
    ...(source.pages ? { pages: source.pages } : {}),
    ...(source.pageless ? { pageless: source.pageless } : {}),
  });
  const ref = {
    id: `logged-traces/${basename(file)}`,
    family: 'logged',
    kind: 'logged' as const,
    prompt_hash: sha256(JSON.stringify(cases.map((c) => c.trace_id))).slice(0, 16),
    seed: 'none',
  };
  const { candidates, leftOut } = traceCandidates(cases, quotes, ref);
  const verified = await verifiedQuestions(
    {
      chunks: source.chunks,
      indexChecksum: source.checksum,
      seed: 'none',
      targets: null,
      maxShare: null,
      retrievers: source.retrievers,
      ...(source.languages ? { languages: source.languages } : {}),
      ...(source.detectLanguage ? { detectLanguage: source.detectLanguage } : {}),
      ...(flags.similarity === 'use-lite' ? { embed: await sentenceEmbedder() } : {}),
      warnings: [
        ...source.warnings,
        'a logged answer is what the application said, not the truth: review each question before it gates anything (rge questions review)',
      ],
    },
    {
      candidates,
      copies: [],
      problems: leftOut.map((l) => ({ task: `trace ${l.trace_id}`, message: l.message })),
      tasks: cases.length,
      reusedTasks: 0,
      costUsd: 0,
      started,
      quotes,
    },
  );
  const result: Result = { tasks: [], ...verified };
  await writeOutputs(io, out, result);
}
