/**
 * What one connection knows of the requests in flight on it: every attempt under way (the
 * toolkit's close ends them all), each request by its JSON-RPC id (a broken answer stream ends
 * the one it carried), and what the HTTP layer saw of each response, read once by its call.
 */
import type { Transport } from "@modelcontextprotocol/client";
import type { HttpResponseFacts } from "../errors/normalize.js";
import { StreamLostError } from "./connectionEnds.js";
import type { TransportProbe } from "./transports.js";

export class RequestTracker {
  /** Handed to the connection's transports, which report into it. */
  readonly probe: TransportProbe & { requestHeaders: Map<number | string, Record<string, string>> } = { responses: new Map(), lastActivity: 0, requestHeaders: new Map() };
  private readonly attempts = new Set<AbortController>();
  private readonly byId = new Map<number, AbortController>();
  /** Waiters for every attempt of a snapshot to leave; rare (a client being retired), so a plain list. */
  private drains: Array<{ pending: Set<AbortController>; done: () => void }> = [];

  /**
   * @param onEventStreamLost the legacy SSE event stream of `transport` broke: the connection
   *   decides whether it was its current one, and ends every request if so.
   */
  constructor(onEventStreamLost: (transport: Transport, error: unknown) => void) {
    this.probe.onStreamLost = (ids, error) => {
      for (const id of ids) this.byId.get(id)?.abort(new StreamLostError(error));
    };
    this.probe.onEventStreamLost = onEventStreamLost;
  }

  /** An attempt begins: until the returned function is called, `endAll` aborts it. */
  enter(controller: AbortController): () => void {
    this.attempts.add(controller);
    return () => {
      this.attempts.delete(controller);
      if (this.drains.length > 0) this.left(controller);
    };
  }

  /** Resolves once every attempt under way now has ended (each is bounded by its own timeout). */
  afterCurrent(): Promise<void> {
    if (this.attempts.size === 0) return Promise.resolve();
    return new Promise((done) => this.drains.push({ pending: new Set(this.attempts), done }));
  }

  private left(controller: AbortController): void {
    this.drains = this.drains.filter((drain) => {
      drain.pending.delete(controller);
      if (drain.pending.size > 0) return true;
      drain.done();
      return false;
    });
  }

  /**
   * Registers a request's controller under its JSON-RPC id, so a broken response stream can end
   * it. The returned function ends the registration; pass `failed` when the call failed some
   * other way: it gets no answer either, and the stream still open for one is closed.
   */
  track(id: number | undefined, controller: AbortController, headers?: Record<string, string>): (failed?: boolean) => void {
    if (id === undefined) return () => {};
    this.byId.set(id, controller);
    if (headers) this.probe.requestHeaders.set(id, headers);
    return (failed = false) => {
      if (this.byId.get(id) === controller) this.byId.delete(id);
      this.probe.responses.delete(id);
      if (headers) this.probe.requestHeaders.delete(id);
      // A call that timed out or was cancelled gets no answer; close the stream that waits for one.
      if (failed || controller.signal.aborted) this.probe.abandon?.(id);
    };
  }

  /** What the HTTP layer saw of the response to request `id`, read once: each request's facts are its own. */
  takeResponse(id: number | undefined): HttpResponseFacts | undefined {
    if (id === undefined) return undefined;
    const facts = this.probe.responses.get(id);
    if (facts) this.probe.responses.delete(id);
    return facts;
  }

  /** The newest response facts (a connect's requests: initialize, the GET that opens a stream), and forgets them all. */
  takeNewest(): HttpResponseFacts | undefined {
    const newest = [...this.probe.responses.values()].at(-1);
    this.probe.responses.clear();
    return newest;
  }

  /** Aborts every attempt and request in flight with `reason`. */
  endAll(reason: unknown): void {
    for (const controller of this.attempts) controller.abort(reason);
    for (const controller of this.byId.values()) controller.abort(reason);
    this.attempts.clear();
    this.byId.clear();
    for (const drain of this.drains) drain.done();
    this.drains = [];
  }

  /** Aborts every request waiting on an answer stream that broke (`reason`), leaving the attempts registered. */
  endRequests(reason: unknown): void {
    for (const controller of this.byId.values()) controller.abort(reason);
  }
}
