/**
 * What a planned run was made from, as files to watch (`rge eval watch`): the config, the question
 * file, the subject prompt when a chosen subject is a model (a system has its own prompt), and each
 * chosen system's version files and module. A change of any of them may change some cells' identity;
 * the plan made again after it says which (the cells are reused by what they are: stages/stages.ts).
 *
 * A system that declares its `version` is not versioned by its files: a change there asks nothing
 * again. Its files are watched all the same, so that the watch can say why nothing was asked.
 */
import { stat } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { kindOf } from '../../models/kinds.ts';
import type { WatchTargets } from '../../util/file-watch.ts';
import { type RunPlan, resolveFrom } from '../plan/plan.ts';

export interface WatchedInputs extends WatchTargets {
  /** files and folders of systems that declare their version: a change there changes no cell of theirs */
  declared: { path: string; subject: string; version: string }[];
  /** the files and folders whose change may change a cell: all but those only declared systems have */
  cellInputs: string[];
}

/** Whether a subject of the plan is a user's system (the table of kinds, by its provider name). */
const isSystem = (subject: Pick<RunPlan['subjects'][number], 'provider'>) =>
  kindOf(subject.provider).kind === 'system';

/** A system's files: its module and its version_files (a folder is watched with all it holds). */
async function systemFiles(
  subject: RunPlan['subjects'][number],
  root: string,
): Promise<{ files: string[]; trees: string[] }> {
  const files: string[] = [];
  const trees: string[] = [];
  if (subject.config.module) files.push(resolveFrom(root, subject.config.module));
  for (const path of subject.config.version_files ?? []) {
    const full = resolveFrom(root, path);
    const found = await stat(full).catch(() => null);
    if (found?.isDirectory()) trees.push(full);
    else files.push(full);
  }
  return { files, trees };
}

/** The inputs of a plan, absolute. */
export async function watchedInputs(plan: RunPlan, root: string): Promise<WatchedInputs> {
  const files = [resolveFrom(root, plan.request.config), resolveFrom(root, plan.config.questions.file)];
  const trees: string[] = [];
  const declared: WatchedInputs['declared'] = [];
  const prompt = plan.config.subject_prompt.file;
  if (prompt !== null && plan.subjects.some((s) => !isSystem(s))) files.push(resolveFrom(root, prompt));
  const cellInputs = [...files];
  for (const subject of plan.subjects) {
    if (!isSystem(subject)) continue;
    const own = await systemFiles(subject, root);
    files.push(...own.files);
    trees.push(...own.trees);
    const version = subject.config.version;
    if (version === undefined) cellInputs.push(...own.files, ...own.trees);
    else
      for (const path of [...own.files, ...own.trees]) declared.push({ path, subject: subject.id, version });
  }
  return {
    files: [...new Set(files)],
    trees: [...new Set(trees)],
    declared,
    cellInputs: [...new Set(cellInputs)],
  };
}

const under = (path: string, input: string) => path === input || path.startsWith(`${input}${sep}`);

/** Whether a change of this path may change a cell (it is not only a declared system's file). */
export function changesCells(inputs: Pick<WatchedInputs, 'cellInputs'>, path: string): boolean {
  return inputs.cellInputs.some((input) => under(path, input));
}

/** A path as the watch names it: relative to the working folder when it is under it. */
export function shownPath(root: string, path: string): string {
  const rel = relative(root, path);
  return rel === '' || rel.startsWith('..') ? path : rel;
}

/**
 * What a batch of changed paths touched of the systems that declare their version: one line per such
 * system (its files changed, its version did not), or none.
 */
export function declaredChanges(inputs: WatchedInputs, changed: readonly string[], root: string): string[] {
  const bySubject = new Map<string, { version: string; paths: string[] }>();
  for (const path of changed)
    for (const d of inputs.declared)
      if (under(path, d.path)) {
        const entry = bySubject.get(d.subject) ?? { version: d.version, paths: [] };
        entry.paths.push(shownPath(root, path));
        bySubject.set(d.subject, entry);
      }
  return [...bySubject].map(
    ([subject, { version, paths }]) =>
      `${paths.join(', ')} changed, but subject ${subject} declares its version (${JSON.stringify(version)}): ` +
      'its stored answers stand; change its version: to have it asked again',
  );
}
