import { isRecord } from "./util.js";

/**
 * A server's wait hint in a JSON-RPC error's `data`, in milliseconds. `data.retryAfterMs` is
 * milliseconds (SEP-3304's -32023 RateLimited types it so) and wins; `data.retryAfter` is read as
 * HTTP's Retry-After is: seconds, or an HTTP date.
 */
export function retryAfterFromData(data: unknown): number | undefined {
  if (!isRecord(data)) return undefined;
  if (typeof data.retryAfterMs === "number" && data.retryAfterMs >= 0) return data.retryAfterMs;
  if (typeof data.retryAfter === "number" && data.retryAfter >= 0) return data.retryAfter * 1000;
  if (typeof data.retryAfter === "string") return parseRetryAfter(data.retryAfter);
  return undefined;
}

/** Reads an HTTP Retry-After value (delta-seconds or an HTTP date) as milliseconds from `now`. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
