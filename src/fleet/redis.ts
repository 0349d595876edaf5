import type { NodeRedisLike, RedisClientLike } from "../config/schema.js";
import type { Script } from "./scripts.js";

/** Runs a script on the user's client: EVALSHA, and EVAL once if Redis has not seen it (NOSCRIPT). */
export type RunScript = (script: Script, keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown>;

type Method = (...args: unknown[]) => unknown;

/**
 * Adapts ioredis and node-redis (v4, v5), told apart by shape, since neither is a dependency:
 * node-redis names it `evalSha(sha, { keys, arguments })`, ioredis `evalsha(sha, numKeys, ...keys, ...args)`.
 */
export function scriptRunner(client: RedisClientLike): RunScript {
  const nodeRedis = typeof (client as Partial<NodeRedisLike>).evalSha === "function";
  const call = (name: string, ...args: unknown[]) => Promise.resolve(((client as unknown as Record<string, Method>)[name] as Method).apply(client, args));
  const send = (byName: "sha" | "source", script: Script, keys: readonly string[], args: readonly (string | number)[]) => {
    const body = byName === "sha" ? script.sha : script.source;
    if (nodeRedis) return call(byName === "sha" ? "evalSha" : "eval", body, { keys: [...keys], arguments: args.map(String) });
    return call(byName === "sha" ? "evalsha" : "eval", body, keys.length, ...keys, ...args.map(String));
  };
  return async (script, keys, args) => {
    try {
      return await send("sha", script, keys, args);
    } catch (error) {
      if (!String((error as Error | undefined)?.message).includes("NOSCRIPT")) throw error;
      return send("source", script, keys, args);
    }
  };
}

