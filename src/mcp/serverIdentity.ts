/**
 * What identifies a server and the credentials this process reaches it with, as a short hash:
 * the fleet's Redis keys and the tool catalog's entries are scoped by it, so two toolkits that
 * name a server alike but reach another URL, or carry another tenant's token, share nothing.
 * Only the hash is ever stored, never a secret.
 */
import { createHash } from "node:crypto";
import type { ServerConfig } from "../config/index.js";

/** 16 hex digits of SHA-256 over what identifies the server and the caller's credentials. */
export function credentialHash(server: ServerConfig): string {
  const s = server as Partial<Record<"transport" | "url" | "command" | "args" | "headers" | "env", unknown>>;
  const identity = {
    transport: s.transport ?? "client",
    url: s.url === undefined ? undefined : String(s.url),
    command: s.command,
    args: s.args,
    headers: sorted(s.headers),
    env: sorted(s.env),
  };
  return createHash("sha256").update(JSON.stringify(identity)).digest("hex").slice(0, 16);
}

/** Header names differ in case only; the order an object was written in means nothing. */
function sorted(record: unknown): [string, unknown][] | undefined {
  if (record === null || typeof record !== "object") return undefined;
  return Object.entries(record)
    .map(([k, v]): [string, unknown] => [k.toLowerCase(), v])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
