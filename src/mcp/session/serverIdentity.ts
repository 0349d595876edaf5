/**
 * What identifies a server and the credentials this process reaches it with, as a short digest:
 * the fleet's Redis keys and the tool catalog's entries are scoped by it, so two toolkits that
 * name a server alike but reach another URL, or carry another tenant's token, share nothing.
 *
 * The digest must be the same in every process given the same configuration (workers share Redis
 * keys; a catalog exported by one process is read by the next), so it cannot take a random salt;
 * and it is read by whoever reads the catalog file or lists Redis' keys, so a fast hash would let
 * a dictionary recover a word-like password from it (64 bits of SHA-256 take a laptop a moment
 * per million guesses). It is scrypt's (N = 2^14, r = 8: 16 MiB and some 40 ms a guess): the
 * same for everyone who holds the secrets, thousands of times dearer per guess for whoever does
 * not. The input holds the server's URL or command as well, so no table computed for one
 * deployment serves another. A process works each digest out once, on the libuv pool when it can
 * (`identitiesReady`).
 */
import { platform } from "../../platform/index.js";
import type { ServerConfig } from "../../config/index.js";

const SALT = "langchain-mcp-errors/server-identity/v2";
const COST = { N: 1 << 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
/** 8 bytes: 16 hex digits, as before; a clash between two configurations of one server name is what it must avoid, and 64 bits do. */
const LENGTH = 8;

/** Each server configuration's digest, with the input it was made from (a config changed in place is worked out again). */
const digests = new WeakMap<object, { input: string; digest: string }>();

/** 16 hex digits that identify the server and the caller's credentials; see the module's comment. */
export function credentialHash(server: ServerConfig): string {
  const input = identityInput(server);
  const known = digests.get(server);
  if (known?.input === input) return known.digest;
  const digest = platform.scryptHex(input, SALT, LENGTH, COST);
  digests.set(server, { input, digest });
  return digest;
}

/**
 * Works out the servers' digests off the event loop, all at once, so that `credentialHash` later
 * finds them: a toolkit with `sharedState` or a `catalog` calls it before it needs them.
 */
export async function identitiesReady(servers: Iterable<ServerConfig>): Promise<void> {
  await Promise.all(
    [...servers].map(async (server) => {
      if ("client" in server) return;
      const input = identityInput(server);
      if (digests.get(server)?.input === input) return;
      digests.set(server, { input, digest: await platform.scryptHexAsync(input, SALT, LENGTH, COST) });
    }),
  );
}

function identityInput(server: ServerConfig): string {
  const s = server as Partial<Record<"transport" | "url" | "command" | "args" | "headers" | "env", unknown>>;
  return JSON.stringify({
    transport: s.transport ?? "client",
    url: s.url === undefined ? undefined : String(s.url),
    command: s.command,
    args: s.args,
    headers: sorted(s.headers),
    env: sorted(s.env),
  });
}

/** Header names differ in case only; the order an object was written in means nothing. */
function sorted(record: unknown): [string, unknown][] | undefined {
  if (record === null || typeof record !== "object") return undefined;
  return Object.entries(record)
    .map(([k, v]): [string, unknown] => [k.toLowerCase(), v])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}
