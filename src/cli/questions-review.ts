/**
 * `rge questions review`: a person reviews generated questions before they gate anything.
 *   rge questions review --questions FILE --documents DIR [--order random|file] [--seed S] [--port N] [--no-open]
 *       serves the review page (127.0.0.1): accept, edit (re-verified before it is kept) or reject each
 *       question; every decision is appended to FILE.review.jsonl, so a closed page or a stopped server
 *       resumes where it was
 *   rge questions review --questions FILE --summary
 *       prints what the review says: counts, the share kept, the generator's error rate with its 95%
 *       interval, and the error rate projected to the questions not reviewed
 *   rge questions review --questions FILE --write GOLDEN.jsonl
 *       writes the accepted and edited questions (provenance.review 'accepted' or 'edited'), atomically
 * The modules are imported when the action runs (docs/adr/0012-cli-start-up.md).
 */
import { spawn } from 'node:child_process';
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { LedgerDecision, Reverify } from '../questions/review/index.ts';
import type { Question } from '../questions/schema.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import type { LocalServer } from '../util/local-server.ts';
import { type CliIO, existingPath, nonNegativeInteger } from './io.ts';

export interface QuestionReviewFlags {
  questions: string;
  documents?: string;
  port?: string;
  /** false with --no-open */
  open?: boolean;
  write?: string;
  summary?: boolean;
  order?: string;
  seed?: string;
  index?: string;
}

/** What a test or a wiring of the generator's verification injects: the re-verification of an edit. */
export interface QuestionReviewDeps {
  reverify?: Reverify;
}

export function registerQuestionReviewCommand(questions: Command, io: CliIO): void {
  questions
    .command('review')
    .description(
      'review generated questions in a local page (127.0.0.1), keyboard first: accept, edit (re-verified ' +
        'before it is kept) or reject each; decisions are appended to <questions>.review.jsonl and resume ' +
        'where they stopped. --summary prints the review so far; --write writes the approved questions',
    )
    .requiredOption('--questions <file>', 'the generated questions (JSONL)')
    .option('--documents <dir>', 'the documents folder the gold quotes are in (to serve the page)')
    .option(
      '--index <dir>',
      'the index the questions were generated on: an edit is verified again as a candidate is (default: <questions>.index beside the file, when there; else only its quotes are checked in the documents)',
    )
    .option('--order <order>', 'random (seeded, the default: the reviewed ones are a random sample) | file')
    .option('--seed <seed>', "the random order's seed (default: a fresh one, recorded in the review file)")
    .option('--port <n>', 'port on 127.0.0.1 (0: any free port)', '0')
    .option('--no-open', 'do not open the page in a browser')
    .option('--summary', 'print the review so far and exit')
    .option('--write <file>', 'write the accepted and edited questions to this JSONL and exit')
    .action(async (flags: QuestionReviewFlags) => {
      if (flags.write !== undefined || flags.summary) return questionReviewReport(flags, io);
      const server = await startQuestionReview(flags, io);
      if (flags.open !== false) openInBrowser(server.url);
      const { untilInterrupted } = await import('./interrupt.ts');
      await untilInterrupted();
      await server.close();
      io.out('stopped; every decision is saved\n');
    });
}

/** A path as the user gave it: relative to the working folder when inside it. */
function shown(io: CliIO, file: string): string {
  const rel = relative(io.cwd, file);
  return rel && !rel.startsWith('..') ? rel : file;
}

/** The questions file's questions, whose ids must be unique (a decision is about one id). */
async function reviewedQuestions(io: CliIO, flag: string): Promise<{ file: string; questions: Question[] }> {
  const { loadQuestions } = await import('../questions/load.ts');
  const file = existingPath(io.cwd, '--questions', flag, 'file');
  const records = await loadQuestions(file);
  const seen = new Map<string, number>();
  for (const { line, value } of records) {
    const first = seen.get(value.id);
    if (first !== undefined)
      throw new RgeError(`id ${value.id} is also on line ${first}: a review needs unique ids`, {
        file: shown(io, file),
        line,
      });
    seen.set(value.id, line);
  }
  if (records.length === 0) throw new RgeError('no questions to review', { file: shown(io, file) });
  return { file, questions: records.map((r) => r.value) };
}

