/**
 * Secret redaction for anything a model reads. Built-in shapes cover common tokens;
 * callers add the exact values they sent (headers, env) and patterns of their own. Which
 * names say a value is secret is one rule, in secretName.ts.
 */
import { exactValues, redactExact } from "./redactExact.js";
import { REDACTED, type RedactOptions } from "./redactOptions.js";
import { isSecretName, SECRET_NAME_HINT, SECRET_QUERY_NAMES } from "./secretName.js";

export { isSecretName } from "./secretName.js";
export { exactValues, redactExact } from "./redactExact.js";
export { MIN_SECRET_LENGTH, REDACTED, type RedactOptions } from "./redactOptions.js";

// Where a shape could also end an ordinary word ("task-…", "EURASIAN…"), it must start
// where no letter or digit precedes it; "_" and "-" may ("key_sk-…"). The distinctive
// prefixes match anywhere, so a token glued to a word (say, once an ANSI escape between
// them is stripped) still goes.
const START = "(?<![A-Za-z0-9])";

const BUILT_IN: readonly RegExp[] = [
  // PEM private keys; an unterminated block (a cut message) is redacted to the end.
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g,
  // JSON Web Tokens; the signature is optional so an unsigned or cut token still goes.
  /eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}(?:\.[A-Za-z0-9_-]*)?/g,
  // Vendor key shapes: OpenAI/Anthropic, GitHub, GitLab, Slack, Google, AWS access keys,
  // Stripe, npm, Hugging Face. No trailing boundary: a key glued to the next word still goes.
  /sk-(?:ant|proj)-[A-Za-z0-9_-]{16,}/g,
  new RegExp(`${START}sk-[A-Za-z0-9_-]{16,}`, "g"),
  /gh[pousr]_[A-Za-z0-9]{20,}/g,
  /github_pat_[A-Za-z0-9_]{20,}/g,
  /glpat-[A-Za-z0-9_-]{20,}/g,
  /xox[abposre]-[A-Za-z0-9-]{10,}/g,
  /ya29\.[A-Za-z0-9_-]{20,}/g,
  new RegExp(`${START}AIza[0-9A-Za-z_-]{35}`, "g"),
  new RegExp(`${START}(?:AKIA|ASIA)[0-9A-Z]{16}`, "g"),
  new RegExp(`${START}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`, "g"),
  new RegExp(`${START}npm_[A-Za-z0-9]{36}`, "g"),
  new RegExp(`${START}hf_[A-Za-z0-9]{30,}`, "g"),
];

// Authorization schemes, in any case. The credential must look like one (a digit or a
// symbol, or 20+ letters) so prose such as "Basic authentication failed" survives. The
// scheme may be glued to what precedes it: stripping an escape can eat the separator
// ("0\u001b( Basic …" cleans to "0Basic …"), and a leaked credential costs more than a
// redacted word.
const AUTH_SCHEME = new RegExp(
  `(Bearer|Basic|Token|Digest)\\s+(?=[A-Za-z0-9._~+/=-]{8})(?:[A-Za-z0-9._~+/=-]*[0-9._~+/=][A-Za-z0-9._~+/=-]*|[A-Za-z]{20,}(?![0-9._~+/=-]))`,
  "gi",
);

