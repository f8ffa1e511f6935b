/**
 * What a CLI command receives: where to write, the working folder, and the exit code it wants
 * (commands that finish with some failures set it to 1; thrown `RgeError`s carry their own).
 */
export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
  cwd: string;
  exitCode: number;
}

export function processIO(): CliIO {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    cwd: process.cwd(),
    exitCode: 0,
  };
}