/** The review order: as recorded in the review file; else as the flags say (random with a fresh seed by default). */
async function orderOf(flags: QuestionReviewFlags, recorded: { order: string; seed: string | null } | null) {
  const { freshSeed } = await import('../questions/review/index.ts');
  if (flags.order !== undefined && flags.order !== 'random' && flags.order !== 'file')
    throw new UsageError(`--order must be random or file, got "${flags.order}"`);
  if (flags.order === 'file' && flags.seed !== undefined)
    throw new UsageError('--seed is for --order random; file order has no seed');
  if (recorded) {
    const differs =
      (flags.order !== undefined && flags.order !== recorded.order) ||
      (flags.seed !== undefined && flags.seed !== recorded.seed);
    if (differs)
      throw new UsageError(
        `this review is in ${recorded.order} order${recorded.seed ? ` (seed ${recorded.seed})` : ''}, as its review file records; ` +
          'drop --order and --seed to resume it, or move the review file away to start again',
      );
    return { order: recorded.order as 'random' | 'file', seed: recorded.seed, fresh: false };
  }
  const order = (flags.order ?? 'random') as 'random' | 'file';
  return { order, seed: order === 'random' ? (flags.seed ?? freshSeed()) : null, fresh: true };
}

/**
 * The generator's verification over the index the questions were generated on (`--index`, else
 * `<questions>.index` beside the file), or null when there is none (then the page checks quotes only).
 */
async function indexReverify(
  io: CliIO,
  flags: QuestionReviewFlags,
  questionsFile: string,
): Promise<Reverify | null> {
  const { existsSync } = await import('node:fs');
  const { basename, dirname, extname, join } = await import('node:path');
  const dir =
    flags.index !== undefined
      ? existingPath(io.cwd, '--index', flags.index, 'folder')
      : join(dirname(questionsFile), `${basename(questionsFile, extname(questionsFile))}.index`);
  if (!existsSync(join(dir, 'manifest.json'))) {
    if (flags.index !== undefined)
      throw new UsageError('not a built index (no manifest.json)', { file: flags.index });
    return null;
  }
  const { loadIndexChunks } = await import('../questions/load.ts');
  const { readIndexManifest } = await import('../retrieval/store.ts');
  const { QuoteIndex } = await import('../questions/generate/verify/quote-index.ts');
  const { bm25TopK } = await import('../run/generate/retrievers.ts');
  const { verificationReverify } = await import('../questions/generate/reverify.ts');
  const { detectLanguage, documentLanguage } = await import('../corpus/formats/language.ts');
  const chunks = await loadIndexChunks(dir);
  const bySource = new Map<string, typeof chunks>();
  for (const c of chunks) bySource.set(c.source, [...(bySource.get(c.source) ?? []), c]);
  const languages = new Map(
    [...bySource].map(([source, cs]) => {
      const l = documentLanguage(cs);
      return [source, l.reliable ? l.language : null] as const;
    }),
  );
  io.err(
    `rge questions review: edits are verified again against ${shown(io, dir)} (${chunks.length} chunks)\n`,
  );
  return verificationReverify({
    quotes: new QuoteIndex(chunks, { pageless: (source) => !source.toLowerCase().endsWith('.pdf') }),
    retrievers: [bm25TopK(chunks)],
    language: { detect: detectLanguage, documents: languages },
    documentOf: (source) => bySource.get(source)?.[0] ?? null,
    indexChecksum: (await readIndexManifest(dir))?.checksum ?? null,
  });
}

