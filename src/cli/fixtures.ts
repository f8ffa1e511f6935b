import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { writeFileAtomic } from '../util/fs.ts';
import type { CliIO } from './io.ts';

const DEFAULT_FACTS = 'fixtures/facts.json';
/** SYNTHETIC_SEED of src/fixtures/synthetic.ts, kept here so that `--help` loads no generator (test/cli/startup.test.ts) */
const DEFAULT_SEED = 'rge-fixture-facts-v1';

/** `rge fixtures ...`: the fixture world's generators. Paths are relative to the working folder. */
export function registerFixturesCommands(program: Command, io: CliIO): void {
  const fixtures = program.command('fixtures').description('generate the embedded fixture world');

  fixtures
    .command('facts')
    .description(
      'extract the results figures from the NSE XBRL filings and fill the rest with seeded synthetic values; ' +
        'writes the facts file (sorted, stable JSON, atomic)',
    )
    .requiredOption(
      '--xbrl <dir>',
      'the xbrl_nse folder (one sub-folder per company), e.g. ../shared/corpus/xbrl_nse',
    )
    .option('--out <file>', 'facts file to write', DEFAULT_FACTS)
    .option('--seed <seed>', 'seedrandom seed of the synthetic values', DEFAULT_SEED)
    .action(async (opts: { xbrl: string; out: string; seed: string }) => {
      const { readXbrlFacts } = await import('../fixtures/xbrl.ts');
      const { buildFactsFile, factsFileJson } = await import('../fixtures/synthetic.ts');
      const { facts, filings } = await readXbrlFacts(resolve(io.cwd, opts.xbrl));
      const file = buildFactsFile(facts, { seed: opts.seed, filings: filings.length });
      const out = resolve(io.cwd, opts.out);
      await writeFileAtomic(out, factsFileJson(file));
      const synthetic = file.numeric.length - facts.length;
      io.out(
        `${relative(io.cwd, out) || out}: ${filings.length} filings, ${facts.length} XBRL facts, ` +
          `${synthetic} synthetic numeric facts, ${file.text.length} synthetic text facts (seed "${opts.seed}")\n`,
      );
    });
}
