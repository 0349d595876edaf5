import type { FetchLike } from "@modelcontextprotocol/client";
import { DEFAULT_KEEPALIVE_CHECK_AFTER_MS } from "../../config/index.js";
import { isRecord } from "../../errors/normalize.js";
import { withDeadline } from "../../policy/abort.js";

/**
 * The keep-alive race of pooled HTTP clients: a server or proxy closes a connection that sat idle
 * while the client, at the same moment, sends the next request on it. The request is lost, and
 * from the client's side nothing tells whether the server read it first. Over a proxy that closed
 * idle connections after 1 s, called about once a second, 2–17% of tool calls failed this way with
 * an unknown outcome although no server had run them.
 *
 * Two defences, both about proof:
 * - Before a tool call on connections that sat idle for a while, a cheap `OPTIONS` request goes
 *   first. If the pooled socket is dead, that request meets it (and it is harmless to lose); the
 *   tool call then goes on a connection that has just answered, or on a fresh one.
 * - A request whose write was refused (EPIPE: the peer had reset the connection before this write)
 *   provably never reached the server, and is sent once more on a fresh connection, for any tool.
 * Any other failure keeps its unknown outcome.
 */


/** The longest a connection check may take; past it the call goes ahead anyway. */
const CHECK_TIMEOUT_MS = 2000;

/** When the connections were last seen working; shared by the fetch below and the one above it. */
export interface ActivityClock {
  /** `performance.now()` when a response last arrived or finished. */
  lastActivity: number;
}

/**
 * Wraps `base` with the two defences above. `clock.lastActivity` is also moved by the caller
 * when a response body finishes, since a connection is busy until then.
 */
export function keepAliveSafe(base: FetchLike, clock: ActivityClock, checkAfterMs = DEFAULT_KEEPALIVE_CHECK_AFTER_MS): FetchLike {
  let check: Promise<void> | undefined;
  return async (url, init) => {
    if (isToolCall(init) && performance.now() - clock.lastActivity > checkAfterMs) {
      // Calls that start together after a pause share one check.
      check ??= checkConnections(base, url, init).finally(() => {
        check = undefined;
      });
      await check;
    }
    let response: Response;
    try {
      response = await base(url, init);
    } catch (error) {
      if (!refusedBeforeWriting(error) || init?.signal?.aborted) throw error;
      response = await base(url, init);
    }
    clock.lastActivity = performance.now();
    return response;
  };
}

/** Read wherever the key stands in the body (JSON.stringify writes no spaces); a false match only costs one check. */
function isToolCall(init: RequestInit | undefined): boolean {
  return init?.method === "POST" && typeof init.body === "string" && init.body.includes('"method":"tools/call"');
}

/**
 * Sends one `OPTIONS` to the endpoint with the request's headers (so a proxy routes it the same
 * way). Any answer, even 404 or 405, proves the connection alive; a failure has retired a dead one.
 */
async function checkConnections(base: FetchLike, url: string | URL, init: RequestInit | undefined): Promise<void> {
  const headers = new Headers(init?.headers);
  headers.delete("content-type");
  const check = async (signal: AbortSignal) => {
    const response = await base(url, { method: "OPTIONS", headers, signal });
    // Read to the end, so the connection goes back to the pool instead of being dropped.
    await response.arrayBuffer();
  };
  // A dead connection was found and dropped, or the check was too slow: the call goes ahead either way.
  await withDeadline(CHECK_TIMEOUT_MS, init?.signal ?? undefined, check, () => new Error("The connection check took too long.")).catch(() => undefined);
}

/** EPIPE anywhere in the cause chain: the write itself was refused, so nothing of it was sent. */
function refusedBeforeWriting(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e: unknown = error; isRecord(e) && !seen.has(e); e = e.cause) {
    seen.add(e);
    if (e.code === "EPIPE") return true;
  }
  return false;
}
