import type { Command } from 'commander';
import type { CliIO } from './io.ts';

export function registerRetrievalCommands(_program: Command, _io: CliIO): void {}