// Credentials inside URLs: scheme://user:password@host (a password may hold an unencoded
// "@": the userinfo runs to the last one), or a long token alone as the user name.
// The match starts only where a run of scheme characters starts (so a long run costs one
// scan, not one per character), but a scheme must start with a letter: the digits and
// "+", "." or "-" that open such a run are skipped, and kept. Otherwise "+https://u:p@h"
// (or "1https://…", which cleaning gives when an escape eats the space before a URL)
// would show its password.
const URL_CREDENTIALS = /(?<![a-z0-9+.-])([0-9+.-]*[a-z][a-z0-9+.-]*:\/\/)(?:[^\s/?#@:]*:[^\s/?#]*|[^\s/?#@:]{16,})@/gi;

// key=value, key: value, "key": "value" (also JSON-escaped inside a string). The key is
// matched as a whole word and tested with isSecretName; a pattern with the key names inside
// it would backtrack quadratically through a long word. An auth scheme after the
// separator stays readable.
const KEY = /(?:\\?["'])?(?<![\w.-])([\w.-]+)(?:\\?["'])?\s*[:=]\s*(?:(?:Bearer|Basic|Token|Digest)\s+)?/gi;
const VALUE = /"(?:[^"\\]|\\.)*"|\\"(?:[^"\\]|\\[^"])*\\"|'[^']*'|(?:\[REDACTED\]|[^\s,;&}\]])+/y;

// Query parameters that carry credentials in URLs (`?key=…`, `&sig=…`); the key=value rule
// below already covers the names that read as secrets anywhere (token, password, api_key…).
const QUERY_SECRET = new RegExp(`([?&;](?:${SECRET_QUERY_NAMES.map((n) => n.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")).join("|")})=)([^&#\\s"'<>]+)`, "gi");

/**
 * Removes secrets from text. Exact values go first, all at once, so neither a pattern nor
 * another exact value can split one and leave a piece behind.
 */
export function redact(text: string, options: RedactOptions = {}): string {
  let out = redactKnown(text, options);
  // Each group of shapes runs only where its telltale is present: most error messages hold
  // none, and one scan for it is much cheaper than the group's own scans.
  if (out.includes("://")) out = out.replace(URL_CREDENTIALS, `$1${REDACTED}@`);
  if (out.includes("=")) out = out.replace(QUERY_SECRET, `$1${REDACTED}`);
  if (AUTH_HINT.test(out)) out = out.replace(AUTH_SCHEME, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  if (SHAPE_HINT.test(out)) for (const re of BUILT_IN) out = out.replace(re, REDACTED);
  return SECRET_NAME_HINT.test(out) && /[:=]/.test(out) ? redactKeyValues(out) : out;
}

/**
 * Removes only what the caller named: the exact values, the words and the patterns, none of the
 * built-in shapes. For text a tool answered with, where a token's shape is the answer (a tool that
 * issues keys) but a configured secret never is.
 */
export function redactKnown(text: string, options: RedactOptions = {}): string {
  let out = redactExact(text, exactValues(options));
  for (const p of options.patterns ?? []) {
    // An empty match (a pattern like /x*/) would put a marker between every character.
    if (typeof p !== "string") out = out.replace(globalize(p), (m) => (m ? REDACTED : m));
  }
  return redactWords(out, options.words);
}

// The telltales. Each matches wherever one of its group could (a superset: no lookarounds,
// any case), so a skipped group could never have matched.
const AUTH_HINT = /bearer|basic|token|digest/i;
const SHAPE_HINT = /-----BEGIN|eyJ|sk-|gh[pousr]_|github_pat_|glpat-|xox|ya29\.|AIza|AKIA|ASIA|[sr]k_|npm_|hf_/;

// Compiled per word list; a toolkit's list never changes.
const wordPatterns = new WeakMap<readonly string[], RegExp | null>();

// An escape sequence bounds a word too, though its last character is a letter ("\u001b[0m"):
// cleaning removes it, and a terminal shows the word standing on its own after it.
const AFTER_ESCAPE = String.raw`(?<=\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b[()*+\-./][0-~]|\u001b[@-Z\\-_])`;

/** Replaces each word where no letter or digit touches it on either side (an escape before it counts as none). */
function redactWords(text: string, words: readonly string[] | undefined): string {
  if (!words || words.length === 0) return text;
  // Most text holds none of them: a plain search is much cheaper than the pattern's boundaries.
  const variants = exactValues({ secrets: words });
  if (!variants.some((w) => text.includes(w))) return text;
  let re = wordPatterns.get(words);
  if (re === undefined) {
    const alternatives = variants.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    re = alternatives.length > 0 ? new RegExp(`(?:(?<![A-Za-z0-9])|${AFTER_ESCAPE})(?:${alternatives.join("|")})(?![A-Za-z0-9])`, "g") : null;
    wordPatterns.set(words, re);
  }
  return re ? text.replace(re, REDACTED) : text;
}

/**
 * Does a value look like a credential by its shape alone: a vendor key shape, or a run of 16+
 * token characters holding both letters and digits? URLs, paths, dates and prose do not.
 */
export function looksLikeCredential(value: string): boolean {
  const v = value.trim();
  if (v.length < 16 || /\s/.test(v)) return false;
  if (BUILT_IN.some((re) => new RegExp(re.source).test(v))) return true;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v) || /^[./~]/.test(v)) return false;
  return /^[A-Za-z0-9+/=_.~-]+$/.test(v) && /[0-9]/.test(v) && /[A-Za-z]/.test(v);
}

function redactKeyValues(text: string): string {
  let out = "";
  let at = 0;
  const key = new RegExp(KEY.source, KEY.flags);
  const value = new RegExp(VALUE.source, VALUE.flags);
  for (let m = key.exec(text); m; m = key.exec(text)) {
    // A non-secret key is skipped, not its value: "user: password=hunter2" has two keys.
    if (!isSecretName(m[1]!)) continue;
    value.lastIndex = key.lastIndex;
    const v = withoutClosingPunctuation(value.exec(text)?.[0]);
    if (v === undefined) continue;
    out += text.slice(at, key.lastIndex) + redactedValue(v);
    at = key.lastIndex = key.lastIndex + v.length;
  }
  return out + text.slice(at);
}

/** An unquoted value without the sentence's closing punctuation ("(token=abc123)." keeps ")."), unless it opened a "(" itself. */
function withoutClosingPunctuation(v: string | undefined): string | undefined {
  if (v === undefined || v.startsWith('"') || v.startsWith("'") || v.startsWith("\\")) return v;
  const end = v.includes("(") ? /[.!?:]+$/ : /[.!?:)]+$/;
  const kept = v.replace(end, "");
  return kept === "" ? undefined : kept;
}

