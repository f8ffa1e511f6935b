/**
 * The paths of a run config (issue 51). A path written in a config file is relative to the config
 * file's folder, as in every YAML tool; a path given by `--set` is relative to the working folder, as a
 * flag's is, and so is a default (`validation.labels_dir: data/labels`), which no file wrote.
 *
 * Once read, the config holds each path relative to the working folder (the root), as every stage
 * resolves it: `rebaseWrittenPaths` rewrites the file's paths so. A path that means the same either way
 * (a config in the working folder, or an absolute path) is kept as written, and one that means another
 * file is written relative to the root (absolute when outside it), so the config a run hashes and
 * reports is the one it was before for a config run from the folder it was written for: configs/*.yaml
 * say `../fixtures/...` and are planned exactly as when they said `fixtures/...` (ADR 0032).
 *
 * A path that is not where the config's folder puts it but is where the working folder does is what a
 * config written the old way says: `oldWayIssues` reports it at its line, with both resolutions.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { isRecord } from '../../util/config-fields.ts';
import { fieldName, type PathKey } from '../../util/yaml-paths.ts';

/**
 * Every path field of a run config, `*` standing for each item of a list. A new path field of the
 * config goes here, or it is resolved against the working folder (test/run/config-paths.test.ts sets
 * each of them in a config and checks it is read against the config's folder).
 */
export const CONFIG_PATH_FIELDS: readonly (readonly string[])[] = [
  ['corpus', 'sources'],
  ['corpus', 'generated_from'],
  ['corpus', 'pdfs'],
  ['corpus', 'index'],
  ['questions', 'file'],
  ['subject_prompt', 'file'],
  ['validation', 'labels_dir'],
  ['subjects', '*', 'replay_file'],
  ['subjects', '*', 'module'],
  ['subjects', '*', 'version_files', '*'],
  ['subjects', '*', 'cwd'],
  ['subjects', '*', 'cases'],
];

/** A path a config gives, where it is (`subjects`, 0, `module`) and what it says. */
export interface ConfigPath {
  path: PathKey[];
  written: string;
}

function children(node: unknown, key: string): [PathKey, unknown][] {
  if (key === '*') return Array.isArray(node) ? node.map((v, i): [PathKey, unknown] => [i, v]) : [];
  return isRecord(node) && key in node ? [[key, node[key]]] : [];
}

/** The path fields of a config (parsed YAML or a validated config) that hold a non-empty string. */
export function configPaths(config: unknown): ConfigPath[] {
  const out: ConfigPath[] = [];
  for (const pattern of CONFIG_PATH_FIELDS) {
    let at: [PathKey[], unknown][] = [[[], config]];
    for (const key of pattern)
      at = at.flatMap(([path, node]) =>
        children(node, key).map(([k, v]): [PathKey[], unknown] => [[...path, k], v]),
      );
    for (const [path, value] of at)
      if (typeof value === 'string' && value !== '') out.push({ path, written: value });
  }
  return out;
}

/** Sets the value at `path` of a (validated) config; the containers on the way exist. */
export function setConfigPath(config: unknown, path: readonly PathKey[], value: string): void {
  let node = config as Record<PathKey, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<PathKey, unknown>;
  node[path[path.length - 1] as PathKey] = value;
}

/** `p` with forward slashes (a config's paths read the same on every system). */
const slashed = (p: string) => p.split(sep).join('/');

/** Whether `p`, relative to `root`, leaves it. */
const outside = (p: string) => p === '..' || p.startsWith(`..${sep}`) || isAbsolute(p);

/**
 * A path written in a config in `configDir`, as the root reads it: as written when it names the same
 * file either way (absolute, or the config is in the root), else relative to the root, else absolute.
 */
export function rebasedPath(written: string, configDir: string, root: string): string {
  if (isAbsolute(written)) return written;
  const target = resolve(configDir, written);
  if (target === resolve(root, written)) return written;
  const rel = relative(root, target);
  if (rel === '') return '.';
  return outside(rel) ? target : slashed(rel);
}

/** Whether a `--set path=value` argument gave the value at `path` (it set that field or one above it). */
function overridden(path: readonly PathKey[], overrides: readonly string[]): boolean {
  return overrides.some((o) => {
    const set = o.slice(0, o.indexOf('=')).split('.');
    return set.length <= path.length && set.every((k, i) => k === String(path[i]));
  });
}

