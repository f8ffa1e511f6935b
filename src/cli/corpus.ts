import type { Command } from 'commander';
import type { CliIO } from './io.ts';

export function registerCorpusCommands(program: Command, _io: CliIO): void {
  program.command('corpus').description('fetch, verify and ingest the document corpus');
}
