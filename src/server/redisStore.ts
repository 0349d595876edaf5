/**
 * Keys on Redis, shared by every replica of a server: a repeat that lands on another replica
 * still finds the first call's claim or result. The client is the application's own (ioredis or
 * node-redis); neither is a dependency. Each operation is one Lua script, so a claim is atomic.
 */
import type { RedisClientLike } from "../config/sharedState.js";
import type { IdempotencyRecord, IdempotencyStore } from "./store.js";

// Claims the key unless it is held; answers what it holds.
const CLAIM = `if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
return redis.call('get', KEYS[1])`;
const COMPLETE = `redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2]) return 1`;
const RELEASE = `return redis.call('del', KEYS[1])`;

export interface RedisStoreOptions {
  /** Prefixed to every key. @default "mcp:idem:" */
  keyPrefix?: string;
}

export class RedisIdempotencyStore implements IdempotencyStore {
  private readonly prefix: string;

  constructor(
    private readonly client: RedisClientLike,
    options: RedisStoreOptions = {},
  ) {
    this.prefix = options.keyPrefix ?? "mcp:idem:";
  }

  async claim(key: string, fingerprint: string, ttlMs: number): Promise<IdempotencyRecord | undefined> {
    const held = await this.eval(CLAIM, key, JSON.stringify({ fingerprint }), Math.max(1, Math.round(ttlMs)));
    return typeof held === "string" ? (JSON.parse(held) as IdempotencyRecord) : undefined;
  }

  async complete(key: string, record: Required<IdempotencyRecord>, ttlMs: number): Promise<void> {
    await this.eval(COMPLETE, key, JSON.stringify(record), Math.max(1, Math.round(ttlMs)));
  }

  async release(key: string): Promise<void> {
    await this.eval(RELEASE, key);
  }

  /** EVAL on either client, told apart by shape: node-redis takes `{ keys, arguments }`, ioredis positional arguments. */
  private eval(source: string, key: string, ...args: (string | number)[]): Promise<unknown> {
    const client = this.client as unknown as { eval: (...a: unknown[]) => unknown; evalSha?: unknown };
    const keys = [this.prefix + key];
    const strings = args.map(String);
    return Promise.resolve(typeof client.evalSha === "function" ? client.eval(source, { keys, arguments: strings }) : client.eval(source, keys.length, ...keys, ...strings));
  }
}
