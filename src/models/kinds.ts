/**
 * The table of kinds (docs/adr/0036-table-of-kinds.md): for every provider name a run config may give
 * a subject or a judge,
 * - its **kind**: `offline` (rge's own code: an offline baseline subject, a heuristic judge), `replay`
 *   (answers recorded in a file), `live` (a vendor's API), `openai-compatible` (any server that speaks
 *   OpenAI's chat completions) or `system` (a user's own RAG system: a module's function, an HTTP
 *   endpoint, a command, or its logged traces, answered from the log with no call);
 * - its **roles**: subject, judge or both (the config's enums say which; the table's type holds it to them);
 * - its **identity**: what identifies its stored answers besides the question, run index and seed;
 * - its **builder**, which imports its module only when a run has such a model (a vendor's SDK takes
 *   0.1-0.3 s to load; the CLI and offline runs never load one), as inspect_ai's registry does.
 *
 * The table is typed over the config's provider names (`KindTable`), so a name added to a config enum
 * does not compile until it has its entry here (a live name also its key variables and its sampling
 * contract). The plan records each subject's and judge's kind (`PlannedModel.kind`); everything after
 * the plan reads it there, and what has no plan (a raw config, a stored record) looks its name up here.
 */
import { isAbsolute, resolve } from 'node:path';
import { type LiveProvider, OFFLINE_SUBJECT_MODELS } from '../providers/catalogue.ts';
import type { Vendor } from '../providers/credentials.ts';
import type { LiveAdapter, LiveAdapterOptions } from '../providers/live/adapter.ts';
import type { Provider } from '../providers/types.ts';
import type { SystemProvider } from '../subject/config.ts';
import type { SystemUnderTest } from '../system/contract.ts';
import { RgeError } from '../util/errors.ts';
import type {
  JudgeProviderName,
  ModelSpec,
  ProviderName,
  Role,
  SubjectProviderName,
  SystemSpec,
} from './spec.ts';
import type { SystemBuildContext } from './systems.ts';

/**
 * What identifies a stored answer, and the verdicts of it, besides the question, the run index and the
 * seed (src/store/cells.ts):
 * - `model`: the provider, model and version, and the hash of rge's request to it, with rge's retrieval
 *   (index checksum, k);
 * - `model+endpoint`: the same and the server's base URL (two servers may serve one model name differently);
 * - `subject`: the subject's own id and version and the hash of the question it is asked (its `model`
 *   is a label another subject may share); no retrieval of rge's.
 */
export type Identity = 'model' | 'model+endpoint' | 'subject';

interface KindEntry<K extends string, R extends readonly Role[]> {
  kind: K;
  /** the roles the config's enums allow it */
  roles: R;
  identity: Identity;
}

/** rge's own code, or a file of recorded answers: built in this process, free, its id and version its own. */
export interface ModelKind extends KindEntry<'offline' | 'replay', readonly Role[]> {
  /** what an entry in a role it does not take should use instead */
  instead?: string;
  build: (spec: ModelSpec, who: string, root: string) => Promise<Provider>;
}

/** A model behind an API: metered (priced, rate-limited, retried, budgeted), its key checked before any call. */
export interface LiveKind extends KindEntry<'live' | 'openai-compatible', readonly ['subject', 'judge']> {
  /** whether its calls may go in a batch (its adapter has a batch API) */
  batch: boolean;
  /**
   * Its adapter. `options` (key, base URL, timeout, contract) is called once the adapter's module is
   * loaded, so a missing key stops a run after the SDK loads, as it always has.
   */
  adapter: (options: () => LiveAdapterOptions) => Promise<LiveAdapter>;
}

/** A user's own RAG system (src/system): asked its question, it retrieves for itself. */
export interface SystemKind extends KindEntry<'system', readonly ['subject']> {
  build: (spec: SystemSpec, ctx: SystemBuildContext) => Promise<SystemUnderTest>;
}

export type Kind = ModelKind | LiveKind | SystemKind;
export type KindName = Kind['kind'];

/**
 * What each kind is, whatever its provider name: what identifies its answers (`Identity`) and whether
 * its calls are metered. Typed over the kinds, so a new kind does not compile until it says both.
 */
export const KIND_TRAITS = {
  offline: { identity: 'model', metered: false },
  replay: { identity: 'model', metered: false },
  live: { identity: 'model', metered: true },
  'openai-compatible': { identity: 'model+endpoint', metered: true },
  system: { identity: 'subject', metered: false },
} as const satisfies Record<KindName, { identity: Identity; metered: boolean }>;

/** The roles a provider name has in the config's enums. */
type RolesOf<N> = N extends SubjectProviderName
  ? N extends JudgeProviderName
    ? readonly ['subject', 'judge']
    : readonly ['subject']
  : readonly ['judge'];

/**
 * The entry a provider name must have: `live` for a vendor (a name of `LIVE_PROVIDERS` with its own key
 * variables), `openai-compatible` for the other live name, a system's for a name of `SYSTEM_PROVIDERS`,
 * rge's own otherwise; with the roles the config's enums give the name.
 */
type EntryFor<N extends string> = (N extends Vendor
  ? LiveKind & { kind: 'live' }
  : N extends LiveProvider
    ? LiveKind & { kind: 'openai-compatible' }
    : N extends SystemProvider
      ? SystemKind
      : ModelKind) & { roles: RolesOf<N> };

