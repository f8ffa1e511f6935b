/**
 * A child process measured with its descendants: wall time, CPU time, and the peak of the process tree's
 * summed resident memory (VmRSS of the child and every process below it, sampled from /proc every 100
 * ms). The eval suite runs Vitest workers in child processes, so the peak of the one process that
 * `maxRSS` reports would leave most of it out. Linux only: elsewhere `cpuSeconds` and `peakRssMb` are
 * null.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

export interface TreeRun {
  code: number | null;
  seconds: number;
  /**
   * CPU time (user + system, seconds) of the child and every descendant it waited for: the growth of
   * this process's cutime + cstime (/proc/self/stat) over the run, so one measured run at a time; null
   * where /proc is not there
   */
  cpuSeconds: number | null;
  /** the peak of the summed RSS of the process tree, MB; null where /proc is not there */
  peakRssMb: number | null;
  stdout: string;
  stderr: string;
}

/** Every process's parent, from /proc/<pid>/stat (the field after the command's closing parenthesis). */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      out.set(Number(name), ppid);
    } catch {
      // the process ended between the listing and the read
    }
  }
  return out;
}

/** The summed VmRSS (kB) of `root` and its descendants. */
function treeRssKb(root: number): number {
  const parentOf = parents();
  const tree = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parentOf)
      if (!tree.has(pid) && tree.has(ppid)) {
        tree.add(pid);
        grew = true;
      }
  }
  let kb = 0;
  for (const pid of tree) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      kb += m ? Number(m[1]) : 0;
    } catch {
      // ended
    }
  }
  return kb;
}

/** Clock ticks per second of /proc's times (`getconf CLK_TCK`, 100 where it cannot say). */
let ticksPerSecond: number | null = null;
function clockTicks(): number {
  if (ticksPerSecond === null) {
    const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
    const n = Number(out.stdout?.trim());
    ticksPerSecond = Number.isInteger(n) && n > 0 ? n : 100;
  }
  return ticksPerSecond;
}

/** The CPU time (seconds) of this process's children that ended and were waited for (cutime + cstime). */
export function childrenCpuSeconds(): number | null {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is the state, field 3 of proc(5); cutime and cstime are fields 16 and 17
    return (Number(fields[13]) + Number(fields[14])) / clockTicks();
  } catch {
    return null;
  }
}

/**
 * Runs `command args` in `cwd` with `env`, sampling its tree's memory until it exits (`sample: false`:
 * only its output, exit code and wall time; peakRssMb null).
 */
export function runMeasured(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  opts: { sample?: boolean } = {},
): Promise<TreeRun> {
  const proc = opts.sample !== false && existsSync('/proc/self/status');
  return new Promise((resolve, reject) => {
    const cpu0 = childrenCpuSeconds();
    const t0 = performance.now();
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    let peakKb = 0;
    const sample = () => {
      if (proc && child.pid !== undefined) peakKb = Math.max(peakKb, treeRssKb(child.pid));
    };
    const timer = setInterval(sample, 100);
    child.on('error', (e) => {
      clearInterval(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearInterval(timer);
      const cpu1 = childrenCpuSeconds();
      resolve({
        code,
        seconds: (performance.now() - t0) / 1000,
        cpuSeconds: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0,
        peakRssMb: proc ? peakKb / 1024 : null,
        stdout,
        stderr,
      });
    });
  });
}
