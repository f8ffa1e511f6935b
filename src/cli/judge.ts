/**
 * `rge judge ...`: the judge prompt (print it, pin it in a run config, check the pinned copy); the
 * agreement of judges with people is `rge judge agree` (judge-agree.ts).
 */
import { relative, resolve } from 'node:path';
import { isMap, parseDocument, Scalar } from 'yaml';
import {
  isJudgePromptVersion,
  JUDGE_PROMPT_VERSION,
  JUDGE_PROMPT_VERSIONS,
  judgePromptSha256,
  judgePromptText,
} from '../judging/prompt.ts';
import { RgeError, UsageError } from '../util/errors.ts';
import { readTextFile, writeFileAtomic } from '../util/fs.ts';
import type { CliIO } from './io.ts';

const DEFAULT_PUBLISHED = 'configs/published.yaml';

/** Whether a config's pinned judge prompt is the canonical one; the reason when it is not. */
export function pinnedPromptStatus(configText: string): { current: boolean; reason: string } {
  const json = parseDocument(configText).toJS() as {
    judge_prompt?: { version?: unknown; sha256?: unknown; text?: unknown } | null;
  } | null;
  const prompt = json?.judge_prompt;
  if (!prompt) return { current: false, reason: 'no judge_prompt' };
  if (prompt.version !== JUDGE_PROMPT_VERSION)
    return {
      current: false,
      reason: `version is ${String(prompt.version)}, canonical ${JUDGE_PROMPT_VERSION}`,
    };
  if (prompt.text !== judgePromptText())
    return {
      current: false,
      reason: prompt.text === null ? 'text is not pinned (null)' : 'text differs from the canonical prompt',
    };
  if (prompt.sha256 !== judgePromptSha256())
    return { current: false, reason: `sha256 is ${String(prompt.sha256)}, canonical ${judgePromptSha256()}` };
  return { current: true, reason: `judge prompt ${JUDGE_PROMPT_VERSION} ${judgePromptSha256()}` };
}

/**
 * The config text with `judge_prompt` set to the canonical prompt (version, sha256, text as a literal
 * block), everything else (comments, order, other fields) as it was.
 */
export function withPinnedPrompt(configText: string, file: string): string {
  const doc = parseDocument(configText);
  if (doc.errors.length > 0) throw new RgeError(`not valid YAML: ${doc.errors[0]?.message ?? ''}`, { file });
  if (!isMap(doc.contents)) throw new RgeError('a run config is a YAML map', { file });
  const text = new Scalar(judgePromptText());
  text.type = Scalar.BLOCK_LITERAL;
  doc.setIn(['judge_prompt', 'version'], JUDGE_PROMPT_VERSION);
  doc.setIn(['judge_prompt', 'sha256'], judgePromptSha256());
  doc.setIn(['judge_prompt', 'text'], text);
  const out = doc.toString({ lineWidth: 0 });
  // The written text must read back as the canonical prompt, byte for byte.
  if (!pinnedPromptStatus(out).current)
    throw new RgeError('the pinned prompt does not read back unchanged', { file });
  return out;
}

/** `rge judge prompt` (options in judge-commands.ts). */
export async function judgePromptAction(
  opts: { writeConfig?: string; check?: string | boolean; promptVersion?: string },
  io: CliIO,
): Promise<void> {
  if (opts.check !== undefined) {
    const file = typeof opts.check === 'string' ? opts.check : (opts.writeConfig ?? DEFAULT_PUBLISHED);
    const path = resolve(io.cwd, file);
    const status = pinnedPromptStatus(await readTextFile(path));
    const name = relative(io.cwd, path) || path;
    if (status.current) io.out(`${name}: current (${status.reason})\n`);
    else {
      io.err(`${name}: stale judge prompt: ${status.reason}; run rge judge prompt --write-config ${file}\n`);
      io.exitCode = 1;
    }
    return;
  }
  if (opts.writeConfig !== undefined) {
    const path = resolve(io.cwd, opts.writeConfig);
    await writeFileAtomic(path, withPinnedPrompt(await readTextFile(path), path));
    io.out(
      `${relative(io.cwd, path) || path}: judge prompt ${JUDGE_PROMPT_VERSION} ${judgePromptSha256()}\n`,
    );
    return;
  }
  const version = opts.promptVersion ?? JUDGE_PROMPT_VERSION;
  if (!isJudgePromptVersion(version))
    throw new UsageError(
      `--prompt-version must be one of ${JUDGE_PROMPT_VERSIONS.join(', ')}, got ${version}`,
    );
  const text = judgePromptText(version);
  io.out(`# judge prompt ${version} sha256 ${judgePromptSha256(text)}\n${text}\n`);
}
