import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { buildFactsFile, factsFileJson, SYNTHETIC_SEED } from '../fixtures/synthetic.ts';
import { readXbrlFacts } from '../fixtures/xbrl.ts';
import { writeFileAtomic } from '../util/fs.ts';
import type { CliIO } from './io.ts';

const DEFAULT_FACTS = 'fixtures/facts.json';

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
    .option('--seed <seed>', 'seedrandom seed of the synthetic values', SYNTHETIC_SEED)
    .action(async (opts: { xbrl: string; out: string; seed: string }) => {
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
