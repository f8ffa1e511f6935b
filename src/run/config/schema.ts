/**
 * The run config's JSON Schema (`configs/config.schema.json`, which editors read through the YAML files'
 * `$schema` comment), generated from the zod `RunConfig` and formatted for reading.
 */
import { z } from 'zod';
import { RunConfig } from './config.ts';

/** The JSON Schema of a config file for editors (what a YAML file may say, so defaulted fields are optional). */
export function runConfigJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(RunConfig, { io: 'input', target: 'draft-07' }),
    title: 'rge run config',
    description:
      "A run config of rge (configs/*.yaml). Paths are relative to the config file's folder (a --set value's and a default's to the working folder). " +
      'Generated from src/run/config/config.ts by `rge config schema`; do not edit by hand.',
  };
}

/** The schema as committed: two-space JSON laid out as Biome formats it, newline-terminated. */
export function runConfigJsonSchemaText(): string {
  return `${formattedJson(runConfigJsonSchema(), 0, 0)}\n`;
}

const LINE_WIDTH = 110;

/**
 * JSON with two-space indentation where arrays of scalars stay on one line when they fit the line
 * width (as Biome formats JSON), so the written file passes `biome check` unchanged.
 * `column` is where the value starts on its line.
 */
function formattedJson(value: unknown, depth: number, column: number): string {
  const pad = '  '.repeat(depth + 1);
  const end = '  '.repeat(depth);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const scalars = value.every((v) => v === null || typeof v !== 'object');
    const inline = `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
    if (scalars && column + inline.length + 1 <= LINE_WIDTH) return inline;
    const items = value.map((v) => `${pad}${formattedJson(v, depth + 1, pad.length)}`);
    return `[\n${items.join(',\n')}\n${end}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    const items = entries.map(([k, v]) => {
      const key = `${JSON.stringify(k)}: `;
      return `${pad}${key}${formattedJson(v, depth + 1, pad.length + key.length)}`;
    });
    return `{\n${items.join(',\n')}\n${end}}`;
  }
  return JSON.stringify(value);
}
