/**
 * Secret redaction for anything a model reads. Built-in shapes cover common tokens;
 * callers add the exact values they sent (headers, env) and patterns of their own.
 */

export const REDACTED = "[REDACTED]";

/** Key names whose values are secrets, in arguments and in `key=value` / `"key": "value"` text. */
export const SECRET_KEY =
  /(?:password|passwd|passphrase|(?<![a-z])pass(?![a-z])|secret|token(?!s)|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|cookie|session[_-]?id|authorization|(?<![a-z])auth(?![a-z]))/i;

const BUILT_IN: readonly RegExp[] = [
  // Authorization schemes.
  /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/g,
  // JSON Web Tokens.
  /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g,
  // Vendor key shapes: OpenAI/Anthropic, GitHub, AWS access keys, Slack, Google.
  /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{35}\b/g,
];

// Credentials inside URLs: scheme://user:password@host
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]+:[^\s/@]+@/gi;
// key=value, key: value, "key": "value" where the key names a secret.
const KEY_VALUE = new RegExp(
  `((?:["']?)[\\w.-]*${SECRET_KEY.source}[\\w.-]*["']?\\s*[:=]\\s*)("(?:[^"\\\\]|\\\\.)*"|'[^']*'|[^\\s,;&}\\]]+)`,
  "gi",
);

export interface RedactOptions {
  /** Exact values to remove wherever they appear (header values, env values). */
  secrets?: readonly string[];
  /** Extra patterns; a string is matched literally. */
  patterns?: readonly (string | RegExp)[];
}

/** Removes secrets from text. Exact values go first so a pattern cannot split one. */
export function redact(text: string, options: RedactOptions = {}): string {
  let out = text;
  for (const secret of options.secrets ?? []) {
    // Very short values would redact ordinary words; they are not secrets worth the noise.
    if (secret.length >= 4) out = out.split(secret).join(REDACTED);
  }
  for (const p of options.patterns ?? []) {
    out = typeof p === "string" ? (p.length > 0 ? out.split(p).join(REDACTED) : out) : out.replace(globalize(p), REDACTED);
  }
  out = out.replace(URL_CREDENTIALS, `$1${REDACTED}@`);
  for (const re of BUILT_IN) {
    out = out.replace(re, (match, scheme: unknown) => (typeof scheme === "string" && match.startsWith(scheme) ? `${scheme} ${REDACTED}` : REDACTED));
  }
  out = out.replace(KEY_VALUE, (_m, key: string, value: string) => (value.includes(REDACTED) ? `${key}${value}` : `${key}${REDACTED}`));
  return out;
}

function globalize(re: RegExp): RegExp {
  return re.global ? re : new RegExp(re.source, `${re.flags}g`);
}

/**
 * A deep copy with every secret-named key's value replaced and every string redacted,
 * for tool arguments and structured error data.
 */
export function redactValue(value: unknown, options: RedactOptions = {}, depth = 0): unknown {
  if (typeof value === "string") return redact(value, options);
  if (depth > 20) return "[…]";
  if (Array.isArray(value)) return value.map((v) => redactValue(v, options, depth + 1));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const secret = SECRET_KEY.test(k) && v !== null && v !== undefined && typeof v !== "object";
    // defineProperty keeps a "__proto__" key as data instead of changing the copy's prototype.
    Object.defineProperty(out, k, { value: secret ? REDACTED : redactValue(v, options, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The longest secret a caller supplied; pre-truncation keeps this much margin so no secret is split. */
export function longestSecret(options: RedactOptions): number {
  let max = 0;
  for (const s of options.secrets ?? []) max = Math.max(max, s.length);
  for (const p of options.patterns ?? []) if (typeof p === "string") max = Math.max(max, p.length);
  return max;
}
