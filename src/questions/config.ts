/** The question set's section of the run config (composed by src/run/config/config.ts). */
import { z } from 'zod';
import { Path } from '../util/config-fields.ts';

export const QuestionsSettings = z.strictObject({ file: Path, version: z.number().int().min(1) });
