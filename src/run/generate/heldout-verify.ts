/**
 * Verification of generated questions measured on documents and questions it was not written from
 * (issue 55): the staged FinanceBench filings ingested into a BM25 index exactly as `rge questions
 * generate` builds one (`ingestSourceFolder`), FinanceBench's questions turned into candidates and
 * labelled by questions/generate/heldout.ts, bad variants planted, and everything verified as the
 * command verifies (`verifyCandidates`: the quote index with the pages, BM25 top k, the language check,
 * no coverage target). Each form of candidate and each kind of planted variant is verified in a call of
 * its own, so that a variant is never a near-duplicate of its parent. Split by FinanceBench id
 * (`financeBenchSplit`).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { detectLanguage } from '../../corpus/formats/language.ts';
import type { Chunk } from '../../corpus/schema.ts';
import type { SourceDocumentText } from '../../ingest/source-documents.ts';
import { ingestSourceFolder } from '../../ingest/source-folder.ts';
import { financeBenchSplit } from '../../questions/evidence-page.ts';
import { loadFinanceBench, parseFinanceBenchFigure } from '../../questions/financebench.ts';
import type { Candidate, RejectionReason } from '../../questions/generate/candidate.ts';
import {
  type HeldOutCase,
  type HeldOutForm,
  type HeldOutQuestion,
  heldOutCases,
  type Planted,
  plainForm,
  plantBad,
  tallyHeldOut,
} from '../../questions/generate/heldout.ts';
import { QuoteIndex } from '../../questions/generate/verify/quote-index.ts';
import { type VerifyResult, verifyCandidates } from '../../questions/generate/verify/verify.ts';
import { loadIndexChunks } from '../../questions/load.ts';
import { RgeError } from '../../util/errors.ts';
import { bm25TopK } from './retrievers.ts';

export const FINANCEBENCH_QUESTIONS = 'financebench_open_source.jsonl';

export interface HeldOutMeasurement {
  cases: HeldOutCase[];
  planted: Planted[];
  /** each candidate's rejection reason (null: kept), by the candidate object */
  reasons: Map<Candidate, { reason: RejectionReason; message: string } | null>;
  tally: ReturnType<typeof tallyHeldOut>;
  /** questions left out: their document is not staged, or they have no answer */
  skipped: number;
  documents: number;
  chunks: number;
}

/** The FinanceBench questions whose every evidence is in a staged document, as the held-out file reads them. */
async function heldOutQuestions(fbDir: string, staged: ReadonlySet<string>) {
  const records = await loadFinanceBench(join(fbDir, FINANCEBENCH_QUESTIONS));
  const questions: { q: HeldOutQuestion; numeric: ReturnType<typeof parseFinanceBenchFigure> }[] = [];
  for (const r of records) {
    const document = `${r.doc_name}.pdf`;
    if (!r.answer?.trim() || !staged.has(document) || r.evidence.some((e) => e.doc_name !== r.doc_name))
      continue;
    questions.push({
      q: {
        id: r.financebench_id,
        split: financeBenchSplit(r.financebench_id),
        document,
        question: r.question,
        answer: r.answer,
        evidence: r.evidence.map((e) => ({ page: e.evidence_page_num + 1, text: e.evidence_text })),
      },
      numeric: parseFinanceBenchFigure(r.answer, r.question),
    });
  }
  return { questions, skipped: records.length - questions.length };
}

/** Whether a document prints a text, by the held-out file's own normal form (each document's form built once). */
function printedBy(documents: readonly SourceDocumentText[]) {
  const forms = new Map<string, string>();
  return (document: string, text: string): boolean => {
    let form = forms.get(document);
    if (form === undefined) {
      const d = documents.find((x) => x.source === document);
      form = d ? plainForm(d.pages.map((p) => p.text).join('\n')) : '';
      forms.set(document, form);
    }
    const needle = plainForm(text);
    return needle !== '' && form.includes(needle);
  };
}

/** Ingests `fbDir/pdfs` into `workDir/index`, builds, plants and verifies; the tally per split. */
export async function measureHeldOutVerification(
  fbDir: string,
  opts: { workDir: string; cacheDir: string },
): Promise<HeldOutMeasurement> {
  if (!existsSync(join(fbDir, FINANCEBENCH_QUESTIONS)))
    throw new RgeError(`no ${FINANCEBENCH_QUESTIONS} in ${fbDir}`);
  const indexDir = join(opts.workDir, 'index');
  const { documents } = await ingestSourceFolder(join(fbDir, 'pdfs'), {
    indexDir,
    embedder: 'bm25',
    cacheDir: opts.cacheDir,
  });
  const chunks = await loadIndexChunks(indexDir);
  const printed = printedBy(documents);
  const { questions, skipped } = await heldOutQuestions(fbDir, new Set(documents.map((d) => d.source)));
  const cases = questions.flatMap(({ q, numeric }) =>
    heldOutCases(
      q,
      (text) => printed(q.document, text),
      coveringChunks(chunks, q),
      numeric
        ? [{ label: 'FinanceBench gold answer', value: numeric.value, unit: numeric.unit, tolerance: 0.01 }]
        : [],
    ),
  );
  const ctx = { printed, documents: documents.map((d) => d.source) };
  const planted = cases.filter((c) => c.label === 'good').flatMap((c) => plantBad(c, ctx));
  const verify = verifier(chunks, documents);
  const reasons: HeldOutMeasurement['reasons'] = new Map();
  const groups: Candidate[][] = [
    ...(['whole-evidence', 'evidence-lines'] as HeldOutForm[]).map((f) =>
      cases.filter((c) => c.form === f).map((c) => c.candidate),
    ),
    ...[...new Set(planted.map((p) => p.kind))].map((k) =>
      planted.filter((p) => p.kind === k).map((p) => p.candidate),
    ),
  ];
  for (const group of groups) {
    const result = await verify(group);
    const byId = new Map(result.rejections.map((r) => [r.candidate, r]));
    for (const c of group) {
      const r = byId.get(c.id);
      reasons.set(c, r ? { reason: r.reason, message: r.message } : null);
    }
  }
  const tally = tallyHeldOut(cases, planted, { reason: (c) => reasons.get(c)?.reason ?? null });
  return { cases, planted, reasons, tally, skipped, documents: documents.length, chunks: chunks.length };
}

/** The chunks of the question's document that cover one of its evidence pages. */
function coveringChunks(chunks: readonly Chunk[], q: HeldOutQuestion): string[] {
  return chunks
    .filter(
      (c) => c.source === q.document && q.evidence.some((e) => c.pages[0] <= e.page && e.page <= c.pages[1]),
    )
    .map((c) => c.id);
}

/** `verifyCandidates` as `rge questions generate` calls it over this index. */
function verifier(chunks: readonly Chunk[], documents: readonly SourceDocumentText[]) {
  const quotes = new QuoteIndex(chunks, { pages: new Map(documents.map((d) => [d.source, d.pages])) });
  const retrievers = [bm25TopK(chunks)];
  const language = {
    detect: detectLanguage,
    documents: new Map(documents.map((d) => [d.source, d.language])),
  };
  return (candidates: readonly Candidate[]): Promise<VerifyResult> =>
    verifyCandidates({ candidates, quotes, retrievers, language, target: null, maxShare: null });
}
