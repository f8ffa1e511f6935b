/**
 * SALAD (LFQA-Verification): one case per answer sentence, the chunks are the question's documents
 * (`docs-webgpt.json`, or `docs-human.json` for the `gpt3_whudoc` setting); the subset is the setting
 * (the annotations file's stem without `annotations-`). People: supported when a majority (2 of 3) of
 * the annotators said `supported` ("partially" counts as not supported, the binary reading of the SALAD
 * paper). Judge: as attributionbench, grounding >= 1.
 */
import { basename } from 'node:path';
import { z } from 'zod';
import { RgeError } from '../util/errors.ts';
import { type AgreementItem, labelledInput, parseWith, referenceChunk } from './datasets.ts';

const SaladAnnotations = z.array(
  z.looseObject({
    question_id: z.union([z.number(), z.string()]),
    question: z.string(),
    annotations: z.array(z.looseObject({ labels: z.array(z.string()).min(1), answer: z.string() })),
  }),
);
const SaladDocs = z.array(
  z.looseObject({
    question_id: z.union([z.number(), z.string()]),
    docs: z.array(z.looseObject({ doc_id: z.string(), title: z.string().optional(), text: z.string() })),
  }),
);

/** The documents file a SALAD annotations file is judged against (see ../shared/labels/MANIFEST.md). */
export function saladDocsFileName(annotationsFile: string): string {
  return /whudoc/i.test(annotationsFile) ? 'docs-human.json' : 'docs-webgpt.json';
}

/** Majority of the annotators said `supported` (partially = not supported). */
export function saladSupported(labels: readonly string[]): boolean {
  return labels.filter((l) => l === 'supported').length * 2 > labels.length;
}

/** The SALAD setting of an annotations file: its stem without `annotations-` (`annotations-gpt3.json`: gpt3). */
export function saladSetting(annotationsFile: string): string {
  return basename(annotationsFile)
    .replace(/\.json$/i, '')
    .replace(/^annotations-/, '');
}

/**
 * SALAD: one item per annotated answer sentence, against its question's documents; the subset is the
 * setting (by default the file's, `saladSetting(file)`).
 */
export function saladItems(
  annotationsText: string,
  docsText: string,
  file: string,
  setting: string = saladSetting(file),
): AgreementItem[] {
  const annotations = parseWith(SaladAnnotations, JSON.parse(annotationsText), file);
  const docs = parseWith(SaladDocs, JSON.parse(docsText), `${file} (documents)`);
  const byQuestion = new Map(docs.map((d) => [String(d.question_id), d.docs]));
  const items: AgreementItem[] = [];
  for (const answer of annotations) {
    const qid = String(answer.question_id);
    const qdocs = byQuestion.get(qid);
    if (!qdocs) throw new RgeError(`question ${qid} has no documents`, { file });
    const chunks = qdocs.map((d) => referenceChunk(d.doc_id, d.text, { heading: d.title ?? null }));
    answer.annotations.forEach((a, i) => {
      const id = `q${qid}-s${i + 1}`;
      items.push({
        id,
        input: labelledInput(id, answer.question, 'salad', a.answer.trim(), chunks),
        human: saladSupported(a.labels) ? 1 : 0,
        subset: setting,
      });
    });
  }
  return items;
}
