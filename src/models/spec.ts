/**
 * What the registry builds from: a subject or judge entry of the run config, its provider name and the
 * context it is built in. The entry types are the zod schemas' own (`Subject`, `Judge`: their
 * `z.infer`), so a field added to a schema is a field the builders see, and a provider name added to
 * an enum is a name the table of kinds (kinds.ts) must have.
 */
import type { Judge } from '../judging/config.ts';
import type { LiveProvider } from '../providers/catalogue.ts';
import type { ProviderSettings } from '../providers/config.ts';
import type { ProviderLimiter, Spender } from '../providers/metered.ts';
import type { Subject } from '../subject/config.ts';

/** A provider name a subject may have (`SUBJECT_PROVIDERS`). */
export type SubjectProviderName = Subject['provider'];
/** A provider name a judge may have (`JUDGE_PROVIDERS`). */
export type JudgeProviderName = Judge['provider'];
/** Every provider name a run config may give a subject or a judge: the keys of the table of kinds. */
export type ProviderName = SubjectProviderName | JudgeProviderName;

/**
 * What a model entry is built for: a subject answers, a judge judges, a generator writes candidate
 * questions (`rge questions generate`). The ledger books each call under its role, so what question
 * generation cost is never counted as a subject's answers.
 */
export type Role = 'subject' | 'judge' | 'generator';

/** A model entry of the run config (a subject or a judge), with the parameters it states. */
export type ModelSpec = Subject | Judge;

/**
 * A system subject entry of the run config (src/subject/config.ts: provider module, http or command, the
 * names whose entry in the table of kinds is a system's); its fields are the subject schema's.
 */
export type SystemSpec = Subject;

/** Per-provider settings of the run config (`providers:`), defaults applied. */
export type ProviderSettingsSpec = ProviderSettings;

export interface RegistryContext {
  /** the repository root; relative files are resolved against it */
  root: string;
  /** environment (process env over .env) */
  env: Record<string, string | undefined>;
  settings: Partial<Record<LiveProvider, ProviderSettingsSpec>>;
  /** the budget; null for a dry run (nothing is called) */
  spender: Spender | null;
  /** false for a dry run: no key is needed because nothing is called */
  requireKeys: boolean;
  onRetry?: (message: string) => void;
  /** one limiter per provider account, shared by all its models */
  limiters?: Map<string, ProviderLimiter>;
}
