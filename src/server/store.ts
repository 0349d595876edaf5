/**
 * Where the idempotency helper keeps each key's call: the in-memory store here, or any store that
 * implements {@link IdempotencyStore} (a Redis one shares keys across a server's replicas).
 */

/** What a key holds: the call it was first used for (its arguments' fingerprint) and, once it ended, its outcome. */
export interface IdempotencyRecord {
  fingerprint: string;
  /** The first call's outcome; absent while that call is still running. */
  outcome?: StoredOutcome;
}

/** A call's outcome as kept: the result it returned, or the message of what it threw. */
export type StoredOutcome = { result: unknown } | { thrown: string };

/**
 * A store of keys. Each method may be asynchronous; `claim` must be atomic (two sends of one key
 * at once: one claims it, the other reads the claim).
 */
export interface IdempotencyStore {
  /**
   * Claims `key` for a call with `fingerprint`, for `ttlMs`: `undefined` when the key was free (the
   * caller runs the call), otherwise what the key holds (its claim or its outcome is left as it was).
   */
  claim(key: string, fingerprint: string, ttlMs: number): Promise<IdempotencyRecord | undefined> | IdempotencyRecord | undefined;
  /** Keeps the outcome of the key's call, for `ttlMs`. */
  complete(key: string, record: Required<IdempotencyRecord>, ttlMs: number): Promise<void> | void;
  /** Frees the key: its call ended with nothing to keep (it was cancelled), so a repeat runs it. */
  release(key: string): Promise<void> | void;
}

export interface MemoryStoreOptions {
  /** The most keys kept; past it the oldest goes first. @default 10000 */
  maxKeys?: number;
}

/**
 * Keys in a Map, in this process only: enough for one server process, lost when it restarts. A key
 * past its ttl is gone; past `maxKeys` the oldest claim goes, running or not, so keep the bound
 * well above the calls a server takes within the ttl.
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly keys = new Map<string, IdempotencyRecord & { expires: number }>();
  private readonly maxKeys: number;

  constructor(options: MemoryStoreOptions = {}) {
    this.maxKeys = options.maxKeys ?? 10_000;
  }

  /** Keys held now (expired ones are dropped as they are met). */
  get size(): number {
    return this.keys.size;
  }

  claim(key: string, fingerprint: string, ttlMs: number): IdempotencyRecord | undefined {
    const held = this.keys.get(key);
    if (held && held.expires > Date.now()) return held;
    this.keys.delete(key);
    this.keys.set(key, { fingerprint, expires: Date.now() + ttlMs });
    while (this.keys.size > this.maxKeys) this.keys.delete(this.keys.keys().next().value as string);
    return undefined;
  }

  complete(key: string, record: Required<IdempotencyRecord>, ttlMs: number): void {
    this.keys.set(key, { ...record, expires: Date.now() + ttlMs });
  }

  release(key: string): void {
    this.keys.delete(key);
  }
}