/**
 * The file's paths (`written`, from the YAML before any `--set`) that the config still holds, rewritten
 * in place relative to the root; returns them. A `--set` value replaced is left as given.
 */
export function rebaseWrittenPaths(
  config: unknown,
  written: readonly ConfigPath[],
  opts: { configFile: string; root: string; overrides: readonly string[] },
): ConfigPath[] {
  const configDir = dirname(resolve(opts.root, opts.configFile));
  const kept = written.filter((p) => !overridden(p.path, opts.overrides));
  for (const p of kept) setConfigPath(config, p.path, rebasedPath(p.written, configDir, opts.root));
  return kept;
}

/** One problem of a config's paths, at its line (src/run/config/config.ts reports it like a schema issue). */
export interface PathIssue {
  path: PathKey[];
  field: string;
  message: string;
}

/** A path for a message: relative to the root when inside it, else absolute. */
function shown(abs: string, root: string): string {
  const rel = relative(root, abs);
  return rel === '' ? '.' : outside(rel) ? abs : slashed(rel);
}

const PATHS_RULE =
  "paths in a config are relative to the config file's folder, no longer to the folder rge runs in";
const COMMAND_RULE =
  "a command runs in its config file's folder (or its cwd), no longer in the folder rge runs in";

/**
 * The message of a path that is only where the working folder puts it: both resolutions, and what to
 * write instead.
 */
function oldWayMessage(written: string, base: string, where: string, rule: string, root: string): string {
  const fromBase = resolve(base, written);
  const fromRoot = resolve(root, written);
  const instead = slashed(relative(base, fromRoot)) || '.';
  return (
    `${written} is not in ${where} (${shown(fromBase, root)}: not there) but is in the working folder ` +
    `(${shown(fromRoot, root)}): ${rule}; write ${instead} or an absolute path`
  );
}

/** Whether `written` is only where the working folder puts it, not where `base` does. */
function onlyTheOldWay(written: string, base: string, root: string): boolean {
  if (isAbsolute(written)) return false;
  const fromBase = resolve(base, written);
  const fromRoot = resolve(root, written);
  return fromBase !== fromRoot && !existsSync(fromBase) && existsSync(fromRoot);
}

/**
 * The file's paths written the old way (relative to the working folder): each not in the config's
 * folder but in the root. A command system's arguments are checked against the folder it runs in (its
 * `cwd`, else the config's folder): an argument that is a file or folder only from the root was written
 * for a command run there.
 */
export function oldWayIssues(
  config: unknown,
  kept: readonly ConfigPath[],
  opts: { configFile: string; root: string; overrides: readonly string[] },
): PathIssue[] {
  const configDir = dirname(resolve(opts.root, opts.configFile));
  if (configDir === resolve(opts.root)) return [];
  const issues: PathIssue[] = kept
    .filter((p) => onlyTheOldWay(p.written, configDir, opts.root))
    .map((p) => ({
      path: p.path,
      field: fieldName(p.path),
      message: oldWayMessage(p.written, configDir, "this config's folder", PATHS_RULE, opts.root),
    }));
  const subjects = isRecord(config) && Array.isArray(config.subjects) ? config.subjects : [];
  for (const [i, s] of subjects.entries()) {
    if (!isRecord(s) || s.provider !== 'command' || !Array.isArray(s.command)) continue;
    // the folder it runs in, as the root reads it (its cwd rebased above, if the file gave one)
    const cwd = typeof s.cwd === 'string' ? resolve(opts.root, s.cwd) : configDir;
    if (cwd === resolve(opts.root)) continue;
    for (const [j, arg] of s.command.entries()) {
      const path = ['subjects', i, 'command', j];
      if (typeof arg !== 'string' || arg.startsWith('-') || overridden(path, opts.overrides)) continue;
      if (!onlyTheOldWay(arg, cwd, opts.root)) continue;
      issues.push({
        path,
        field: fieldName(path),
        message: oldWayMessage(arg, cwd, 'the folder the command runs in', COMMAND_RULE, opts.root),
      });
    }
  }
  return issues;
}
