/**
 * What one connection knows of the requests in flight on it: every attempt under way (the
 * toolkit's close ends them all), each request by its JSON-RPC id (a broken answer stream ends
 * the one it carried), and what the HTTP layer saw of each response, read once by its call.
 */
import type { Transport } from "@modelcontextprotocol/client";
import type { HttpResponseFacts } from "../errors/normalize.js";
import { StreamLostError } from "./connectionEnds.js";
import type { TransportProbe } from "./transports.js";

/** What the tracker can end: an attempt's scope (policy/TimeoutPolicy.ts). */
export interface Abortable {
  abort(reason: unknown): void;
  readonly aborted: boolean;
}

export class RequestTracker {
  /** Handed to the connection's transports, which report into it. */
  readonly probe: TransportProbe & { requestHeaders: Map<number | string, Record<string, string>> } = { responses: new Map(), lastActivity: 0, requestHeaders: new Map() };
  private readonly attempts = new Set<Abortable>();
  private readonly byId = new Map<number, Abortable>();
  /** Waiters for every attempt of a snapshot to leave; rare (a client being retired), so a plain list. */
  private drains: Array<{ pending: Set<Abortable>; done: () => void }> = [];

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

  /** An attempt begins: until it `leave`s, `endAll` aborts it. Methods, not a closure per attempt. */
  enter(attempt: Abortable): void {
    this.attempts.add(attempt);
  }

  leave(attempt: Abortable): void {
    this.attempts.delete(attempt);
    if (this.drains.length > 0) this.left(attempt);
  }

  /** Resolves once every attempt under way now has ended (each is bounded by its own timeout). */
  afterCurrent(): Promise<void> {
    if (this.attempts.size === 0) return Promise.resolve();
    return new Promise((done) => this.drains.push({ pending: new Set(this.attempts), done }));
  }

  private left(attempt: Abortable): void {
    this.drains = this.drains.filter((drain) => {
      drain.pending.delete(attempt);
      if (drain.pending.size > 0) return true;
      drain.done();
      return false;
    });
  }

  /**
   * Registers a request's attempt under its JSON-RPC id, so a broken response stream can end
   * it, until `untrack`. With `headers`, the transport sends them with this request alone.
   */
  track(id: number, attempt: Abortable, headers?: Record<string, string>): void {
    this.byId.set(id, attempt);
    if (headers) this.probe.requestHeaders.set(id, headers);
  }

  /**
   * Ends a request's registration; `failed` when the call failed some other way: it gets no
   * answer either, and the stream still open for one is closed.
   */
  untrack(id: number, attempt: Abortable, headers: Record<string, string> | undefined, failed = false): void {
    if (this.byId.get(id) === attempt) this.byId.delete(id);
    this.probe.responses.delete(id);
    if (headers) this.probe.requestHeaders.delete(id);
    // A call that timed out or was cancelled gets no answer; close the stream that waits for one.
    if (failed || attempt.aborted) this.probe.abandon?.(id);
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
    for (const attempt of this.attempts) attempt.abort(reason);
    for (const attempt of this.byId.values()) attempt.abort(reason);
    this.attempts.clear();
    this.byId.clear();
    for (const drain of this.drains) drain.done();
    this.drains = [];
  }

  /** Aborts every request waiting on an answer stream that broke (`reason`), leaving the attempts registered. */
  endRequests(reason: unknown): void {
    for (const attempt of this.byId.values()) attempt.abort(reason);
  }
}