/** A table of kinds over these provider names (the config's, unless a test adds one). */
export type KindTable<N extends string = ProviderName> = { readonly [P in N]: EntryFor<P> };

const SUBJECT = ['subject'] as const;
const JUDGE = ['judge'] as const;
const BOTH = ['subject', 'judge'] as const;

/** A vendor's API (its key and base URL variables: src/providers/credentials.ts). */
const vendor = (batch: boolean, adapter: LiveKind['adapter']) =>
  ({ kind: 'live', roles: BOTH, identity: KIND_TRAITS.live.identity, batch, adapter }) as const;

/** A way a user's system is reached (its builder: systems.ts, imported when a run has such a subject). */
const system = (build: SystemKind['build']) =>
  ({ kind: 'system', roles: SUBJECT, identity: KIND_TRAITS.system.identity, build }) as const;

/** The offline baselines (src/providers/offline), by model. */
async function offlineBaseline(spec: ModelSpec, who: string): Promise<Provider> {
  if (spec.model === 'extractive') {
    const { ExtractiveProvider } = await import('../providers/offline/extractive.ts');
    return new ExtractiveProvider({ family: spec.family });
  }
  if (spec.model === 'eager') {
    const { EagerProvider } = await import('../providers/offline/eager.ts');
    return new EagerProvider({ family: spec.family });
  }
  throw new RgeError(`${who}: no offline model ${spec.model}: one of ${OFFLINE_SUBJECT_MODELS.join(', ')}`);
}

/** A file of recorded answers, relative to the root (src/providers/replay.ts). */
async function replayFile(spec: ModelSpec, who: string, root: string): Promise<Provider> {
  const file = 'replay_file' in spec ? spec.replay_file : undefined;
  if (file === undefined) throw new RgeError(`${who}: provider replay needs replay_file`);
  const { ReplayProvider } = await import('../providers/replay.ts');
  return ReplayProvider.load(isAbsolute(file) ? file : resolve(root, file), {
    family: spec.family,
    id: `replay/${spec.model}`,
  });
}

/** The table of kinds: one entry per provider name of the run config. */
export const KINDS = {
  offline: {
    kind: 'offline',
    roles: SUBJECT,
    identity: KIND_TRAITS.offline.identity,
    instead: 'judges use heuristic',
    build: offlineBaseline,
  },
  heuristic: {
    kind: 'offline',
    roles: JUDGE,
    identity: KIND_TRAITS.offline.identity,
    build: async (spec) => (await import('../judging/heuristic/index.ts')).heuristicJudge(spec.model),
  },
  replay: { kind: 'replay', roles: SUBJECT, identity: KIND_TRAITS.replay.identity, build: replayFile },
  anthropic: vendor(true, async (options) => {
    const { AnthropicAdapter } = await import('../providers/live/anthropic.ts');
    return new AnthropicAdapter(options());
  }),
  openai: vendor(true, async (options) => {
    const { OpenAIAdapter } = await import('../providers/live/openai.ts');
    return new OpenAIAdapter({ provider: 'openai', ...options() });
  }),
  gemini: vendor(true, async (options) => {
    const { GeminiAdapter } = await import('../providers/live/gemini.ts');
    return new GeminiAdapter(options());
  }),
  'openai-compatible': {
    kind: 'openai-compatible',
    roles: BOTH,
    identity: KIND_TRAITS['openai-compatible'].identity,
    // its endpoint is whatever server the config names: no batch API is assumed
    batch: false,
    adapter: async (options) => {
      const { OpenAIAdapter } = await import('../providers/live/openai.ts');
      return new OpenAIAdapter({ provider: 'openai-compatible', ...options() });
    },
  },
  module: system(async (spec, ctx) => (await import('./systems.ts')).moduleWay(spec, ctx)),
  http: system(async (spec, ctx) => (await import('./systems.ts')).httpWay(spec, ctx)),
  command: system(async (spec, ctx) => (await import('./systems.ts')).commandWay(spec, ctx)),
  'logged-traces': system(async (spec, ctx) => (await import('./systems.ts')).loggedTracesWay(spec, ctx)),
} satisfies KindTable;

/** The entry of a provider name of the run config. */
export function kindOf(provider: ProviderName): Kind {
  return KINDS[provider];
}

/** The entry of a provider name read from elsewhere (a raw config, a stored record); undefined for an unknown one. */
export function findKind(provider: string): Kind | undefined {
  return Object.hasOwn(KINDS, provider) ? KINDS[provider as ProviderName] : undefined;
}

/** Whether a kind's calls are metered (priced, rate-limited, budgeted; a key needed): the live kinds. */
export const isMetered = (kind: KindName): boolean => KIND_TRAITS[kind].metered;

/** Whether a kind answers from rge's index (its answers are keyed by rge's request): all but a system. */
export const answersFromIndex = (kind: KindName): boolean => KIND_TRAITS[kind].identity !== 'subject';

/** Whether a provider's calls may go in a batch (a live provider whose adapter has a batch API). */
export function hasBatchApi(provider: string): boolean {
  const entry = findKind(provider);
  return entry !== undefined && 'batch' in entry && entry.batch;
}
