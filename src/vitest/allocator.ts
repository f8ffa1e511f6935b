/**
 * How much of rolldown's native allocator the process that runs the suite keeps resident (issue 41).
 * Vite transforms the eval files and the sources they import with rolldown's native binding, whose
 * allocator (mimalloc) reserves a 1 GiB arena, asks the kernel for transparent huge pages in it and keeps
 * freed pages for a while: in `rge eval run` that left about 130 MB resident that nothing used (measured
 * with /proc/<pid>/smaps on 20,000 warm cases; docs/adr/0029). mimalloc reads its options from the
 * environment once, when the binding loads, so they are set around the import that loads it and taken
 * out again: the subjects and scripts the run starts later do not inherit them.
 * A variable the user set is left as it is.
 */

/** mimalloc's options for rolldown's arena: no huge pages, freed pages returned at once. */
export const ALLOCATOR_ENV: Readonly<Record<string, string>> = Object.freeze({
  MIMALLOC_ALLOW_THP: '0',
  MIMALLOC_PURGE_DELAY: '0',
});

/**
 * Runs `load` (the import that loads Vite, and with it rolldown's binding) with ALLOCATOR_ENV in
 * `env` (process.env by default) for the variables it does not already have, then takes those out.
 * When the binding is already loaded (a second run in one process) the options change nothing.
 */
export async function withAllocatorEnv<T>(
  load: () => Promise<T>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<T> {
  const set = Object.keys(ALLOCATOR_ENV).filter((name) => env[name] === undefined);
  for (const name of set) env[name] = ALLOCATOR_ENV[name];
  try {
    return await load();
  } finally {
    for (const name of set) delete env[name];
  }
}
