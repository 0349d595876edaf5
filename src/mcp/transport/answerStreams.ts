import { StreamableHTTPClientTransport, type JSONRPCMessage, type StreamableHTTPClientTransportOptions, type TransportSendOptions } from "@modelcontextprotocol/client";
import type { TransportProbe } from "./probe.js";

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
  /** Of those, the ones whose POST the server answered with a stream: their answer comes (or is resumed) on it. */
  private readonly streaming = new Set<number>();
  /** The transport's error reported in this turn: the SDK reports why a stream broke right before it says the stream ended. */
  private recentError: unknown;
  /** Every stream resume the SDK has scheduled and not yet begun: `close()` cancels them all. */
  private readonly resumes: Set<ReturnType<typeof setTimeout>>;

  constructor(
    url: URL,
    options: StreamableHTTPClientTransportOptions,
    private readonly probe: TransportProbe,
  ) {
    // The SDK's own scheduling keeps one cancel, the last stream's: with two streams broken at
    // once, the other's resume outlived close() for as long as the server's `retry` asked (5 s
    // in test/network/closeTimers.test.ts), holding the process open.
    const resumes = new Set<ReturnType<typeof setTimeout>>();
    const reconnectionScheduler = (resume: () => void, delay: number) => {
      const timer = setTimeout(() => {
        resumes.delete(timer);
        resume();
      }, delay);
      resumes.add(timer);
      return () => {
        clearTimeout(timer);
        resumes.delete(timer);
      };
    };
    super(url, { ...options, reconnectionScheduler });
    this.resumes = resumes;
    // Set before the client connects, which calls these first and then its own.
    this.onmessage = (message) => this.heard(message);
    this.onerror = (error) => this.remember(error);
    probe.abandon = (id) => this.abandon(id);
    probe.serverGone = (why) => this.serverGone(why);
  }

  override async close(): Promise<void> {
    for (const timer of this.resumes) clearTimeout(timer);
    this.resumes.clear();
    await super.close();
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
    for (const id of ids) if (this.waiting.get(id) === controller) this.streaming.add(id);
  }

  /**
   * The server's process is gone (it refused a new connection): every request whose stream it
   * opened and that still waits lost its answer. Its stream is closed now (the SDK does not
   * resume a stream closed on purpose) and its call fails at once, rather than after resumes a
   * new process can only refuse or answer 400.
   */
  private serverGone(why: Error): void {
    const lost: number[] = [];
    for (const id of this.streaming) {
      const controller = this.waiting.get(id);
      if (!controller) continue;
      lost.push(id);
      this.waiting.delete(id);
      controller.abort(why);
    }
    this.streaming.clear();
    if (lost.length > 0) this.probe.onStreamLost?.(lost, why);
  }

  /**
   * Keeps the transport's error for this turn. When the SDK gives up resuming a stream, its last
   * words ("Maximum reconnection attempts", "Failed to reconnect SSE stream") say less than why
   * the last resume failed (refused, or answered 400 by a server that does not know the stream),
   * which it reported a moment before: that is what the call's error names.
   */
  private remember(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    const now = performance.now();
    const last = this.lastCause && now - this.lastCause.at < RESUME_CAUSE_WINDOW_MS ? this.lastCause : undefined;
    let told = error;
    if (message.startsWith(RESUME_FAILED) && last) {
      // The error just before it was the resume's own: say so.
      told = new Error(`resuming it failed: ${describe(last.error)}`, { cause: last.error });
      this.lastCause = { error: told, at: now, resume: true };
    } else if (message.startsWith(GAVE_UP) && last) told = last.resume ? last.error : new Error(describe(last.error), { cause: last.error });
    else this.lastCause = { error, at: now, resume: false };
    this.recentError = told;
    queueMicrotask(() => {
      if (this.recentError === told) this.recentError = undefined;
    });
  }

  /** The last error that explains a stream's end, and when it came; `resume` once it is known to be a resume's. */
  private lastCause: { error: unknown; at: number; resume: boolean } | undefined;

  /** An answer arrived (on its stream, as JSON, or on a resumed stream): its request is done. */
  private heard(message: JSONRPCMessage): void {
    if ("method" in message || !("id" in message) || typeof message.id !== "number") return;
    this.waiting.delete(message.id);
    this.streaming.delete(message.id);
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
    this.streaming.delete(id);
    controller.abort(new Error("The caller gave up on this request."));
  }

  private forget(ids: number[], controller: AbortController): void {
    for (const id of ids) {
      if (this.waiting.get(id) !== controller) continue;
      this.waiting.delete(id);
      this.streaming.delete(id);
    }
  }
}

/** The SDK's own words when a resume failed, and when it gave up resuming: they wrap the real cause. */
const RESUME_FAILED = "Failed to reconnect SSE stream";
const GAVE_UP = "Maximum reconnection attempts";
/** How long a resume's failure explains the SDK giving up: its resumes are 100 and 300 ms apart. */
const RESUME_CAUSE_WINDOW_MS = 1000;

/** An error's message with the system code under it ("fetch failed (ECONNREFUSED)"). */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
}

/** The numeric ids of the requests in an outgoing message (the client numbers its requests). */
function requestIdsOf(message: JSONRPCMessage | JSONRPCMessage[]): number[] {
  const ids: number[] = [];
  for (const m of Array.isArray(message) ? message : [message]) {
    if ("method" in m && "id" in m && typeof m.id === "number") ids.push(m.id);
  }
  return ids;
}
