/** The `sharedState` option: resilience state shared by a fleet of processes on one Redis. */
import { custom, isObject, nonEmptyText, number, options } from "./fields.js";
import type { z } from "zod";

/** An ioredis client (or Cluster): the toolkit calls only its `evalsha` and `eval`. */
export interface IoRedisLike {
  evalsha: (...args: never[]) => unknown;
  eval: (...args: never[]) => unknown;
}
/** A node-redis v4 or v5 client (or cluster): the toolkit calls only its `evalSha` and `eval`. */
export interface NodeRedisLike {
  evalSha: (...args: never[]) => unknown;
  eval: (...args: never[]) => unknown;
}
/** A Redis client the application already created; neither library is a dependency of this one. */
export type RedisClientLike = IoRedisLike | NodeRedisLike;

const isRedisClient = (v: unknown) => isObject(v) && typeof v.eval === "function" && (typeof v.evalsha === "function" || typeof v.evalSha === "function");

/**
 * Resilience state shared by every process on one Redis: the circuit's open/closed decision,
 * its one half-open test, the servers' Retry-After waits, and their throttles' cuts of the send
 * rate. Calls never wait on Redis.
 */
export const SharedStateOptionsSchema = options({
  /** An ioredis or node-redis (v4, v5) client you created; the toolkit never connects or closes it. */
  redis: custom<RedisClientLike>("an ioredis or node-redis client", isRedisClient),
  /** How often each process refreshes its snapshot of the fleet's state, in milliseconds. @default 100 */
  refreshMs: number({ min: 10 }).default(100),
  /** The longest a call waits to learn whether it is the fleet's half-open test, in milliseconds. @default 25 */
  leaseDeadlineMs: number({ min: 1 }).default(25),
  /** How long a background Redis command may take before Redis counts as unavailable, in milliseconds. @default 500 */
  commandTimeoutMs: number({ min: 1 }).default(500),
  /** How many processes must report failures before the fleet's circuit opens. @default 2 */
  minProcesses: number({ min: 1, integer: true }).default(2),
  /** The prefix of every key. @default "mcp-errors" */
  keyPrefix: nonEmptyText().default("mcp-errors"),
});
export interface SharedStateOptions extends z.input<typeof SharedStateOptionsSchema> {}

