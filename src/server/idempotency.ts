/**
 * The server half of idempotency keys: a tool callback wrapped so that a key runs its call at most
 * once, with the semantics SEP-3182 proposed (closed unmerged):
 * - the same key with equal arguments answers the first call's result, its failure included;
 * - a key whose first call is still running is refused at once, with an `isError` result marked
 *   `in_progress` that our client reads as `service_unavailable`, not_sent and transient, so it
 *   tries again later (a tool callback cannot answer a JSON-RPC error: both SDKs turn what it
 *   throws into an `isError` result);
 * - the same key with other arguments is refused as a conflict (`invalid_request`, permanent).
 * Works with the v1 (`@modelcontextprotocol/sdk`) and v2 (`@modelcontextprotocol/server`) McpServer.
 */
import { IDEMPOTENCY_CAPABILITY, IDEMPOTENCY_KEY_META, IDEMPOTENCY_RESULT_META, KEY_PROPERTIES } from "../errors/idempotency.js";
import { MemoryIdempotencyStore, type IdempotencyStore, type StoredOutcome } from "./store.js";

export interface IdempotencyOptions {
  /** Where keys are kept. @default a MemoryIdempotencyStore of this callback's own */
  store?: IdempotencyStore;
  /** How long a key is remembered after its call began or ended, in milliseconds. @default 86400000 */
  ttlMs?: number;
  /**
   * The argument that carries the key. The key is also read from the request's
   * `_meta["langchain-mcp-errors/idempotencyKey"]`, where an argument carries none.
   * @default "idempotency_key" or "idempotencyKey", whichever the arguments have
   */
  property?: string;
  /**
   * Keeps keys of different tools (or users) apart in a shared store: prefixed to every key. Name
   * the tool when several share one store, and the user where keys could be guessed.
   */
  scope?: string;
  /** The wait a refused send of a running key is told to leave before it tries again, in milliseconds. @default 250 */
  retryAfterMs?: number;
}

/** What `capabilities.experimental` gets, to say every tool of the server honours the key in `_meta`. */
export const idempotencyCapability: Record<string, Record<string, never>> = { [IDEMPOTENCY_CAPABILITY]: {} };

/** The request's `_meta` and signal, as v1 (`extra`) and v2 (`ctx.mcpReq`) hand them to a callback. */
interface Extra {
  _meta?: Record<string, unknown>;
  signal?: AbortSignal;
  mcpReq?: { _meta?: Record<string, unknown>; signal?: AbortSignal };
}

const DAY_MS = 86_400_000;
const MAX_KEY_LENGTH = 255;

/**
 * Wraps a tool callback `(args, extra) => result` so that a call carrying an idempotency key runs
 * at most once per key; a call without a key runs as before. A callback that throws while its
 * request is cancelled frees the key (it is taken to have done nothing), so that a retry runs it.
 */
export function withIdempotency<A, E, R>(handler: (args: A, extra: E) => R | Promise<R>, options: IdempotencyOptions = {}): (args: A, extra: E) => Promise<R> {
  const store = options.store ?? new MemoryIdempotencyStore();
  const ttlMs = options.ttlMs ?? DAY_MS;
  const retryAfterMs = options.retryAfterMs ?? 250;
  return async (args, extra) => {
    const found = keyOf(args, extra as Extra, options.property);
    if (!found) return handler(args, extra);
    const key = options.scope !== undefined ? `${options.scope}\u0000${found.key}` : found.key;
    const fingerprint = stableJson(withoutProperty(args, found.property));
    const held = await store.claim(key, fingerprint, ttlMs);
    if (held) {
      if (held.fingerprint !== fingerprint) return conflict() as R;
      if (!held.outcome) return inProgress(retryAfterMs) as R;
      return replay(held.outcome) as R;
    }
    let result: R;
    try {
      result = await handler(args, extra);
    } catch (error) {
      if (signalOf(extra as Extra)?.aborted) await store.release(key);
      else await store.complete(key, { fingerprint, outcome: { thrown: error instanceof Error ? error.message : String(error) } }, ttlMs);
      throw error;
    }
    await store.complete(key, { fingerprint, outcome: { result } }, ttlMs);
    return result;
  };
}

function keyOf(args: unknown, extra: Extra | undefined, property: string | undefined): { key: string; property?: string } | undefined {
  const given = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {};
  for (const name of property !== undefined ? [property] : KEY_PROPERTIES) {
    const value = given[name];
    if (validKey(value)) return { key: value, property: name };
  }
  const meta = extra?.mcpReq?._meta ?? extra?._meta;
  const value = meta?.[IDEMPOTENCY_KEY_META];
  return validKey(value) ? { key: value } : undefined;
}

const validKey = (value: unknown): value is string => typeof value === "string" && value.length > 0 && value.length <= MAX_KEY_LENGTH;

function signalOf(extra: Extra | undefined): AbortSignal | undefined {
  return extra?.mcpReq?.signal ?? extra?.signal;
}

function withoutProperty(args: unknown, property: string | undefined): unknown {
  if (property === undefined || typeof args !== "object" || args === null) return args;
  const { [property]: _key, ...rest } = args as Record<string, unknown>;
  return rest;
}

/** JSON with object keys sorted, so that equal arguments sent in another order are equal. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_name, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  ) ?? "null";
}

/** The first call's outcome again: its result (marked replayed in `_meta`), or its failure thrown again. */
function replay(outcome: StoredOutcome): unknown {
  if ("thrown" in outcome) throw new Error(outcome.thrown);
  const result = outcome.result;
  if (typeof result !== "object" || result === null) return result;
  const meta = (result as { _meta?: Record<string, unknown> })._meta;
  return { ...result, _meta: { ...meta, [IDEMPOTENCY_RESULT_META]: { status: "replayed" } } };
}

function inProgress(retryAfterMs: number): object {
  return {
    content: [{ type: "text", text: "An earlier call with this idempotency key is still running; try again shortly for its result." }],
    isError: true,
    _meta: { [IDEMPOTENCY_RESULT_META]: { status: "in_progress", retryAfterMs } },
  };
}

function conflict(): object {
  return {
    content: [{ type: "text", text: "This idempotency key was already used with other arguments; nothing ran." }],
    isError: true,
    _meta: { [IDEMPOTENCY_RESULT_META]: { status: "conflict" } },
  };
}
