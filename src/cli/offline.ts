import type { Command } from 'commander';

/**
 * `--offline` (on the commands that build an index or retrieve): no model download; a missing bge-m3
 * is an error naming where rge looked. The policy travels as RGE_OFFLINE=1, set before the action
 * runs, so it reaches the embedder wherever the command creates it (the eval suite's workers
 * included); `main` restores the variable when the command ends.
 */
export const OFFLINE_FLAG = '--offline';
export const OFFLINE_HELP =
  'never download a model: a missing bge-m3 is an error naming where rge looked (also RGE_OFFLINE=1)';

/** Turns downloads off for the rest of the command (see `restoreOfflineEnv`). */
export function forbidDownloads(): void {
  process.env.RGE_OFFLINE = '1';
}

/** The preAction hook: a command given `--offline` forbids downloads. */
export function applyOfflineFlag(_program: Command, action: Command): void {
  if (action.opts().offline === true) forbidDownloads();
}

/** Snapshot of RGE_OFFLINE; calling the result puts it back. */
export function saveOfflineEnv(): () => void {
  const before = process.env.RGE_OFFLINE;
  return () => {
    if (before === undefined) delete process.env.RGE_OFFLINE;
    else process.env.RGE_OFFLINE = before;
  };
}
