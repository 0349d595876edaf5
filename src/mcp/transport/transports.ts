import { SSEClientTransport, SseError, type FetchLike, type JSONRPCMessage, type SSEClientTransportOptions, type StreamableHTTPClientTransport, type Transport, type TransportSendOptions } from "@modelcontextprotocol/client";
import { DEFAULT_STDERR_LINES, type HttpServerConfig, type SseServerConfig } from "../../config/index.js";
import { AnswerWatchingTransport } from "./answerStreams.js";
import { cancelKey, probingFetch } from "./httpProbe.js";
import { tagRequests } from "../call/requestScope.js";
import { keepAliveSafe } from "./keepAlive.js";
import { chaosFetch } from "./chaos.js";
import type { TransportProbe } from "./probe.js";

export type { TransportProbe } from "./probe.js";

/** Keeps the last lines of a process's stderr, bounded in lines and bytes. */
export class StderrTail {
  private lines: string[] = [];
  private partial = "";

  constructor(private readonly maxLines = DEFAULT_STDERR_LINES, private readonly maxChars = 4000) {}

  push(chunk: { toString(): string }): void {
    const text = this.partial + chunk.toString();
    const parts = text.split(/\r?\n/);
    this.partial = (parts.pop() ?? "").slice(-this.maxChars);
    for (const line of parts) if (line.trim() !== "") this.lines.push(line.slice(0, this.maxChars));
    if (this.lines.length > this.maxLines) this.lines.splice(0, this.lines.length - this.maxLines);
  }

  text(): string {
    const all = [...this.lines, ...(this.partial.trim() ? [this.partial] : [])].join("\n");
    return all.length > this.maxChars ? all.slice(-this.maxChars) : all;
  }

  clear(): void {
    this.lines = [];
    this.partial = "";
  }
}

type HttpConfig = HttpServerConfig | SseServerConfig;

/** The server's fetch (or the global one) under the keep-alive defences; a `chaos` fault is made beneath them, where the network makes it. */
function baseFetch(config: HttpConfig, probe: TransportProbe): FetchLike {
  const own = config.fetch;
  return keepAliveSafe(chaosFetch(own ?? ((url, init) => fetch(url, init)), probe), probe, config.keepAliveCheckAfterMs);
}

function requestInit(config: HttpConfig): RequestInit {
  return { headers: config.headers ?? {} };
}

/** What both HTTP transports are built with: the config's headers, our fetch over its own, its OAuth provider. */
function httpOptions(config: HttpServerConfig | SseServerConfig, probe: TransportProbe) {
  return {
    requestInit: requestInit(config),
    fetch: probingFetch(probe, { base: baseFetch(config, probe) }),
    ...(config.authProvider ? { authProvider: config.authProvider } : {}),
  };
}

/**
 * How the SDK resumes a request's event stream that broke before its answer (a server with an
 * event store: server-everything, fastmcp). Its defaults (1 s, then 1.5 s) held a call whose
 * server had died for 2.5 s before it failed; a resume is tried at 100 ms and 300 ms instead, so
 * the call fails within about half a second of the break when nothing can resume it (a dead or
 * restarted server does not know the stream), and a blip still resumes. A `retry` the server
 * set on its stream still comes first, as the SDK honours it.
 */
const RESUME = { initialReconnectionDelay: 100, reconnectionDelayGrowFactor: 2, maxReconnectionDelay: 1000, maxRetries: 2 };

/**
 * Carries a request's own headers (a call's identity: its `beforeToolCall` headers) to its POST:
 * they wait under its id in `probe.requestHeaders` while it is written, and this client's fetch
 * (httpProbe.ts) sets them over the server's. The SDK's streamable transport drops `Authorization`,
 * `DPoP` and the `mcp-*` names from a request's `headers` option without a word, and its SSE
 * transport ignores the option: through this one route every name reaches the server on both.
 */
function carryRequestHeaders<T extends Transport>(transport: T, probe: TransportProbe): T {
  const { requestHeaders: waiting, identities } = probe;
  if (!waiting || !identities) return transport;
  probe.headerRoute = "fetch";
  const send = transport.send.bind(transport);
  const sendWith = (key: number | string, headers: Record<string, string>, message: JSONRPCMessage, options: TransportSendOptions | undefined) => {
    waiting.set(key, headers);
    return send(message, options).finally(() => {
      if (waiting.get(key) === headers) waiting.delete(key);
    });
  };
  transport.send = (message, options) => {
    // A cancellation acts for the caller of the request it cancels.
    const cancelled = "method" in message && message.method === "notifications/cancelled" ? (message.params as { requestId?: number | string } | undefined)?.requestId : undefined;
    const identity = cancelled !== undefined ? identities.get(cancelled) : undefined;
    if (identity) return sendWith(cancelKey(cancelled!), identity, message, options);
    const headers = options?.headers as Record<string, string> | undefined;
    const id = headers && "method" in message && "id" in message ? message.id : undefined;
    if (id === undefined || id === null) return send(message, options);
    const { headers: _carried, ...rest } = options!;
    // Kept until the request is done (ClientRequests.untrack), for its cancellation.
    identities.set(id, headers!);
    return sendWith(id, headers!, message, rest);
  };
  return transport;
}

export function streamableTransport(config: HttpServerConfig, probe: TransportProbe): StreamableHTTPClientTransport {
  const transport = new AnswerWatchingTransport(
    new URL(String(config.url)),
    { ...httpOptions(config, probe), reconnectionOptions: RESUME },
    probe,
  );
  return tagRequests(carryRequestHeaders(transport, probe), probe);
}

/**
 * The legacy SSE transport, whose answers all travel on one event stream. When that stream
 * breaks or ends, the `eventsource` package reconnects on its own and the server hands out a new,
 * never-initialized session; the SDK would post to it and every call in flight would wait for its
 * timeout. So a break after the connection is up is reported to the connection, which fails the
 * calls at once and re-initializes on the next one.
 */
class WatchedSseTransport extends SSEClientTransport {
  private started = false;

  constructor(url: URL, options: SSEClientTransportOptions, probe: TransportProbe) {
    super(url, options);
    // Set before the client connects, which calls it first and then its own.
    this.onerror = (error) => {
      if (!this.started || !(error instanceof SseError)) return;
      this.hearingLoss = true;
      try {
        probe.onEventStreamLost?.(this, error);
      } finally {
        this.hearingLoss = false;
      }
    };
    // Its answers have no stream of their own to close.
    probe.abandon = undefined;
  }

  override async start(): Promise<void> {
    await super.start();
    this.started = true;
  }

  /**
   * Closed while the connection hears of the lost stream (inside the `eventsource` package's
   * error event), the close waits a microtask: the package arms its reconnect timer right after
   * that event, and only a close after it clears it. Closed at once, the timer outlived close()
   * (3 s, or the `retry` the server set), holding the process open. The loss itself is still
   * heard at once: the client is down before anything else can use it.
   */
  override async close(): Promise<void> {
    if (this.hearingLoss) await Promise.resolve();
    return super.close();
  }

  /** Is the connection hearing of the lost stream right now (see `close`)? */
  private hearingLoss = false;
}

export function sseTransport(config: HttpServerConfig | SseServerConfig, probe: TransportProbe): SSEClientTransport {
  const transport = new WatchedSseTransport(
    new URL(String(config.url)),
    httpOptions(config, probe),
    probe,
  );
  return tagRequests(carryRequestHeaders(transport, probe), probe);
}
