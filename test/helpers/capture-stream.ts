/** A stand-in for stderr (not a terminal) that keeps what is written to it, for progress output. */
export function captureStream(): { write(text: string): boolean; text: string; isTTY: false } {
  const s = {
    text: '',
    isTTY: false as const,
    write(text: string) {
      s.text += text;
      return true;
    },
  };
  return s;
}
