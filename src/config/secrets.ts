/**
 * Which values the configuration sends to servers are secrets, so that they never reach a
 * model, an event or an error message. Chosen by what names them (a header, an env variable,
 * a command-line flag or a URL parameter, by the one rule in errors/secretName.ts) or by their
 * shape (a credential-looking token, a URL's password); ordinary values such as `true`,
 * `production`, `application/json` or a path stay readable.
 */
import { looksLikeCredential, MIN_SECRET_LENGTH, type RedactOptions } from "../errors/redact.js";
import { isSecretName, isSecretQueryName } from "../errors/secretName.js";
import type { McpToolkitConfig, ServerConfig } from "./index.js";

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
 * The configuration's secrets, split in two: credential-shaped values, removed wherever they
 * appear, and word-like ones (a password such as `admin`), removed only as whole tokens.
 */
export function collectSecrets(config: McpToolkitConfig): Required<Pick<RedactOptions, "secrets" | "words">> {
  const named: string[] = [];
  for (const server of Object.values(config.servers)) named.push(...serverSecrets(server));
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

function serverSecrets(server: ServerConfig): string[] {
  const out: string[] = [];
  const named = (name: string, value: string) => {
    if (isSecretName(name) ? isSecretValue(value) : looksLikeCredential(value)) out.push(value);
    // `DATABASE_URL=postgres://app:pw@db/app`: the password alone leaks too.
    out.push(...urlSecrets(value));
  };
  if ("headers" in server && server.headers) for (const [name, value] of Object.entries(server.headers)) named(name, value);
  if ("env" in server && server.env) for (const [name, value] of Object.entries(server.env)) named(name, value);
  if ("args" in server && server.args) out.push(...argSecrets(server.args));
  if ("url" in server && server.url) out.push(...urlSecrets(String(server.url)));
  return out;
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
