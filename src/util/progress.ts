import cliProgress from 'cli-progress';

/**
 * Progress for long steps. A bar on an interactive terminal; plain lines (at most one every
 * `lineEveryMs`, plus the last) when stdout is not a TTY or `CI` is set, so logs stay readable.
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
}

export function isInteractive(stream: NodeJS.WriteStream = process.stdout): boolean {
  return Boolean(stream.isTTY) && !process.env.CI;
}

export function createProgress(opts: ProgressOptions): Progress {
  const stream = opts.stream ?? process.stderr;
  if (opts.quiet) return { tick() {}, set() {}, done() {} };
  let value = 0;
  if (isInteractive(stream)) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${opts.label} [{bar}] {value}/{total} {item}`,
        stream,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(opts.total, 0, { item: '' });
    return {
      tick(n = 1, label = '') {
        value += n;
        bar.update(value, { item: label });
      },
      set(v, label = '') {
        value = v;
        bar.update(value, { item: label });
      },
      done() {
        bar.stop();
      },
    };
  }
  const every = opts.lineEveryMs ?? 2000;
  let last = 0;
  const report = (label: string) => {
    const now = Date.now();
    if (now - last >= every || value >= opts.total) {
      last = now;
      stream.write(`${opts.label}: ${value}/${opts.total}${label ? ` ${label}` : ''}\n`);
    }
  };
  return {
    tick(n = 1, label = '') {
      value += n;
      report(label);
    },
    set(v, label = '') {
      value = v;
      report(label);
    },
    done() {},
  };
}
