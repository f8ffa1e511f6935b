/**
 * Field schemas every section of the run config (src/run/config/config.ts) shares: a path and an id. Each
 * stage's section lives beside its stage (e.g. src/judging/config.ts); these are the pieces below them all.
 */
import { z } from 'zod';

/**
 * A path: in a config file, relative to the file's folder; once the config is read, relative to the
 * working folder (src/run/config/paths.ts), until `resolveRunPaths` makes it absolute.
 */
export const Path = z.string().min(1, 'must be a path');

/** A subject's or judge's id. */
export const Id = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be lowercase letters, digits, dot, dash or underscore');

/** A zod refinement context of a config's cross-field rules. */
export type ConfigCtx = z.core.$RefinementCtx<unknown>;

/** Adds one issue at `path`; cross-field rules of each section take it so they all report alike. */
export type AddIssue = (path: (string | number)[], message: string) => void;

export function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** The items of an array that are records, with their indices (the rest left out). */
export function records(x: unknown): [number, Record<string, unknown>][] {
  return Array.isArray(x)
    ? x.flatMap((item, i): [number, Record<string, unknown>][] => (isRecord(item) ? [[i, item]] : []))
    : [];
}
