/**
 * The codes of the MCP Error Registry (draft) and SEP-3304 (draft), and the 2026-07-28 rule for
 * codes nobody registered. Each decision rests on the code and its `data`, never on `message`:
 * the registry says a client must not branch on the text.
 */
import type { Classification, NormalizeContext } from "./context.js";
import { isRecord } from "./util.js";

/**
 * SEP-3304: RateLimited, its `data` typed as `{ retryAfterMs: number, limit?: number,
 * remaining?: number }`. Over HTTP it comes with a 429, whose Retry-After it overrides.
 */
export const RATE_LIMITED = -32023;
/** Error Registry: Unavailable, with `data.reason` and, where nothing ran, `data.notProcessed: true`. */
export const UNAVAILABLE = -32024;
/** Error Registry: StaleState, with `data.kind` naming what to refresh (a cursor, a task, request state). */
export const STALE_STATE = -32026;

/** The range the 2026-07-28 revision reserves for registered codes; -32000..-32019 stay the server's own. */
const REGISTERED_LOW = -32099;
const REGISTERED_HIGH = -32020;

/** `data.retryAfterMs` as SEP-3304 types it: milliseconds, a finite number, never negative. */
export function statedRetryAfterMs(data: unknown): number | undefined {
  return isRecord(data) && typeof data.retryAfterMs === "number" && Number.isFinite(data.retryAfterMs) && data.retryAfterMs >= 0 ? data.retryAfterMs : undefined;
}

/**
 * A registered code, read by its code and `data`: -32023 only with the wait it must carry (the
 * code is also seen in the wild meaning other things), -32024 and -32026 always. `undefined`
 * for any other code.
 */
export function fromRegistry(code: number, text: string, data: unknown): Classification | undefined {
  const fields = isRecord(data) ? data : {};
  switch (code) {
    case RATE_LIMITED: {
      const retryAfterMs = statedRetryAfterMs(data);
      // Without its wait, -32023 is a code we cannot read: the unknown-code rule, in every era.
      if (retryAfterMs === undefined) return unregistered(text);
      return { reason: "rate_limited", message: text, overrides: { kind: "protocol", retryAfterMs } };
    }
    case UNAVAILABLE: {
      const why = typeof fields.reason === "string" && fields.reason.trim() ? ` (${fields.reason.trim()})` : "";
      // `notProcessed: true` is the server's promise that the request had no effect; nothing less is.
      const notProcessed = fields.notProcessed === true;
      return {
        reason: "service_unavailable",
        message: `${text}${why}${notProcessed ? " The server did not process the request." : ""}`,
        overrides: { kind: "protocol", outcome: notProcessed ? "not_sent" : "unknown", retryAfterMs: statedRetryAfterMs(data) },
      };
    }
    case STALE_STATE: {
      const kind = typeof fields.kind === "string" && fields.kind.trim() ? fields.kind.trim() : undefined;
      return { reason: "stale_state", message: kind ? `${text} (stale ${kind})` : text, overrides: { kind: "protocol" } };
    }
    default:
      return undefined;
  }
}

/**
 * The 2026-07-28 rule for a code in -32020..-32099 that we do not know: it may mean anything,
 * so it is not retried unless the server stated a wait (`data.retryAfterMs`, read earlier as a
 * rate limit). `undefined` outside that range or outside that era.
 */
export function fromUnregistered(code: number, text: string, ctx: NormalizeContext): Classification | undefined {
  if (ctx.era !== "modern" || code < REGISTERED_LOW || code > REGISTERED_HIGH) return undefined;
  return unregistered(text);
}

function unregistered(text: string): Classification {
  return { reason: "server_error", message: text, overrides: { kind: "protocol", transient: false, outcome: "unknown" } };
}
