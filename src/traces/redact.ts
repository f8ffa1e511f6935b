/**
 * Secrets in logged traffic: an application's spans may carry an API key or a bearer token (a logged
 * request header, a prompt that pasted one). Every text an import keeps passes through `redactLogged`:
 * the house redaction (`redactSecrets`: the keys rge itself holds, and their masked or cut forms), then
 * the shapes of the keys and tokens a log may carry that rge never registered. An attribute whose name
 * says it holds a secret (`authorization`, `api_key`, `password`, ...) is kept only as `[redacted]`.
 */
import { redactSecrets } from '../providers/credentials.ts';

const REDACTED = '[redacted]';

/** The shapes of well-known keys and tokens (the prefix alone says what it is; the rest goes). */
const SECRET_SHAPES: readonly RegExp[] = [
  // an Authorization header's credentials: Bearer, Basic, Token
  /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/g,
  // OpenAI, Anthropic (sk-..., sk-proj-..., sk-ant-api03-...)
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  // Google API keys
  /\bAIza[0-9A-Za-z_-]{30,}/g,
  // GitHub, Slack, Hugging Face, AWS access key ids
  /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|xox[abposr]-[A-Za-z0-9-]{10,}|hf_[A-Za-z0-9]{30,}|AKIA[0-9A-Z]{16})\b/g,
  // key=value and "key": "value" pairs whose key names a secret
  /\b(api[_-]?key|access[_-]?token|secret|password|x-api-key)(["']?\s*[:=]\s*["']?)[^\s"',;&]{6,}/gi,
];

/** `text` with every secret rge holds and every well-known key or token shape replaced by `[redacted]`. */
export function redactLogged(text: string): string {
  let out = redactSecrets(text);
  if (!/Bearer|Basic|Token|sk-|AIza|gh[pousr]_|xox|hf_|AKIA|key|secret|password/i.test(out)) return out;
  for (const shape of SECRET_SHAPES)
    out = out.replace(shape, (match, ...groups) => {
      const first = groups[0];
      if (typeof first === 'string' && typeof groups[1] === 'string')
        return `${first}${groups[1]}${REDACTED}`;
      if (typeof first === 'string' && /^(Bearer|Basic|Token)$/.test(first)) return `${first} ${REDACTED}`;
      return match.length > 0 ? REDACTED : match;
    });
  return out;
}

/** Whether an attribute's name says its value is a secret. */
export function isSecretName(name: string): boolean {
  return /(authorization|api[_-]?key|apikey|password|passwd|secret|cookie|credential|token$)/i.test(name);
}
