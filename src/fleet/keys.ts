import { createHash } from "node:crypto";
import type { ServerConfig } from "../config/index.js";

/**
 * The four keys of one server (see scripts.ts), scoped by its name and a hash of how this
 * process reaches it: two toolkits that call the same name with other credentials (another
 * tenant's token, another URL) share nothing. Only the hash is stored, never a secret. The
 * `{…}` hash tag puts all four in one Redis Cluster slot, as a Lua script needs.
 */
export function serverKeys(prefix: string, name: string, server: ServerConfig): string[] {
  const tag = `{${name}:${credentialHash(server)}}`;
  return ["open", "tripped", "evidence", "wait"].map((key) => `${prefix}:${tag}:${key}`);
}

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
