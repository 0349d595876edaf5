/**
 * The one rule for what names a secret: a header, an env variable, a command-line flag, a URL
 * parameter in the configuration; a key in tool arguments, in structured error data, and in
 * `key=value` or `"key": "value"` text. Both the configuration's secrets (config/secrets.ts)
 * and the redaction of text and values (redact.ts) ask this module, so they cannot disagree:
 * two lists that once did let `DB_PASS` through one of them.
 *
 * A name is cut into words (`DB_PASS`, `dbPass`, `db-pass` and `db.pass` all read "db pass"),
 * and matched word by word, so a secret word never matches inside an ordinary one: `author`,
 * `passenger`, `keyboard`, `secretary`, `max_tokens` and `bypass` stay readable.
 */

/** Words that name a secret wherever they stand in a name. */
const SECRET_WORDS = new Set([
  "pass",
  "passwd",
  "password",
  "passwords",
  "passphrase",
  "passcode",
  "pwd",
  "pw",
  "secret",
  "secrets",
  "token",
  "credential",
  "credentials",
  "creds",
  "cred",
  "cookie",
  "cookies",
  "session",
  "auth",
  "authorization",
  "bearer",
  "jwt",
  "signature",
  "sig",
  "otp",
  "totp",
]);

/**
 * Words after which `key` (or `keys`) names a secret: `api_key`, `accessKey`, `PRIVATE_KEY`,
 * `x-apikey`. A bare `key` does not: a cache, sort or map key (`{ key: "user:42" }`) is data the
 * model needs to read. A credential under a bare `key` is still caught by its shape, and a
 * URL's `?key=` by {@link isSecretQueryName}.
 */
const KEY_QUALIFIERS = new Set([
  "api",
  "access",
  "secret",
  "private",
  "signing",
  "sign",
  "encryption",
  "decryption",
  "master",
  "client",
  "license",
  "licence",
  "subscription",
  "auth",
  "session",
  "service",
  "account",
  "app",
  "admin",
  "root",
  "ssh",
  "hmac",
  "shared",
  "webhook",
  "ingest",
  "deploy",
  "personal",
  "consumer",
  "pass",
]);

/**
 * Words that, after a secret word, say the name holds something about the secret rather than
 * the secret: `TOKEN_URL`, `API_KEY_FILE`, `SESSION_TIMEOUT`, `token_type`, `AUTH_ENABLED`.
 */
const QUALIFIERS = new Set([
  "url",
  "uri",
  "endpoint",
  "host",
  "hostname",
  "port",
  "path",
  "file",
  "filename",
  "dir",
  "directory",
  "location",
  "type",
  "name",
  "count",
  "limit",
  "length",
  "len",
  "size",
  "budget",
  "ttl",
  "timeout",
  "expiry",
  "expires",
  "expiration",
  "lifetime",
  "age",
  "mode",
  "method",
  "methods",
  "enabled",
  "disabled",
  "enable",
  "disable",
  "required",
  "scheme",
  "provider",
  "issuer",
  "audience",
  "scope",
  "scopes",
  "format",
  "algorithm",
  "alg",
  "version",
  "strategy",
  "policy",
]);

/** `bypass`, `compass`: ordinary words that end like a password's short name. */
const NOT_A_PASS = new Set(["by", "com", "sur", "over", "under", "tres", "encom", "im"]);

// Error codes that name a secret's state, not a secret: OAuth's `invalid_token: The access token
// expired` is prose to keep, where `access_token: abc…` is a value to hide.
const STATE_OF_A_SECRET =
  /^(?:invalid|expired|missing|bad|revoked|unknown|insufficient)[_-]?(?:token|grant|client|credentials?|password|session)$|^(?:token|session|password|credentials?)[_-]?(?:expired|invalid|revoked|missing|required)$/i;

/**
 * Every name {@link isSecretName} accepts holds one of these, in any case (a superset, with no
 * lookaround): text that holds none of them holds no secret-named key, so one scan for it can
 * skip the costlier key-by-key pass.
 */
export const SECRET_NAME_HINT = /pass|pw|secret|token|key|cred|cookie|sess|auth|bearer|jwt|sig|otp/i;

/** A name's words, lowercased: camelCase, `snake_case`, `kebab-case`, dots and digits split it. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/([A-Za-z])([0-9])/g, "$1 $2")
    .replace(/([0-9])([A-Za-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

/**
 * Does this name say its value is a secret? `password`, `DB_PASS`, `PGPASSWORD`, `apiKey`,
 * `X-Api-Key`, `client_secret`, `refreshToken`, `Authorization`, `Set-Cookie`, `session_id`,
 * `x-amz-signature`; not `author`, `passenger`, `max_tokens`, `keyboard`, `sort_key`,
 * `token_url`, `invalid_token`.
 */
export function isSecretName(name: string): boolean {
  if (!SECRET_NAME_HINT.test(name)) return false;
  let verdict = verdicts.get(name);
  if (verdict === undefined) {
    // Names repeat (the same keys in every error's data, the same env names): judged once each.
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    verdict = judge(name);
    verdicts.set(name, verdict);
  }
  return verdict;
}

const verdicts = new Map<string, boolean>();
const MAX_VERDICTS = 2048;

function judge(name: string): boolean {
  if (STATE_OF_A_SECRET.test(name)) return false;
  const words = nameWords(name);
  let secretAt = -1;
  words.forEach((word, i) => {
    if (isSecretWord(word, words[i - 1])) secretAt = i;
  });
  if (secretAt === -1) return false;
  // `TOKEN_URL`, `API_KEY_FILE_PATH`: what follows the last secret word says what the value is.
  for (let i = secretAt + 1; i < words.length; i++) if (QUALIFIERS.has(words[i]!)) return false;
  return true;
}

function isSecretWord(word: string, before: string | undefined): boolean {
  if (SECRET_WORDS.has(word)) return true;
  if (word === "key" || word === "keys") return before !== undefined && KEY_QUALIFIERS.has(before);
  // One word made of two: `apikey`, `privatekey`, `accesstoken`, `clientsecret`, `pgpassword`, `dbpass`, `phpsessid`.
  if (/(?:token|secret|passw(?:or)?d|passphrase|cookie|credentials?|sess(?:ion)?id|pwd)$/.test(word)) return true;
  if (/passw/.test(word)) return true;
  const key = /^([a-z]+?)keys?$/.exec(word);
  if (key && KEY_QUALIFIERS.has(key[1]!)) return true;
  const pass = /^([a-z]+)pass$/.exec(word);
  return pass !== null && !NOT_A_PASS.has(pass[1]!);
}

/**
 * Query parameters that carry a credential in a URL, beyond every {@link isSecretName}: there a
 * bare `key` (Google's `?key=`), `sig` or OAuth's `code` is always one.
 */
export const SECRET_QUERY_NAMES = ["key", "sig", "signature", "code", "access_token", "client_secret", "x-amz-signature", "x-amz-credential", "x-goog-signature"] as const;

/** Is this URL query parameter's value a secret? */
export function isSecretQueryName(name: string): boolean {
  return (SECRET_QUERY_NAMES as readonly string[]).includes(name.toLowerCase()) || isSecretName(name);
}
