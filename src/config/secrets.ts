/**
 * Which values the configuration sends to servers are secrets, so that they never reach a
 * model, an event or an error message. Chosen by what names them (a header, an env variable,
 * a command-line flag or a URL parameter that says key, token, secret, password, credential
 * or session) or by their shape (a credential-looking token); ordinary values such as `true`,
 * `production`, `application/json` or a path stay readable.
 */
import { looksLikeCredential, type RedactOptions } from "../errors/redact.js";
import type { McpToolkitConfig, ServerConfig } from "./index.js";

/** Names whose values are secrets: headers, env variables, flags, URL parameters. */
const SECRET_NAME = /key|token|secret|passw|pwd|credential|session|cookie|auth|sig(?:nature)?$|^sig/i;

/** Headers whose value is always a secret, whatever it looks like. */
const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "cookie", "set-cookie"]);

/** A flag with its value glued on (`--api-key=x`) or standing alone (`--password`). */
const FLAG = /^--?([A-Za-z][\w.-]*)(?:=([\s\S]*))?$/;

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
      if (part.trim().length < 4) continue;
      (looksLikeCredential(part) || /[^A-Za-z0-9 _.-]/.test(part.trim()) ? secrets : words).add(part);
    }
  }
  return { secrets: longestFirst(secrets), words: longestFirst(words) };
}

function serverSecrets(server: ServerConfig): string[] {
  const out: string[] = [];
  if ("headers" in server && server.headers) {
    for (const [name, value] of Object.entries(server.headers)) {
      if (SECRET_HEADERS.has(name.toLowerCase()) || SECRET_NAME.test(name) || looksLikeCredential(value)) out.push(value);
    }
  }
  if ("env" in server && server.env) {
    for (const [name, value] of Object.entries(server.env)) if (SECRET_NAME.test(name) || looksLikeCredential(value)) out.push(value);
  }
  if ("args" in server && server.args) out.push(...argSecrets(server.args));
  if ("url" in server && server.url) out.push(...urlSecrets(String(server.url)));
  return out;
}

/** Values after secret-named flags (`--password x`, `--api-key=x`), and credential-shaped arguments. */
function argSecrets(args: readonly string[]): string[] {
  const out: string[] = [];
  args.forEach((arg, i) => {
    const flag = FLAG.exec(arg);
    if (flag && SECRET_NAME.test(flag[1]!)) {
      const value = flag[2] ?? args[i + 1];
      if (value !== undefined && !FLAG.test(value)) out.push(value);
    } else if (looksLikeCredential(arg)) out.push(arg);
  });
  return out;
}

/** The password in the URL's user info, and the values of secret-named query parameters. */
function urlSecrets(href: string): string[] {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return [];
  }
  const out: string[] = [];
  if (url.password) out.push(decodeURIComponent(url.password));
  else if (url.username && looksLikeCredential(url.username)) out.push(decodeURIComponent(url.username));
  for (const [name, value] of url.searchParams) if (SECRET_NAME.test(name) || looksLikeCredential(value)) out.push(value);
  return out;
}

/** "Bearer abc…" leaks its token alone too. */
function schemeless(value: string): string[] {
  return /\s/.test(value.trim()) ? value.trim().split(/\s+/).filter((p) => p.length >= 8) : [];
}

function longestFirst(values: Set<string>): string[] {
  return [...values].sort((a, b) => b.length - a.length);
}
