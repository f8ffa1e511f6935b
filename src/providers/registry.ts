/**
 * Subjects by their run-config entry. `createSubjectProvider` is the one place a subject's provider is
 * built: `offline` (model `extractive` or `eager`, the baselines) and `replay` (answers recorded in
 * `replay_file`). The live providers (`anthropic`, `openai`, `gemini`) are named in the config schema
 * already but arrive in a later issue; asking for one is a clear error, not a silent fallback.
 *
 * The provider's family is the config's `family` for the subject (the cross-family panel reads the
 * config, so the two must agree); the defaults below apply only when a provider is built directly.
 */
import { isAbsolute, resolve } from 'node:path';
import type { Subject } from '../run/config.ts';
import { RgeError } from '../util/errors.ts';
import { EAGER_FAMILY, EXTRACTIVE_FAMILY } from './offline/common.ts';
import { EagerProvider } from './offline/eager.ts';
import { ExtractiveProvider } from './offline/extractive.ts';
import { REPLAY_FAMILY, ReplayProvider } from './replay.ts';
import type { Provider } from './types.ts';

export const OFFLINE_SUBJECT_MODELS = ['extractive', 'eager'] as const;
export type OfflineSubjectModel = (typeof OFFLINE_SUBJECT_MODELS)[number];

/** The default family of each subject provider that exists today (live providers: a later issue). */
export const SUBJECT_FAMILIES = {
  'offline/extractive': EXTRACTIVE_FAMILY,
  'offline/eager': EAGER_FAMILY,
  replay: REPLAY_FAMILY,
} as const;

export const LIVE_PROVIDERS = ['anthropic', 'openai', 'gemini'] as const;

export interface CreateSubjectOptions {
  /** the repository root; a relative `replay_file` is resolved against it */
  root: string;
}

export function isOfflineSubjectModel(model: string): model is OfflineSubjectModel {
  return (OFFLINE_SUBJECT_MODELS as readonly string[]).includes(model);
}

/** The provider that answers for a subject of the run config. */
export async function createSubjectProvider(subject: Subject, opts: CreateSubjectOptions): Promise<Provider> {
  switch (subject.provider) {
    case 'offline': {
      if (subject.model === 'extractive') return new ExtractiveProvider({ family: subject.family });
      if (subject.model === 'eager') return new EagerProvider({ family: subject.family });
      throw new RgeError(
        `subject ${subject.id}: no offline model ${subject.model}: one of ${OFFLINE_SUBJECT_MODELS.join(', ')}`,
      );
    }
    case 'replay': {
      if (subject.replay_file === undefined)
        throw new RgeError(`subject ${subject.id}: provider replay needs replay_file`);
      const file = isAbsolute(subject.replay_file)
        ? subject.replay_file
        : resolve(opts.root, subject.replay_file);
      return ReplayProvider.load(file, { family: subject.family, id: `replay/${subject.model}` });
    }
    case 'anthropic':
    case 'openai':
    case 'gemini':
      throw new RgeError(
        `subject ${subject.id}: provider ${subject.provider}: live providers arrive in a later issue; use offline or replay`,
      );
    default: {
      const never: never = subject.provider;
      throw new RgeError(`subject ${subject.id}: unknown provider ${String(never)}`);
    }
  }
}
