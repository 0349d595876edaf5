/**
 * `langchain-mcp-errors/server`: for MCP servers built with either SDK. A tool callback wrapped in
 * `withIdempotency` runs at most once per idempotency key, so a client may repeat a write whose
 * outcome it does not know; one wrapped in `withDeadline` is told, through its signal, when its
 * caller stops waiting.
 */
export { withDeadline, type Deadlined } from "./deadline.js";
export { DEADLINE_META } from "../errors/deadline.js";
export { idempotencyCapability, withIdempotency, type IdempotencyOptions } from "./idempotency.js";
export { MemoryIdempotencyStore, type IdempotencyRecord, type IdempotencyStore, type MemoryStoreOptions, type StoredOutcome } from "./store.js";
export { RedisIdempotencyStore, type RedisStoreOptions } from "./redisStore.js";
export type { RedisClientLike } from "../config/sharedState.js";
export { IDEMPOTENCY_CAPABILITY, IDEMPOTENCY_KEY_META, IDEMPOTENCY_RESULT_META } from "../errors/idempotency.js";
