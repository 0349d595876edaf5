import type { ServerConfig } from "../config/index.js";
import { credentialHash } from "../mcp/session/serverIdentity.js";

export { credentialHash } from "../mcp/session/serverIdentity.js";

/**
 * One server's keys are scoped by its name and a hash of how this process reaches it: two
 * toolkits that call the same name with other credentials (another tenant's token, another
 * URL) share nothing. Only the hash is stored, never a secret. The `{…}` hash tag puts every
 * key of a server in one Redis Cluster slot, as a Lua script over several of them needs.
 */
function serverTag(prefix: string, name: string, server: ServerConfig): string {
  return `${prefix}:{${name}:${credentialHash(server)}}`;
}

/** The six keys of one server's shared circuit, its rates' window, its Retry-After wait and its recovery ping's turn (see scripts.ts). */
export function serverKeys(prefix: string, name: string, server: ServerConfig): string[] {
  const tag = serverTag(prefix, name, server);
  return ["open", "tripped", "evidence", "wait", "window", "ping"].map((key) => `${tag}:${key}`);
}

/** The key of one server's tool catalog (see catalogStore.ts): expires with the listing's ttl. */
export function catalogKey(prefix: string, name: string, server: ServerConfig): string {
  return `${serverTag(prefix, name, server)}:catalog`;
}

/** The key of one server's shared throttle (see SharedThrottle.ts): the fleet's last cut, for a minute. */
export function throttleKey(prefix: string, name: string, server: ServerConfig): string {
  return `${serverTag(prefix, name, server)}:throttle`;
}
