/**
 * Which values the configuration sends to servers are secrets, so that they never reach a
 * model, an event or an error message. Chosen by what names them (a header, an env variable,
 * a command-line flag or a URL parameter, by the one rule in errors/secretName.ts) or by their
 * shape (a credential-looking token, a URL's password); and every env value that does not read
 * as a setting, since a server's env is where its credentials go under any name. Ordinary values
 * such as `true`, `production`, `application/json` or a path stay readable.
 */
import { looksLikeCredential, MIN_SECRET_LENGTH, type RedactOptions } from "../errors/redact.js";
import { isSecretName, isSecretQueryName } from "../errors/secretName.js";
import type { ModelTextOptions } from "../errors/text.js";
import type { McpToolkitConfig } from "./schema.js";

/** A flag with its value glued on (`--api-key=x`) or standing alone (`--password`). */
const FLAG = /^--?([A-Za-z][\w.-]*)(?:=([\s\S]*))?$/;

/**
 * Values that say something about a secret without being one (`USE_AUTH=true`), and a path to
 * a key file (`--ssh-key ~/.ssh/id_ed25519`): redacting them would blank ordinary words and paths
 * from every message, and hide nothing.
 */
const NOT_A_SECRET = /^(?:true|false|yes|no|on|off|null|none|undefined|enabled|disabled|required|optional)$/i;
const PATH = /^(?:~|\.{1,2})?[/\\][^\s]*$|^[A-Za-z]:[/\\][^\s]*$/;

/**
 * What the configuration's one redaction removes: its secrets, `errors.redact` and the
 * `errors.maxLength` of model text. The toolkit, `doctor` and the configuration's own errors all
 * make their `Redactor` from this. Reads a configuration that failed validation too, taking what
 * it can: an invalid field is the one a config error is about to echo.
 */
export function redactionOf(config: unknown): ModelTextOptions {
  const { secrets, words } = collectSecrets(config);
  const errors = isRecord(config) && isRecord(config.errors) ? config.errors : {};
  const patterns = Array.isArray(errors.redact) ? errors.redact.filter((p): p is string | RegExp => typeof p === "string" || p instanceof RegExp) : [];
  return {
    secrets,
    words,
    ...(patterns.length > 0 ? { patterns } : {}),
    ...(typeof errors.maxLength === "number" ? { maxLength: errors.maxLength } : {}),
  };
}

/**
 * The configuration's secrets, split in two: credential-shaped values, removed wherever they
 * appear, and word-like ones (a password such as `admin`), removed only as whole tokens.
 */
export function collectSecrets(config: McpToolkitConfig | unknown): Required<Pick<RedactOptions, "secrets" | "words">> {
  const named: string[] = [];
  const servers = isRecord(config) && isRecord(config.servers) ? Object.values(config.servers) : [];
  for (const server of servers) if (isRecord(server)) named.push(...serverSecrets(server));
  const secrets = new Set<string>();
  const words = new Set<string>();
  for (const value of named) {
    for (const part of [value, ...schemeless(value)]) {
      if (part.trim().length < MIN_SECRET_LENGTH) continue;
      (looksLikeCredential(part) || /[^A-Za-z0-9 _.-]/.test(part.trim()) ? secrets : words).add(part);
    }
  }
  return { secrets: longestFirst(secrets), words: longestFirst(words) };
}

function serverSecrets(server: Record<string, unknown>): string[] {
  const out: string[] = [];
  // A header is a secret by its name or its shape; an env value unless it reads as a setting.
  const header = (name: string, value: string) => isSecretName(name) ? isSecretValue(value) : looksLikeCredential(value);
  const env = (name: string, value: string) => isSecretName(name) ? isSecretValue(value) : !isOrdinaryValue(value);
  const take = (record: unknown, isSecret: (name: string, value: string) => boolean) => {
    if (!isRecord(record)) return;
    for (const [name, value] of Object.entries(record)) {
      // Only text is sent; anything else is what a config error is about, and has no secret to keep.
      if (typeof value !== "string") continue;
      if (isSecret(name, value)) out.push(value);
      // `DATABASE_URL=postgres://app:pw@db/app`: the password alone leaks too.
      out.push(...urlSecrets(value));
    }
  };
  if ("headers" in server) take(server.headers, header);
  if ("env" in server) take(server.env, env);
  if ("args" in server && Array.isArray(server.args)) out.push(...argSecrets(server.args.filter((a): a is string => typeof a === "string")));
  if ("url" in server && server.url) out.push(...urlSecrets(String(server.url)));
  return out;
}

/**
 * An env value that reads as a setting rather than a credential, kept readable as ERRORS.md
 * asks: a flag's state (`true`, `off`), a number (a port), a path, a MIME type, a word or words
 * of letters only (`production`, `json`, `us-east`), and a URL that is only an origin
 * (`http://collector:4318`). Anything else may be a credential under a name that does not say so
 * (`DB_CONN`, `DSN`, a webhook URL whose path is its secret) and is redacted.
 */
function isOrdinaryValue(value: string): boolean {
  const v = value.trim();
  if (NOT_A_SECRET.test(v) || PATH.test(v) || /^[-+]?\d+(?:\.\d+)?$/.test(v) || /^[a-z]+\/[a-z0-9.+-]+$/i.test(v)) return true;
  if (/^[A-Za-z]+(?:[ ._-][A-Za-z]+)*$/.test(v)) return true;
  if (!v.includes("://")) return false;
  try {
    const url = new URL(v);
    return !url.username && !url.password && (url.pathname === "" || url.pathname === "/") && !url.search && !url.hash;
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A value under a secret name, unless it reads as a flag's state or a path to a key file. */
function isSecretValue(value: string): boolean {
  const v = value.trim();
  return !NOT_A_SECRET.test(v) && !PATH.test(v);
}

/** Values after secret-named flags (`--password x`, `--api-key=x`), and credential-shaped arguments. */
function argSecrets(args: readonly string[]): string[] {
  const out: string[] = [];
  args.forEach((arg, i) => {
    const flag = FLAG.exec(arg);
    if (flag && isSecretName(flag[1]!)) {
      const value = flag[2] ?? args[i + 1];
      if (value !== undefined && !FLAG.test(value) && isSecretValue(value)) out.push(value);
    } else if (looksLikeCredential(arg)) out.push(arg);
    else out.push(...urlSecrets(flag?.[2] ?? arg));
  });
  return out;
}

/** The password in the URL's user info, and the values of secret-named query parameters. */
function urlSecrets(href: string): string[] {
  if (!href.includes("://")) return [];
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return [];
  }
  const out: string[] = [];
  if (url.password) out.push(safeDecode(url.password));
  else if (url.username && looksLikeCredential(url.username)) out.push(safeDecode(url.username));
  for (const [name, value] of url.searchParams) if (isSecretQueryName(name) || looksLikeCredential(value)) out.push(value);
  return out;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // a stray "%" stays as it was written
  }
}

/** "Bearer abc…" leaks its token alone too. */
function schemeless(value: string): string[] {
  return /\s/.test(value.trim()) ? value.trim().split(/\s+/).filter((p) => p.length >= 8) : [];
}

function longestFirst(values: Set<string>): string[] {
  return [...values].sort((a, b) => b.length - a.length);
}
