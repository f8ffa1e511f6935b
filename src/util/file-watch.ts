/**
 * Watching a run's input files (`rge eval watch`): some files, each watched through the folder that
 * holds it, so that an editor that saves by writing another file and renaming it over the first (vim,
 * many IDEs) is seen as a change of that file; and some folders with everything under them (a system's
 * `version_files`), where dot-names and node_modules are skipped as a system's version skips them
 * (src/system/version.ts). Node's own `fs.watch` (recursive on Linux since Node 20), no dependency.
 *
 * A burst of events (an editor writes a file several times per save) settles into one batch of changed
 * paths once no event came for `debounceMs`; batches that settle while nobody is waiting (a run is
 * going on) are merged into one, so any number of changes during a run make one rerun after it.
 */
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, relative, resolve, sep } from 'node:path';

export interface WatchTargets {
  /** files (absolute), each watched through its folder */
  files: readonly string[];
  /** folders (absolute) watched with everything under them */
  trees: readonly string[];
}

export interface InputWatcherOptions {
  /** how long the events must be quiet before a batch settles */
  debounceMs: number;
  /** folders whose changes are never inputs (the results and reports folders a run writes) */
  ignore?: readonly string[];
}

/** Whether `path` is `folder` or under it. */
const within = (path: string, folder: string): boolean =>
  path === folder || path.startsWith(`${folder}${sep}`);

/** Whether a path under a watched folder names something a system's version skips (a dot-name, node_modules). */
const skipped = (fromTree: string): boolean =>
  fromTree.split(sep).some((part) => part.startsWith('.') || part === 'node_modules');

export class InputWatcher {
  /** one fs.watch per folder: `<folder>` for a folder of files, `<folder>/**` for a tree */
  private readonly watchers = new Map<string, FSWatcher>();
  private files = new Set<string>();
  private trees: string[] = [];
  /** paths changed since the last event settled */
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  /** batches settled and not yet taken, merged */
  private settled: Set<string> | null = null;
  private waiter: ((paths: string[] | null) => void) | null = null;

  constructor(private readonly opts: InputWatcherOptions) {}

  /**
   * Watches these targets from now on: folders no longer needed are let go, new ones watched. What has
   * changed already, settled or not, stays to be taken. A folder that cannot be watched (it is not
   * there) is returned, for the caller to say.
   */
  target(targets: WatchTargets): string[] {
    this.files = new Set(targets.files.map((f) => resolve(f)));
    this.trees = [...new Set(targets.trees.map((t) => resolve(t)))];
    const wanted = new Map<string, { folder: string; recursive: boolean }>();
    for (const file of this.files) wanted.set(dirname(file), { folder: dirname(file), recursive: false });
    for (const tree of this.trees) wanted.set(`${tree}${sep}**`, { folder: tree, recursive: true });
    for (const [key, watcher] of this.watchers)
      if (!wanted.has(key)) {
        watcher.close();
        this.watchers.delete(key);
      }
    const failed: string[] = [];
    for (const [key, { folder, recursive }] of wanted) {
      if (this.watchers.has(key)) continue;
      try {
        const watcher = watch(folder, { recursive, persistent: true }, (_event, name) =>
          this.onEvent(folder, recursive, name === null ? null : String(name)),
        );
        // a folder removed under the watch ends its events; the next target() watches it again
        watcher.on('error', () => {
          watcher.close();
          this.watchers.delete(key);
        });
        this.watchers.set(key, watcher);
      } catch {
        failed.push(folder);
      }
    }
    return failed;
  }

  private onEvent(folder: string, recursive: boolean, name: string | null): void {
    const paths = this.inputsOf(folder, recursive, name);
    if (paths.length === 0) return;
    for (const path of paths) this.pending.add(path);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.settle(), this.opts.debounceMs);
  }

  /** The inputs an event names: a watched file of the folder, or a path under a watched tree. */
  private inputsOf(folder: string, recursive: boolean, name: string | null): string[] {
    if (!recursive) {
      const inFolder = [...this.files].filter((f) => dirname(f) === folder);
      return name === null ? inFolder : inFolder.filter((f) => basename(f) === name);
    }
    const path = name === null ? folder : resolve(folder, name);
    if (skipped(relative(folder, path))) return [];
    if ((this.opts.ignore ?? []).some((ignored) => within(path, resolve(ignored)))) return [];
    return [path];
  }

  private settle(): void {
    this.timer = null;
    if (this.pending.size === 0) return;
    this.settled = new Set([...(this.settled ?? []), ...this.pending]);
    this.pending = new Set();
    if (this.waiter) {
      const take = this.waiter;
      this.waiter = null;
      take(this.take());
    }
  }

  private take(): string[] {
    const paths = [...(this.settled ?? [])].sort();
    this.settled = null;
    return paths;
  }

  /**
   * The next settled batch of changed paths: at once when one settled while nobody waited (during a
   * run), else when the next one settles; null when `signal` aborts first.
   */
  next(signal?: AbortSignal): Promise<string[] | null> {
    if (this.settled) return Promise.resolve(this.take());
    if (signal?.aborted) return Promise.resolve(null);
    return new Promise((resolvePaths) => {
      const onAbort = () => {
        this.waiter = null;
        resolvePaths(null);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiter = (paths) => {
        signal?.removeEventListener('abort', onAbort);
        resolvePaths(paths);
      };
    });
  }

  /** Stops watching: every folder let go, a batch still settling dropped. */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.waiter?.(null);
    this.waiter = null;
  }
}
