import { StreamableHTTPClientTransport, type JSONRPCMessage, type StreamableHTTPClientTransportOptions, type TransportSendOptions } from "@modelcontextprotocol/client";
import type { TransportProbe } from "./transports.js";

/**
 * The streamable HTTP transport, watching the answer stream of each request it sends. A POST's
 * event stream that breaks or ends without the answer leaves the call waiting for its timeout,
 * and a request the caller gave up on keeps its stream (and socket) open until the session
 * ends, since a server never answers a cancelled request. Both are seen through the SDK's
 * public per-request options, given to each request's `send`:
 * - `onRequestStreamEnd`: the SDK calls it when the stream ended or broke and it will not
 *   resume it (a resumable stream it resumes first, and calls it if the resume fails too);
 *   a request still without its answer then lost it, and the connection fails its call at once.
 * - `requestSignal`: aborting it closes that one request's stream, as a deliberate close: the
 *   SDK neither reports an error nor resumes it.
 * Which requests got their answer is heard through the transport's own `onmessage`, which the
 * client keeps when it connects and calls first. Nothing of a body is read, copied or re-wrapped.
 */
export class AnswerWatchingTransport extends StreamableHTTPClientTransport {
  /** Requests sent and not yet answered, by JSON-RPC id, each with the controller of its stream. */
  private readonly waiting = new Map<number, AbortController>();
  /** The transport's error reported in this turn: the SDK reports why a stream broke right before it says the stream ended. */
  private recentError: unknown;

  constructor(
    url: URL,
    options: StreamableHTTPClientTransportOptions,
    private readonly probe: TransportProbe,
  ) {
    super(url, options);
    // Set before the client connects, which calls these first and then its own.
    this.onmessage = (message) => this.heard(message);
    this.onerror = (error) => {
      this.recentError = error;
      queueMicrotask(() => {
        if (this.recentError === error) this.recentError = undefined;
      });
    };
    probe.abandon = (id) => this.abandon(id);
  }

  override async send(message: JSONRPCMessage | JSONRPCMessage[], options?: TransportSendOptions): Promise<void> {
    const ids = requestIdsOf(message);
    if (ids.length === 0) return super.send(message, options);
    const controller = new AbortController();
    // On a 2026-07-28 connection the client cancels a request by aborting its own signal.
    const outer = options?.requestSignal;
    if (outer?.aborted) controller.abort(outer.reason);
    else outer?.addEventListener("abort", () => controller.abort(outer.reason), { once: true });
    for (const id of ids) this.waiting.set(id, controller);
    const onRequestStreamEnd = () => {
      options?.onRequestStreamEnd?.();
      this.streamEnded(ids, controller);
    };
    try {
      await super.send(message, { ...options, requestSignal: controller.signal, onRequestStreamEnd });
    } catch (error) {
      this.forget(ids, controller);
      throw error;
    }
  }

  /** An answer arrived (on its stream, as JSON, or on a resumed stream): its request is done. */
  private heard(message: JSONRPCMessage): void {
    if ("method" in message || !("id" in message) || typeof message.id !== "number") return;
    this.waiting.delete(message.id);
    this.probe.lastActivity = performance.now();
  }

  private streamEnded(ids: number[], controller: AbortController): void {
    this.probe.lastActivity = performance.now();
    const unanswered = ids.filter((id) => this.waiting.get(id) === controller);
    this.forget(ids, controller);
    if (unanswered.length > 0) this.probe.onStreamLost?.(unanswered, this.recentError);
  }

  /** Closes the stream of a request the caller gave up on. */
  private abandon(id: number): void {
    const controller = this.waiting.get(id);
    if (!controller) return;
    this.waiting.delete(id);
    controller.abort(new Error("The caller gave up on this request."));
  }

  private forget(ids: number[], controller: AbortController): void {
    for (const id of ids) if (this.waiting.get(id) === controller) this.waiting.delete(id);
  }
}

/** The numeric ids of the requests in an outgoing message (the client numbers its requests). */
function requestIdsOf(message: JSONRPCMessage | JSONRPCMessage[]): number[] {
  const ids: number[] = [];
  for (const m of Array.isArray(message) ? message : [message]) {
    if ("method" in m && "id" in m && typeof m.id === "number") ids.push(m.id);
  }
  return ids;
}
