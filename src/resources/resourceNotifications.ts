/**
 * What one client hears of its server's resources, shared by every watch that stands on it:
 * - `notifications/resources/updated` and `notifications/resources/list_changed`. A client holds
 *   one handler per notification, so each client gets one fan-out, set once (on a client the
 *   application hands the toolkit too, where it replaces the application's own handlers of
 *   those two notifications);
 * - the signs that its notification stream is gone: its close, or a transport error about an
 *   event stream. Those errors carry no code, so they are told by the SDK's words (below), the
 *   last resort ERRORS.md allows; test/resources/pinning.test.ts meets them through real
 *   restarts on both SDK lines.
 */
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { isV2Client, type AnyClient } from "../mcp/session/clients.js";

export interface ResourceHearer {
  /** The server says the resource at `uri` changed. */
  updated(uri: string): void;
  /** The server says its list of resources changed. */
  listChanged(): void;
  /**
   * The client's notification stream broke or ended (`why`); `gone` when the client will not
   * open it again by itself (the transport gave up on it, or the connection closed).
   */
  lost(why: string, gone: boolean): void;
}

/**
 * The v2 SDK's words for an event stream that broke, could not be opened or reopened, or was
 * given up: "SSE stream disconnected: …", "Failed to open SSE stream: …", "Failed to reconnect
 * SSE stream: …", "Maximum reconnection attempts (2) exceeded." (streamable HTTP), "SSE error: …"
 * (the legacy SSE transport). A tool call's own answer stream says the same: a false alarm costs
 * one re-read and one re-subscribe.
 */
const STREAM_TROUBLE = /\bSSE\b|reconnection attempts/i;
/**
 * Of those, the one after which the transport tries no more: its reopens spent. (A session's
 * first GET that fails is not retried either, but it says what a failed reopen says, and it comes
 * before anyone hears the client: a session whose stream never opened is not told apart.)
 */
const GIVEN_UP = /Maximum reconnection attempts/i;

const hearers = new WeakMap<AnyClient, Set<ResourceHearer>>();
/** Clients whose notification stream is gone for good: a subscription on them hears nothing. */
const gone = new WeakSet<AnyClient>();

/** Hears `client`'s resource notifications and stream losses; returns the function that stops. */
export function hearResources(client: AnyClient, hearer: ResourceHearer): () => void {
  let set = hearers.get(client);
  if (!set) {
    set = new Set();
    hearers.set(client, set);
    install(client, set);
  }
  set.add(hearer);
  const own = set;
  return () => {
    own.delete(hearer);
  };
}

/** Has `client`'s notification stream ended for good (its transport gave up on it, or it closed)? */
export function streamGone(client: AnyClient): boolean {
  return gone.has(client);
}

function install(client: AnyClient, set: Set<ResourceHearer>): void {
  const each = (tell: (hearer: ResourceHearer) => void) => {
    for (const hearer of [...set]) {
      try {
        tell(hearer);
      } catch {
        // A watch's failure stays its own: the client's dispatch goes on.
      }
    }
  };
  const updated = (notification: { params?: { uri?: unknown } }) => {
    const uri = notification.params?.uri;
    if (typeof uri === "string") each((h) => h.updated(uri));
  };
  const changed = () => each((h) => h.listChanged());
  if (isV2Client(client)) {
    client.setNotificationHandler("notifications/resources/updated", updated);
    client.setNotificationHandler("notifications/resources/list_changed", changed);
  } else {
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, updated);
    client.setNotificationHandler(ResourceListChangedNotificationSchema, changed);
  }
  // Chained after the handlers the connection set when it adopted the client: theirs run first.
  const closed = client.onclose;
  client.onclose = () => {
    closed?.();
    gone.add(client);
    each((h) => h.lost("the connection closed", true));
  };
  const erred = client.onerror;
  client.onerror = (error: Error) => {
    erred?.(error);
    const message = error instanceof Error ? error.message : String(error);
    if (!STREAM_TROUBLE.test(message)) return;
    const over = GIVEN_UP.test(message);
    if (over) gone.add(client);
    each((h) => h.lost(message, over));
  };
}
