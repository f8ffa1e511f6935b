/**
 * A prompt file of rge (prompts/*.md): a `# <Title> <version>` line, `## System` and `## User` sections,
 * HTML comments as documentation. What the subject, generator and confirmation prompts share.
 */

export interface PromptFileParts {
  /** the version after the title, or null when the title is not there */
  version: string | null;
  /** the text under `## System`, or null */
  system: string | null;
  /** the text under `## User` (the message template), or null */
  template: string | null;
}

/** The parts of a prompt file's text whose title is `# <title> <version>`. */
export function promptFileParts(text: string, title: string): PromptFileParts {
  const body = text.replace(/<!--[\s\S]*?-->/g, '');
  const version = new RegExp(`^#\\s+${title}\\s+(\\S+)\\s*$`, 'im').exec(body)?.[1] ?? null;
  const section = (name: string) => {
    const m = new RegExp(`^##\\s+${name}\\s*$`, 'im').exec(body);
    if (!m) return null;
    const rest = body.slice(m.index + m[0].length);
    const next = /^##\s+/m.exec(rest);
    return (next ? rest.slice(0, next.index) : rest).replace(/^\s*\n/, '').replace(/\s+$/, '');
  };
  return { version, system: section('System'), template: section('User') };
}
