/**
 * The table of kinds (src/models/kinds.ts, docs/adr/0036-table-of-kinds.md): one entry per provider name
 * of the run config, and a name added to a config enum does not compile until every place that must
 * handle it does. The type-level half is checked by `npm run typecheck` (tsc reads test/): each
 * `@ts-expect-error` below is a compile error that must stay one, so a table that stopped being keyed by
 * the enums would fail the typecheck.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { JUDGE_PROVIDERS } from '../../src/judging/config.ts';
import { KIND_TRAITS, KINDS, type Kind, type KindTable, kindOf } from '../../src/models/kinds.ts';
import type { ProviderName } from '../../src/models/spec.ts';
import { LIVE_PROVIDERS, type LiveProvider } from '../../src/providers/catalogue.ts';
import { LIVE_CONTRACTS } from '../../src/providers/contract.ts';
import { BASE_URL_VARIABLES, KEY_VARIABLES, type Vendor } from '../../src/providers/credentials.ts';
import { SUBJECT_PROVIDERS, SYSTEM_PROVIDERS, type SystemProvider } from '../../src/subject/config.ts';

const NAMES: readonly string[] = [...new Set<string>([...SUBJECT_PROVIDERS, ...JUDGE_PROVIDERS])];

describe('the table of kinds', () => {
  it('has one entry per provider name of the run config, and no other', () => {
    expect(Object.keys(KINDS).sort()).toEqual([...NAMES].sort());
    expectTypeOf<keyof typeof KINDS>().toEqualTypeOf<ProviderName>();
    expectTypeOf<ProviderName>().toEqualTypeOf<
      (typeof SUBJECT_PROVIDERS)[number] | (typeof JUDGE_PROVIDERS)[number]
    >();
  });

  it('gives each name the roles its enums give it', () => {
    for (const name of NAMES) {
      const roles = [
        ...((SUBJECT_PROVIDERS as readonly string[]).includes(name) ? ['subject'] : []),
        ...((JUDGE_PROVIDERS as readonly string[]).includes(name) ? ['judge'] : []),
      ];
      expect(kindOf(name as ProviderName).roles, name).toEqual(roles);
    }
  });

  it('gives the live kinds to LIVE_PROVIDERS, the system kind to SYSTEM_PROVIDERS, and each its identity', () => {
    const named = (kinds: readonly Kind['kind'][]) =>
      NAMES.filter((n) => kinds.includes(kindOf(n as ProviderName).kind)).sort();
    expect(named(['live', 'openai-compatible'])).toEqual([...LIVE_PROVIDERS].sort());
    expect(named(['live'])).toEqual(Object.keys(KEY_VARIABLES).sort());
    expect(named(['system'])).toEqual([...SYSTEM_PROVIDERS].sort());
    for (const name of NAMES) {
      const entry = kindOf(name as ProviderName);
      expect(entry.identity, name).toBe(KIND_TRAITS[entry.kind].identity);
    }
  });
});

describe('a provider name added to a config enum does not compile until each place that must handle it does', () => {
  it('a new subject kind (a logged trace): the table of kinds', () => {
    // @ts-expect-error: property 'logged-trace' is missing in the table
    KINDS satisfies KindTable<ProviderName | 'logged-trace'>;
    KINDS satisfies KindTable<ProviderName>;
    expect(kindOf('replay').kind).toBe('replay');
  });

  it('a new live vendor: its entry, its key and base URL variables, its sampling contract', () => {
    // @ts-expect-error: property 'mistral' is missing in the table
    KINDS satisfies KindTable<ProviderName | 'mistral'>;
    // @ts-expect-error: a live name must have a live entry, with both roles (here an offline one)
    ({ ...KINDS, anthropic: KINDS.offline }) satisfies KindTable;
    // @ts-expect-error: property 'mistral' is missing in the key variables
    KEY_VARIABLES satisfies Record<Vendor | 'mistral', readonly string[]>;
    // @ts-expect-error: property 'mistral' is missing in the base URL variables
    BASE_URL_VARIABLES satisfies Record<Vendor | 'mistral', string>;
    // @ts-expect-error: property 'mistral' is missing in the contracts of models the catalogue does not know
    LIVE_CONTRACTS satisfies Record<LiveProvider | 'mistral', unknown>;
    expectTypeOf<Vendor>().toEqualTypeOf<Exclude<LiveProvider, 'openai-compatible'>>();
    expect(kindOf('anthropic').kind).toBe('live');
  });

  it('a new way into a system: its entry in the table (and the field it needs, src/subject/config.ts)', () => {
    // @ts-expect-error: property 'mcp' is missing in the table
    KINDS satisfies KindTable<ProviderName | 'mcp'>;
    // @ts-expect-error: a system name must have a system's entry, subject only (here a live one)
    ({ ...KINDS, module: KINDS.anthropic }) satisfies KindTable;
    expectTypeOf<SystemProvider>().toEqualTypeOf<(typeof SYSTEM_PROVIDERS)[number]>();
    expect(kindOf('module').kind).toBe('system');
  });

  it('a new kind: its traits (what identifies its answers, whether it is metered)', () => {
    // @ts-expect-error: property 'trace' is missing in the traits
    KIND_TRAITS satisfies Record<Kind['kind'] | 'trace', unknown>;
    expect(Object.keys(KIND_TRAITS).sort()).toEqual(
      ['live', 'offline', 'openai-compatible', 'replay', 'system'].sort(),
    );
  });
});
