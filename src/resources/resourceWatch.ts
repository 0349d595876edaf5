/**
 * One server's watch over the changes of pinned resources, in both eras, kept up across drops:
 * - 2025 era: `resources/subscribe` for each URI, sent through the pipeline (so a session the
 *   server forgot is initialized again and the subscribe re-sent on the new one); the server then
 *   sends `notifications/resources/updated`, and `list_changed` unasked, on its own event stream.
 * - 2026-07-28: one `subscriptions/listen` stream asking for `resourcesListChanged` and the URIs,
 *   each where the server's capabilities offer it (a server honours nothing else).
 * The stream is lost when the server restarts, a proxy cuts it, or the connection is replaced (a
 * new session has no subscriptions). The SDK does not listen again; this watch does. It records
 * and emits `subscription_lost`, subscribes or listens again on the connection's client of the
 * moment (reconnecting it first where needed), backing off while it cannot, and then has every
 * pinned resource of the server read again: what changed meanwhile sent no notification.
 */
import type { Client as V2Client } from "@modelcontextprotocol/client";
import { isMcpToolError, McpToolError } from "../errors/McpToolError.js";
import { normalize } from "../errors/normalize.js";
import type { EventHub } from "../eventHub.js";
import { isV2Client, type AnyClient, type CallOptions } from "../mcp/session/clients.js";
import type { Connection } from "../mcp/session/Connection.js";
import { sleep } from "../policy/abort.js";
import { hearResources, streamGone } from "./resourceNotifications.js";
import type { ResourceRequests } from "./resourceRequests.js";

/** The first wait after a failed attempt to subscribe or listen again; it doubles up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2_000;

/**
 * What the watch is doing: `watching` (a stream stands), `unsupported` (it stands, but the server
 * offers no resource subscriptions: only list changes, or nothing, are heard), `lost` (subscribing
 * again, backing off), `failed` (a permanent failure, such as a server without resources: tried
 * again only after the toolkit reconnects the server), `stopped`.
 */
export type WatchState = "starting" | "watching" | "unsupported" | "lost" | "failed" | "stopped";

export interface WatchHost {
  connection: Connection;
  events: EventHub;
  requests: ResourceRequests;
  redact(error: McpToolError): McpToolError;
}

export interface WatchHandlers {
  /** The server says a pinned URI changed. */
  updated(uri: string): void;
  /** Read every pinned resource of the server again: after a (re)subscription, or a list change. */
  refresh(): Promise<void>;
}

export class ResourceWatch {
  private current: WatchState = "starting";
  private error: McpToolError | undefined;
  /** The client the subscription stands on; undefined while there is none. */
  private client: AnyClient | undefined;
  private heard: { client: AnyClient; stop: () => void } | undefined;
  private listening: { close(): Promise<void> } | undefined;
  private running: Promise<void> | undefined;
  /** Must the pinned resources be read again once the subscription stands? */
  private stale = true;
  private readonly ended = new AbortController();
  private readonly unsubscribes: (() => void)[] = [];
  /** How the subscription is asked for, by the era of the last client it stood on: what a loss names. */
  private method: "resources/subscribe" | "subscriptions/listen" = "resources/subscribe";

  constructor(
    readonly server: string,
    private readonly uris: readonly string[],
    private readonly host: WatchHost,
    private readonly handlers: WatchHandlers,
    private readonly ackTimeoutMs: number,
  ) {
    const closing = host.connection.closingSignal;
    const onClose = () => this.stop();
    closing.addEventListener("abort", onClose, { once: true });
    this.unsubscribes.push(() => closing.removeEventListener("abort", onClose));
    // Someone else's call reconnected the server: the new session holds no subscription of ours.
    this.unsubscribes.push(host.events.on("reconnect", (event) => event.serverName === server && this.replaced()));
    if (closing.aborted) this.stop();
  }

  private get stopped(): boolean {
    return this.ended.signal.aborted;
  }

  get state(): WatchState {
    return this.current;
  }

  /** The last `subscription_lost` (or the reason the server offers nothing to watch), redacted; cleared once a stream stands again. */
  get lastError(): McpToolError | undefined {
    return this.error;
  }

  /** Subscribes (or listens) and reads the pinned resources; resolves after the first attempt, the watch going on trying in the background when it failed. */
  start(): Promise<void> {
    return new Promise((resolve) => this.run(resolve));
  }

  stop(): void {
    if (this.stopped) return;
    this.ended.abort();
    this.current = "stopped";
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
    this.heard?.stop();
    // A 2025 subscription is left to its session's end: another watch on the client may share it.
    void this.listening?.close().catch(() => undefined);
  }

  private run(firstDone?: () => void): void {
    if (this.running || this.stopped) return firstDone?.();
    this.running = this.loop(firstDone).finally(() => {
      this.running = undefined;
    });
  }

  private async loop(firstDone?: () => void): Promise<void> {
    let delay = FIRST_BACKOFF_MS;
    let first = true;
    while (!this.stopped) {
      const standing = this.client !== undefined;
      let failure: McpToolError | undefined;
      if (!standing) failure = await this.establish().then(() => undefined, (error: unknown) => this.classify(error));
      // The first read happens whatever the stream did: the pins show each read's own failure.
      if ((!failure || first) && this.stale) {
        this.stale = false;
        await this.handlers.refresh().catch(() => undefined);
      }
      if (first) firstDone?.();
      first = false;
      if (this.stopped || (this.client && !this.stale)) return;
      if (!failure) continue;
      this.stale = true;
      if (!failure.transient) return this.settle("failed", failure);
      this.lose(`could not subscribe (${failure.reason}: ${failure.message}); trying again in ${delay} ms`, failure);
      // A server that refused us and listens again ends the wait at once (its connection's TCP probe).
      const wake = failure.reason === "connection_refused" ? this.host.connection.listening(delay) : undefined;
      await sleep(delay, this.ended.signal, wake).catch(() => undefined);
      delay = Math.min(delay * 2, MAX_BACKOFF_MS);
    }
  }

