/**
 * Hearing that a server's tool list changed, without slowing the connect. In the 2025 era the
 * server sends `notifications/tools/list_changed` on its own; in 2026-07-28 it sends it on a
 * `subscriptions/listen` stream the client opens. The SDK's own `listChanged` option opens that
 * stream inside `connect()` and waits for the server's acknowledgement under the connect's own
 * timeout, so a server slow to acknowledge would fail every connect; here the wait is bounded
 * on its own (`ackTimeoutMs`), and a stream that does not open only means the list is
 * refreshed on a `tool_not_found` instead.
 */
import { platform } from "../../platform/index.js";
import type { Client } from "@modelcontextprotocol/client";

/** How long a burst of notifications is gathered before the tools are listed once. */
const DEBOUNCE_MS = 50;

/**
 * Watches `client`'s server for tool-list changes, and after each burst lists once (`list`)
 * and hands the result to `onTools`. `ready` settles (never rejects) once the 2026-07-28 stream
 * is open or has failed to open within `ackTimeoutMs`; `stop` ends the watch.
 */
export function watchTools<T>(client: Client, list: () => Promise<T>, onTools: (listed: T) => void, ackTimeoutMs: number): { ready: Promise<void>; stop: () => void } {
  if (!client.getServerCapabilities()?.tools?.listChanged) return { ready: Promise.resolve(), stop: () => {} };
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const relist = () => {
    timer = undefined;
    list().then(
      (listed) => {
        if (!stopped) onTools(listed);
      },
      // A failed listing changes nothing: the next tool_not_found lists again.
      () => undefined,
    );
  };
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    if (stopped || timer) return;
    timer = setTimeout(relist, DEBOUNCE_MS);
    platform.unref(timer);
  });
  let subscription: { close(): Promise<void> } | undefined;
  const ready =
    client.getProtocolEra() === "modern"
      ? client.listen({ toolsListChanged: true }, { timeout: ackTimeoutMs }).then(
          (opened) => {
            if (stopped) void opened.close().catch(() => undefined);
            else subscription = opened;
          },
          () => undefined,
        )
      : Promise.resolve();
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    void subscription?.close().catch(() => undefined);
  };
  return { ready, stop };
}
