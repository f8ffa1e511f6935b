/**
 * A user's system as rge calls it (src/system), one builder per way in (the `system` entries of the
 * table of kinds, kinds.ts): a module's function, an HTTP endpoint, a command, logged traces. Each is
 * checked before the first question (a module is loaded and its export found, an endpoint answers, a
 * program exists, a cases file is read),
 * and each failure names the subject. `systemVersion` is the version the run's identity records.
 */
import { access } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { DEFAULT_LIMITS } from '../providers/metered.ts';
import type { SystemUnderTest } from '../system/contract.ts';
import { RgeError } from '../util/errors.ts';
import type { RegistryContext, SystemSpec } from './spec.ts';

/** A system subject's defaults (src/system): per question, in flight at once, attempts over http. */
export const SYSTEM_DEFAULTS = { timeoutMs: 120_000, concurrency: 4, maxAttempts: 4 } as const;

/** What every way in is built with, besides its entry. */
export interface SystemBuildContext extends Pick<RegistryContext, 'root' | 'env' | 'onRetry'> {
  /** `subject <id>`, for errors */
  who: string;
  /** per question (the entry's, or the default) */
  timeoutMs: number;
  /** questions in flight at once (the entry's, or the default) */
  concurrency: number;
  /** the folder a command runs in when its entry says none (its config's); default the root */
  configDir?: string;
}

/** A header value with `${NAME}` read from the environment; a variable that is not set is an error naming it. */
function headerValue(
  who: string,
  name: string,
  template: string,
  env: Record<string, string | undefined>,
): string {
  return template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => {
    const value = env[variable];
    if (value === undefined || value === '')
      throw new RgeError(`${who}: header ${name} reads \${${variable}}, which is not set in the environment`);
    return value;
  });
}

/** Whether a file is there. */
async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** Where a system subject's module is, absolute. */
function modulePath(file: string, root: string): string {
  return isAbsolute(file) ? file : resolve(root, file);
}

/**
 * The version of a system subject: a logged-traces subject's is its cases file's sha256; else the config's `version`; else the sha256 over its `version_files`
 * and, for a module, its file (src/system/version.ts); a module alone is its file's sha256. An http or
 * command system with neither is '' (declare one to have a changed system asked again, or run
 * `rge eval run --rerun SUBJECT`). (Only a module subject has a `module`: the config's rules.)
 */
export async function systemVersion(spec: SystemSpec, root: string): Promise<string> {
  if (spec.version !== undefined) return spec.version;
  const who = `subject ${spec.id}`;
  if (spec.provider === 'logged-traces') {
    // a new import is a new answer
    const cases = modulePath(spec.cases as string, root);
    if (!(await exists(cases))) throw new RgeError(`${who}: no cases file at ${cases}`);
    const { sha256File } = await import('../util/fs.ts');
    return sha256File(cases);
  }
  const module = spec.module !== undefined ? modulePath(spec.module, root) : null;
  if (module !== null && !(await exists(module))) throw new RgeError(`${who}: no module at ${module}`);
  if (spec.version_files !== undefined) {
    const { versionOfFiles } = await import('../system/version.ts');
    return versionOfFiles(who, [...(module !== null ? [module] : []), ...spec.version_files], root);
  }
  if (module === null) return '';
  const { sha256File } = await import('../util/fs.ts');
  return sha256File(module);
}

/** A system's pre-flight check; its error names the subject (a config may have several systems). */
async function preflight(who: string, check: () => Promise<unknown>): Promise<void> {
  try {
    await check();
  } catch (err) {
    if (err instanceof RgeError && err.file === undefined)
      throw new RgeError(`${who}: ${err.message}`, { exitCode: err.exitCode, cause: err });
    throw err;
  }
}

/** `provider: module`: the module is loaded and its export found. */
export async function moduleWay(spec: SystemSpec, ctx: SystemBuildContext): Promise<SystemUnderTest> {
  const system = await import('../system/index.ts');
  return system.loadModuleSystem({
    file: modulePath(spec.module as string, ctx.root),
    ...(spec.export !== undefined ? { exportName: spec.export } : {}),
    timeoutMs: ctx.timeoutMs,
  });
}

/** `provider: http`: its headers read from the environment, and the endpoint answers. */
export async function httpWay(spec: SystemSpec, ctx: SystemBuildContext): Promise<SystemUnderTest> {
  const system = await import('../system/index.ts');
  const { who, timeoutMs, concurrency } = ctx;
  const url = spec.url as string;
  const headers = Object.fromEntries(
    Object.entries(spec.headers ?? {}).map(([name, value]) => [name, headerValue(who, name, value, ctx.env)]),
  );
  await preflight(who, () => system.checkReachable(url, timeoutMs));
  const limits = { ...DEFAULT_LIMITS, concurrency, rpm: spec.rpm ?? null };
  return system.httpSystem({
    url,
    headers,
    timeoutMs,
    maxAttempts: spec.max_attempts ?? SYSTEM_DEFAULTS.maxAttempts,
    minBackoffMs: limits.minBackoffMs,
    maxBackoffMs: limits.maxBackoffMs,
    concurrency,
    rpm: limits.rpm,
    ...(ctx.onRetry ? { onRetry: ctx.onRetry } : {}),
  });
}

/** `provider: logged-traces`: the cases file is read (each bad line an error naming it); nothing is called. */
export async function loggedTracesWay(spec: SystemSpec, ctx: SystemBuildContext): Promise<SystemUnderTest> {
  const { openLoggedTraces } = await import('../traces/subject.ts');
  const file = modulePath(spec.cases as string, ctx.root);
  await preflight(ctx.who, async () => {
    if (!(await exists(file))) throw new RgeError(`no cases file at ${file}`);
  });
  return openLoggedTraces(file);
}

/** `provider: command`: the program exists; it runs in its `cwd`, else its config's folder. */
export async function commandWay(spec: SystemSpec, ctx: SystemBuildContext): Promise<SystemUnderTest> {
  const system = await import('../system/index.ts');
  const argv = spec.command as string[];
  const cwd = resolve(ctx.root, spec.cwd ?? ctx.configDir ?? '.');
  await preflight(ctx.who, () => system.checkProgram(argv, cwd));
  return system.commandSystem({
    argv,
    cwd,
    timeoutMs: ctx.timeoutMs,
    pool: spec.pool ?? null,
    concurrency: ctx.concurrency,
  });
}