/** The value replaced, its quoting kept; a value already redacted stays as it is. */
function redactedValue(v: string): string {
  if (v.startsWith('\\"')) return v.slice(2, -2) === REDACTED ? v : `\\"${REDACTED}\\"`;
  if (v.startsWith('"') || v.startsWith("'")) return v.slice(1, -1) === REDACTED ? v : `${v[0]}${REDACTED}${v[0]}`;
  return REDACTED;
}

function globalize(re: RegExp): RegExp {
  // "g" so every match goes; never "y", which would stop at the first gap.
  const flags = re.flags.replace("y", "");
  return new RegExp(re.source, flags.includes("g") ? flags : `${flags}g`);
}

/**
 * A deep copy with every secret-named key's value replaced and every string redacted,
 * for tool arguments and structured error data.
 */
export function redactValue(value: unknown, options: RedactOptions = {}, depth = 0): unknown {
  return copy(value, (text) => redact(text, options), depth, new WeakSet());
}

function copy(value: unknown, redactString: (text: string) => string, depth: number, ancestors: WeakSet<object>): unknown {
  if (typeof value === "string") return redactString(value);
  // JSON cannot hold a BigInt: the artifact and an event's JSON must stay serializable.
  if (typeof value === "bigint") return String(value);
  if (typeof value !== "object" || value === null) return value;
  if (value instanceof Date) return value;
  if (depth > 20) return "[…]";
  if (ancestors.has(value)) return "[Circular]";
  ancestors.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => copy(v, redactString, depth + 1, ancestors));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // The whole value under a secret-named key goes, objects included ({ credentials: {…} }).
      const replaced = isSecretName(k) && v !== null && v !== undefined ? REDACTED : copy(v, redactString, depth + 1, ancestors);
      // A key is text too: a server may key its data by a secret.
      // defineProperty keeps a "__proto__" key as data instead of changing the copy's prototype.
      Object.defineProperty(out, redactString(k), { value: replaced, enumerable: true, writable: true, configurable: true });
    }
    return out;
  } finally {
    ancestors.delete(value);
  }
}

/** The longest exact value a caller supplied. */
export function longestSecret(options: RedactOptions): number {
  let max = 0;
  for (const s of options.secrets ?? []) max = Math.max(max, s.length);
  for (const s of options.words ?? []) max = Math.max(max, s.length);
  for (const p of options.patterns ?? []) if (typeof p === "string") max = Math.max(max, p.length);
  return max;
}
