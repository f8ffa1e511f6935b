/**
 * AttributionBench (OSU-NLP-Group/AttributionBench): the `claim` is the answer, the `references` the
 * chunks; the subset is the item's source dataset (`src_dataset`). People: attributable / not
 * attributable. Judge: grounded when grounding >= 1, because the rubric's 1 is "supported by the chunks
 * but not (precisely) cited", which an uncited claim that the references hold is; 0 means a material
 * claim is unsupported.
 */
import { z } from 'zod';
import {
  type AgreementItem,
  jsonLines,
  labelledInput,
  parseWith,
  referenceChunk,
  UNNAMED_SUBSET,
} from './datasets.ts';

const AttributionRow = z.looseObject({
  id: z.string().optional(),
  question: z.string().nullable().optional(),
  claim: z.string(),
  references: z.array(z.string()),
  attribution_label: z.enum(['attributable', 'not attributable']),
  src_dataset: z.string().optional(),
});

/** AttributionBench JSONL: one claim against its references per line; the subset is `src_dataset`. */
export function attributionBenchItems(text: string, file: string): AgreementItem[] {
  return jsonLines(text, file).map(({ line, value }) => {
    const row = parseWith(AttributionRow, value, file, line);
    const id = row.id ?? `line-${line}`;
    const chunks = row.references.map((r, i) => referenceChunk(`ref-${i + 1}`, r));
    return {
      id,
      input: labelledInput(id, row.question ?? '', 'attributionbench', row.claim, chunks),
      human: row.attribution_label === 'attributable' ? 1 : 0,
      subset: row.src_dataset || UNNAMED_SUBSET,
    };
  });
}
