import cliProgress from 'cli-progress';

/**
 * Progress for long steps. A bar on an interactive terminal; plain lines (at most one every
 * `lineEveryMs`, plus the last) when stdout is not a TTY or `CI` is set, so logs stay readable.
 * Both show an estimate of the time left, from the rate so far ("eta 1m05s"), once there is a rate.
 */
export interface Progress {
  tick(n?: number, label?: string): void;
  /** moves to an absolute position */
  set(value: number, label?: string): void;
  done(): void;
}

export interface ProgressOptions {
  total: number;
  label: string;
  stream?: NodeJS.WriteStream;
  quiet?: boolean;
  lineEveryMs?: number;
  /** the clock, in milliseconds (tests inject one) */
  now?: () => number;
}

export function isInteractive(stream: NodeJS.WriteStream = process.stdout): boolean {
  return Boolean(stream.isTTY) && !process.env.CI;
}

/** A duration as "45s", "3m05s" or "1h02m" (rounded up to the second). */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/**
 * The time left at the rate so far, in ms; null before the first unit is done or when nothing has
 * taken measurable time yet (no rate to extrapolate from).
 */
export function estimateRemainingMs(elapsedMs: number, done: number, total: number): number | null {
  if (done <= 0 || elapsedMs <= 0) return null;
  if (done >= total) return 0;
  return (elapsedMs / done) * (total - done);
}

/** "eta 1m05s", or "" when there is no estimate yet. */
export function etaText(elapsedMs: number, done: number, total: number): string {
  const left = estimateRemainingMs(elapsedMs, done, total);
  return left === null ? '' : `eta ${formatDuration(left)}`;
}

/**
 * One plain progress line: "embed: 120/400 (30%) eta 1m05s item", and at the end
 * "embed: 400/400 (100%) done in 1m32s".
 */
export function progressLine(
  label: string,
  done: number,
  total: number,
  elapsedMs: number,
  item = '',
): string {
  const pct = total > 0 ? Math.floor((100 * Math.min(done, total)) / total) : 100;
  const tail = done >= total ? `done in ${formatDuration(elapsedMs)}` : etaText(elapsedMs, done, total);
  return `${label}: ${done}/${total} (${pct}%)${tail ? ` ${tail}` : ''}${item ? ` ${item}` : ''}`;
}

/**
 * Plain-line progress written through `write` (one line per call, no newline): the first unit done,
 * then at most one line every `lineEveryMs`, and the last; with `lineEveryMs` Infinity, the last only
 * (one summary line for the step).
 */
export function createLineProgress(opts: {
  total: number;
  label: string;
  write: (line: string) => void;
  lineEveryMs?: number;
  now?: () => number;
}): Progress {
  const now = opts.now ?? Date.now;
  const every = opts.lineEveryMs ?? 2000;
  const started = now();
  let last: number | null = null;
  let finished = false;
  return counter((value, label) => {
    if (finished) return;
    const t = now();
    const end = value >= opts.total;
    if (end || (last === null && Number.isFinite(every)) || t - (last ?? started) >= every) {
      last = t;
      if (end) finished = true;
      opts.write(progressLine(opts.label, value, opts.total, t - started, label));
    }
  });
}

/** A Progress that keeps the count and shows it through `show` after every tick or set. */
function counter(show: (value: number, label: string) => void, done: () => void = () => {}): Progress {
  let value = 0;
  return {
    tick(n = 1, label = '') {
      value += n;
      show(value, label);
    },
    set(v, label = '') {
      value = v;
      show(value, label);
    },
    done,
  };
}

export function createProgress(opts: ProgressOptions): Progress {
  const stream = opts.stream ?? process.stderr;
  if (opts.quiet) return { tick() {}, set() {}, done() {} };
  const now = opts.now ?? Date.now;
  if (isInteractive(stream)) {
    const started = now();
    const bar = new cliProgress.SingleBar(
      {
        format: `${opts.label} [{bar}] {value}/{total} {eta_text} {item}`,
        stream,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(opts.total, 0, { item: '', eta_text: '' });
    return counter(
      (value, label) => {
        const elapsed = now() - started;
        const eta =
          value >= opts.total ? `in ${formatDuration(elapsed)}` : etaText(elapsed, value, opts.total);
        bar.update(value, { item: label, eta_text: eta });
      },
      () => bar.stop(),
    );
  }
  return createLineProgress({
    total: opts.total,
    label: opts.label,
    write: (line) => stream.write(`${line}\n`),
    ...(opts.lineEveryMs === undefined ? {} : { lineEveryMs: opts.lineEveryMs }),
    now,
  });
}

/** The stages of an index build (ingest's onStage), one progress each; chunking is instant and silent. */
export function stageProgress(
  make: (stage: string, total: number) => Progress,
): (stage: 'extract' | 'chunk' | 'embed', done: number, total: number, label?: string) => void {
  const bars = new Map<string, Progress>();
  return (stage, done, total, label) => {
    if (stage === 'chunk') return;
    let bar = bars.get(stage);
    if (!bar) {
      bar = make(stage, total);
      bars.set(stage, bar);
    }
    bar.set(done, label);
    if (done >= total) bar.done();
  };
}
