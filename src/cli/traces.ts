/**
 * `rge traces import FILE... --to DIR [--format auto|otlp|openinference|contract]`: logged traces into
 * cases (src/traces/import.ts). Prints what was read and every trace left out (file, line, trace id,
 * reason). Exit 0 when at least one case was imported, 1 when none; a file that is not a trace export
 * is an error naming it, and nothing is written. The action imports src/traces when it runs.
 */
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../util/errors.ts';
import { type CliIO, existingPath } from './io.ts';
import { tracesCommand } from './traces-window-commands.ts';

const FORMATS = ['auto', 'otlp', 'openinference', 'contract'] as const;
type FormatFlag = (typeof FORMATS)[number];

function formatFlag(value: string): FormatFlag {
  if (!(FORMATS as readonly string[]).includes(value))
    throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, got "${value}"`);
  return value as FormatFlag;
}

export function registerTracesCommands(program: Command, io: CliIO): void {
  const traces = tracesCommand(program);
  traces
    .command('import')
    .description(
      'import logged traces (OTLP JSON of a collector file exporter, OpenInference spans, JSON Lines in the system contract shape) into DIR/cases.jsonl and DIR/import.json; exit 1 when no case was imported',
    )
    .argument('<files...>', 'the exports to read (JSON Lines or JSON); one trace may be split across them')
    .requiredOption('--to <dir>', 'the folder to write cases.jsonl and import.json in')
    .option('--format <format>', `the files' format: ${FORMATS.join(', ')}`, 'auto')
    .action(async (files: string[], flags: { to: string; format: string }) => {
      const format = formatFlag(flags.format);
      const paths = files.map((f) => existingPath(io.cwd, 'traces import', f, 'file'));
      const { importTracesTo } = await import('../traces/import.ts');
      const dir = resolve(io.cwd, flags.to);
      const report = await importTracesTo(dir, paths, {
        format,
        name: (p) => relative(io.cwd, p) || p,
      });
      const shown = relative(io.cwd, dir) || '.';
      for (const f of report.files) io.out(`${f.file}: ${f.format}, ${f.lines} lines, ${f.spans} spans\n`);
      io.out(
        `${report.traces} traces, ${report.cases} cases imported, ${report.left_out.length} left out ` +
          `(${report.seconds.toFixed(2)} s) -> ${shown}/cases.jsonl, ${shown}/import.json\n`,
      );
      for (const l of report.left_out)
        io.out(
          `  left out: ${l.file}${l.line ? `:${l.line}` : ''}: trace ${l.trace_id ?? '(none)'}: ${l.problem}: ${l.message}\n`,
        );
      if (report.cases === 0) {
        io.err('rge: no case was imported\n');
        io.exitCode = 1;
      }
    });
}