  /** Subscribes or listens on the connection's client of the moment, connecting it first if need be. */
  private async establish(): Promise<void> {
    const lease = await this.host.connection.lease(this.ended.signal);
    const caps = lease.client.getServerCapabilities()?.resources;
    if (!caps) throw McpToolError.of("capability_missing", `Server '${this.server}' offers no resources to watch.`, { serverName: this.server, outcome: "not_sent" });
    if (isV2Client(lease.client) && lease.client.getProtocolEra() === "modern") return this.listen(lease.client, caps);
    let client = lease.client;
    this.method = "resources/subscribe";
    if (caps.subscribe && this.uris.length > 0) {
      const who = { server: this.server, method: "resources/subscribe", toolName: "resources/subscribe" };
      client = await this.host.requests.run(
        who,
        async (on, options) => {
          this.hear(on);
          for (const uri of this.uris) await subscribeOn(on, uri, options);
          return on;
        },
        this.ended.signal,
      );
    } else this.hear(client);
    // The client's transport gave up its event stream: a new session opens one.
    if (streamGone(client)) {
      const now = this.host.connection.current();
      if (now?.client === client) await this.host.connection.invalidate(now, true);
      throw McpToolError.of("stream_error", "The session's event stream is gone; a new session opens one.", { serverName: this.server, outcome: "not_sent" });
    }
    this.stand(client, caps.subscribe || this.uris.length === 0 ? undefined : caps.listChanged ? "the server offers no resource subscriptions, only list changes" : "the server offers neither resource subscriptions nor list changes");
  }

  /** 2026-07-28: one listen stream; its end (other than ours) is a loss. */
  private async listen(client: V2Client, caps: { subscribe?: boolean; listChanged?: boolean }): Promise<void> {
    this.method = "subscriptions/listen";
    const filter = { ...(caps.listChanged ? { resourcesListChanged: true } : {}), ...(caps.subscribe && this.uris.length > 0 ? { resourceSubscriptions: [...this.uris] } : {}) };
    this.hear(client);
    if (Object.keys(filter).length === 0) return this.stand(client, "the server offers neither resource subscriptions nor list changes");
    const opened = await client.listen(filter, { timeout: this.ackTimeoutMs });
    if (this.stopped) return void opened.close().catch(() => undefined);
    this.listening = opened;
    void opened.closed.then((how) => {
      if (how !== "local" && this.listening === opened) this.dropped(client, `its subscriptions/listen stream ended (${how})`);
    });
    const unheard = filter.resourceSubscriptions && !opened.honoredFilter.resourceSubscriptions ? "the server did not honour the resource subscriptions asked for" : undefined;
    this.stand(client, unheard ?? (caps.subscribe || this.uris.length === 0 ? undefined : "the server offers no resource subscriptions, only list changes"));
  }

  /** A subscription stands on `client`; `unsupported` says why it hears no changes at all. */
  private stand(client: AnyClient, unsupported: string | undefined): void {
    this.client = client;
    if (unsupported) this.settle("unsupported", McpToolError.of("capability_missing", `Server '${this.server}': ${unsupported}; a pinned resource's change is seen only when it is read again.`, { serverName: this.server, outcome: "not_sent" }));
    else this.settle("watching", undefined);
  }

  private settle(state: WatchState, error: McpToolError | undefined): void {
    if (this.stopped) return;
    this.current = state;
    this.error = error && this.host.redact(error);
  }

  private hear(client: AnyClient): void {
    if (this.heard?.client === client) return;
    this.heard?.stop();
    const stop = hearResources(client, {
      updated: (uri) => {
        if (this.client === client && this.uris.includes(uri)) this.handlers.updated(uri);
      },
      listChanged: () => {
        if (this.client !== client) return;
        this.stale = true;
        this.run();
      },
      lost: (why) => this.dropped(client, why),
    });
    this.heard = { client, stop };
  }

  /** The stream on `client` is gone: note it, and subscribe again. */
  private dropped(client: AnyClient, why: string): void {
    if (this.stopped || this.client !== client) return;
    this.client = undefined;
    this.stale = true;
    const listening = this.listening;
    this.listening = undefined;
    void listening?.close().catch(() => undefined);
    this.lose(`${why}; subscribing again`);
    this.run();
  }

  /** The connection holds a client other than the one the subscription stands on. */
  private replaced(): void {
    if (this.current === "failed") {
      this.stale = true;
      return this.run();
    }
    const client = this.client;
    if (!client || this.host.connection.current()?.client === client) return;
    this.dropped(client, "the connection was replaced");
  }

  private lose(detail: string, cause?: McpToolError): void {
    const error = McpToolError.of("subscription_lost", `The resource subscription of server '${this.server}' was lost: ${detail}.`, {
      serverName: this.server,
      toolName: this.method,
      outcome: "not_sent",
      data: { uris: [...this.uris] },
      ...(cause ? { cause } : {}),
    });
    this.settle("lost", error);
    // Without the event's `toolName`: a lost stream is no call, and the server's call health (status()) does not count it.
    this.host.events.emit({ type: "error", serverName: this.server, error });
  }

  private classify(error: unknown): McpToolError {
    return isMcpToolError(error) ? error : normalize(error, { serverName: this.server, toolName: this.method });
  }
}

function subscribeOn(client: AnyClient, uri: string, options: CallOptions): Promise<unknown> {
  return (client as unknown as { subscribeResource(params: { uri: string }, options?: CallOptions): Promise<unknown> }).subscribeResource({ uri }, options);
}
