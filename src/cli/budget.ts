/**
 * `rge budget`: the budget ledger of a results folder (store/ledger.ts) as a person reads it: the cap the
 * last spending run recorded, what was spent, what is unknown (calls of a killed process) and held, what
 * is left, by model; and, with --config, the same against a config's cap.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { LedgerSummary } from '../store/ledger-tally.ts';
import { UsageError } from '../util/errors.ts';
import type { CliIO } from './io.ts';

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerBudgetCommands(program: Command, io: CliIO): void {
  program
    .command('budget')
    .description(
      'print the budget ledger: the cap the last spending run recorded, spent, unknown (calls of a killed process with no reply: possibly billed, at most their worst case), held, left, by model',
    )
    .option('--results-dir <dir>', 'results folder holding .budget_ledger.jsonl', 'data/results')
    .option('--config <file>', "compare with this run config's cap (the ledger's own cap is printed anyway)")
    .option(
      '--set <path=value>',
      'override a field of --config, e.g. budget.cap_usd=20 (repeatable)',
      collect,
    )
    .option('--json', 'print the ledger as JSON')
    .action(async (flags: { config?: string; set?: string[]; resultsDir: string; json?: boolean }) => {
      if (flags.set && !flags.config)
        throw new UsageError('--set needs --config: it overrides a field of the config to compare with');
      const { BudgetLedger } = await import('../store/ledger.ts');
      if (flags.resultsDir !== 'data/results' && !existsSync(resolve(io.cwd, flags.resultsDir)))
        throw new UsageError(`--results-dir ${flags.resultsDir}: no results folder there`);
      const ledger = BudgetLedger.reader(resolve(io.cwd, flags.resultsDir));
      const recorded = ledger.recordedCap();
      let compared: { capUsd: number; warnUsd: number; source: string } | null = null;
      if (flags.config) {
        const { loadRunConfig, capSourceOf } = await import('../run/config/config.ts');
        const config = await loadRunConfig(resolve(io.cwd, flags.config), {
          overrides: flags.set ?? [],
          root: io.cwd,
        });
        compared = {
          capUsd: config.budget.cap_usd,
          warnUsd: config.budget.warn_usd,
          source: capSourceOf(flags.config, flags.set ?? []),
        };
      }
      const s = ledger.summary(recorded ?? compared ?? { capUsd: 0, warnUsd: 0 });
      const versus = compared ? { ...compared, leftUsd: ledger.summary(compared).leftUsd } : null;
      io.out(
        flags.json
          ? `${JSON.stringify({ ...s, ...(versus ? { compared: versus } : {}) }, null, 2)}\n`
          : `${budgetLines(ledger.file, s, versus).join('\n')}\n`,
      );
    });
}

/** What `rge budget` prints: the ledger against its recorded cap, and against a config's when asked. */
function budgetLines(
  file: string,
  s: LedgerSummary,
  compared: { capUsd: number; warnUsd: number; source: string; leftUsd: number } | null,
): string[] {
  const usd = (x: number) => `$${x.toFixed(4)}`;
  const cap = s.recordedCap;
  const counted = s.spentUsd + s.unknownUsd;
  const totals = `spent ${usd(s.spentUsd)}, unknown up to ${usd(s.unknownUsd)}, held ${usd(s.heldUsd)}`;
  return [
    `ledger ${file}`,
    cap
      ? `the cap recorded by the last run that spent: ${cap.source} (pid ${cap.owner.pid} on ${cap.owner.host}, ${cap.at})`
      : `no run has recorded a cap in this ledger yet${compared ? `; the cap below is ${compared.source}'s` : ' (--config C compares with a config)'}`,
    cap || compared
      ? `cap ${usd(s.capUsd)} (warning at ${usd(s.warnUsd)}): ${totals}, left ${usd(s.leftUsd)}`
      : totals,
    '  spent: what the stored replies cost; held: the worst case of calls in flight now',
    s.unknownCalls > 0
      ? `  unknown: ${s.unknownCalls} call(s) of a process that died (kill -9, a crash) with no reply on record: possibly billed, at most ${usd(s.unknownUsd)} (their worst case; nothing for a call cut off before its reply). Not spend; counted against the cap: ${usd(s.unknownUsd)} of the ${usd(counted)} counted (${((100 * s.unknownUsd) / counted).toFixed(0)}%). The provider's usage page says what was billed`
      : '  unknown: none (every call is settled from its reply, or was released unsent or aborted)',
    ...s.byPayer.map(
      (p) =>
        `  ${p.role.padEnd(7)} ${`${p.provider}/${p.model}`.padEnd(40)} ${String(p.calls).padStart(6)} calls  ${usd(p.spentUsd)}`,
    ),
    ...s.open.map(
      (o) =>
        `  open ${o.kind} reservation ${o.id}: ${usd(o.usd)} (${o.payer.provider}/${o.payer.model}, pid ${o.owner.pid})`,
    ),
    ...(s.open.some((o) => o.kind === 'batch')
      ? [
          '  an open batch reservation is a batch not collected yet; `rge results batches` lists what rge left at the providers',
        ]
      : []),
    ...s.warnings.map((w) => `  warned at ${w.at}: ${usd(w.spent)} passed ${usd(w.warn)}`),
    ...(compared && cap
      ? [
          compared.capUsd === s.capUsd && compared.warnUsd === s.warnUsd
            ? `${compared.source}: the same cap as the ledger's`
            : `${compared.source}: cap ${usd(compared.capUsd)} (warning at ${usd(compared.warnUsd)}), not the ledger's; under it ${usd(compared.leftUsd)} would be left`,
        ]
      : []),
  ];
}