/** `rge questions review` without the wait: starts the page's server over the questions and prints its URL. */
export async function startQuestionReview(
  flags: QuestionReviewFlags,
  io: CliIO,
  deps: QuestionReviewDeps = {},
): Promise<LocalServer> {
  const review = await import('../questions/review/index.ts');
  const { setAsideTornTail } = await import('../util/jsonl-append.ts');
  if (flags.documents === undefined)
    throw new UsageError('--documents DIR is needed to show each gold quote in its document');
  const port = nonNegativeInteger('port', flags.port ?? '0') ?? 0;
  if (port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`);
  const documents = existingPath(io.cwd, '--documents', flags.documents, 'folder');
  const { file: questionsFile, questions } = await reviewedQuestions(io, flags.questions);
  const file = review.reviewFileOf(questionsFile);
  const cut = await setAsideTornTail(file);
  if (cut)
    io.err(
      `rge questions review: note: ${shown(io, file)}:${cut.line}: a cut-off last line (a decision being saved when rge stopped) was moved to ${shown(io, `${file}.torn`)}\n`,
    );
  const ledger = await review.readReviewLedger(file);
  const { fresh, ...order } = await orderOf(flags, ledger.order);
  if (fresh) await review.appendReviewRecord(file, { kind: 'order', ...order, at: new Date().toISOString() });
  const read = review.documentReader(documents);
  const session = review.questionReviewSession({
    questions,
    file,
    order,
    read,
    reverify:
      deps.reverify ?? (await indexReverify(io, flags, questionsFile)) ?? review.quotesInDocuments(read),
    title: shown(io, questionsFile),
  });
  const server = await review.startQuestionReviewServer(session, {
    port,
    onError: (m) => io.err(`rge questions review: ${m}\n`),
  });
  const state = await session.state();
  io.out(
    `reviewing ${questions.length} questions of ${shown(io, questionsFile)} in ${order.order} order` +
      `${order.seed ? ` (seed ${order.seed})` : ''}: ${state.summary.reviewed} decided so far; decisions go to ${shown(io, file)}\n` +
      `open ${server.url}  (Ctrl-C stops)\n`,
  );
  return server;
}

/** `--summary` and `--write`: what the review file says, and the approved questions written. */
export async function questionReviewReport(flags: QuestionReviewFlags, io: CliIO): Promise<void> {
  if (flags.write !== undefined && flags.summary)
    throw new UsageError('give --summary or --write, not both (--write prints its counts)');
  const review = await import('../questions/review/index.ts');
  const { file: questionsFile, questions } = await reviewedQuestions(io, flags.questions);
  const file = review.reviewFileOf(questionsFile);
  const ledger = await review.readReviewLedger(file);
  const { decided, stale } = review.currentDecisions(ledger, questions);
  if (flags.summary) {
    const order = ledger.order ?? { order: 'file' as const, seed: null };
    const summary = review.reviewSummary({
      order: review.reviewOrder(questions, order),
      decided,
      reviewOrder: ledger.order,
      stale: stale.length,
    });
    io.out(`${review.formatReviewSummary(summary).join('\n')}\n`);
    return;
  }
  await writeApproved(
    io,
    { file, questionsFile, questions, decided, stale: stale.length },
    flags.write as string,
  );
}

async function writeApproved(
  io: CliIO,
  r: {
    file: string;
    questionsFile: string;
    questions: Question[];
    decided: Map<string, LedgerDecision>;
    stale: number;
  },
  target: string,
): Promise<void> {
  const { approvedQuestions } = await import('../questions/review/index.ts');
  const { writeFileAtomic } = await import('../util/fs.ts');
  const set = approvedQuestions(r.questions, r.decided);
  const counts =
    `${set.accepted} accepted, ${set.edited} edited, ${set.rejected} rejected, ${set.unreviewed} unreviewed` +
    `${r.stale > 0 ? `, ${r.stale} stale decision(s) not counted` : ''}`;
  if (set.questions.length === 0)
    throw new RgeError(
      `nothing to write: no question of ${shown(io, r.questionsFile)} is accepted or edited in ${shown(io, r.file)} (${counts}); ` +
        `review them first: rge questions review --questions ${shown(io, r.questionsFile)} --documents DIR`,
    );
  const out = resolve(io.cwd, target);
  await writeFileAtomic(out, set.questions.map((q) => `${JSON.stringify(q)}\n`).join(''));
  io.out(`wrote ${set.questions.length} questions to ${shown(io, out)} (${counts})\n`);
}

/** Opens a URL in the desktop's browser, if there is one; a failure to is not an error (the URL is printed). */
function openInBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // no browser to open: the printed URL is enough
  }
}
