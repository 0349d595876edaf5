/**
 * The requests of one client (one transport, one generation): each request it wrote, by the id
 * that client gave it, with the record that owns it (its attempt's scope and the headers the
 * call set for it), and what the HTTP layer saw of each answer. A new client starts a new
 * `ClientRequests`: JSON-RPC ids start again at 0 on every client, so nothing here can reach a
 * request of another client (an old session's late 404, its clean-up, its headers), and it all
 * goes with the client it belongs to.
 */
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import type { ExitInfo, HttpResponseFacts } from "../../errors/normalize.js";
import { StreamLostError } from "../session/connectionEnds.js";
import type { TransportProbe } from "../transport/probe.js";

/** What a request's record can end: its attempt's scope (policy/TimeoutPolicy.ts). */
export interface Abortable {
  abort(reason: unknown): void;
  readonly aborted: boolean;
}

/** One request written by this client: what ends it is its attempt's scope. */
export interface SentRequest {
  readonly scope: Abortable;
  /** Hears the request's `notifications/progress`, where its call listens. */
  readonly onprogress?: ((progress: unknown) => void) | undefined;
}

/**
 * How a request's own HTTP headers (a `beforeToolCall`'s) reach the server over this client:
 * `fetch`, added by the toolkit's own fetch to that request's POST (our HTTP transports: every
 * name, Authorization and DPoP included); `options`, in the request's send options, which a v2
 * client you hold hands to its streamable transport (it drops the names it reserves); `none` where
 * they cannot (stdio has no headers; a user's client whose transport takes none). A call whose
 * header cannot be carried is refused unsent, never sent without it (CallContract.identityFor).
 */
export type HeaderRoute = "fetch" | "options" | "none";

export class ClientRequests implements TransportProbe {
  exit?: ExitInfo;
  lastActivity = 0;
  /** Set by the transport that takes per-request headers. @default "none" */
  headerRoute: HeaderRoute = "none";
  /** Set by our own transports: each request's mark hears its id (requestScope.ts). */
  reportsIds = false;
  readonly responses = new Map<number | string, HttpResponseFacts>();
  /**
   * Headers by request id, for the one request being written (a call's per-call headers, on our
   * HTTP transports and a task's raw channel): added by this client's fetch to that request's POST alone.
   */
  readonly requestHeaders = new Map<number | string, Record<string, string>>();
  /** The per-call headers of this client's requests in flight, for their cancellations (TransportProbe.identities). */
  readonly identities = new Map<number | string, Record<string, string>>();
  abandon?: (id: number) => void;
  serverGone?: (why: Error) => void;
  private readonly sent = new Map<number, SentRequest>();

  /**
   * @param onEventStreamLost this client's legacy SSE event stream broke: every answer it was to
   *   carry is lost (its requests end here), and the connection decides what to do with the client.
   */
  constructor(private readonly eventStreamLost?: (transport: Transport, error: unknown) => void) {}

  readonly onStreamLost = (ids: number[], error: unknown): void => {
    for (const id of ids) this.sent.get(id)?.scope.abort(new StreamLostError(error));
  };

  readonly onEventStreamLost = (transport: Transport, error: unknown): void => {
    this.endRequests(new StreamLostError(error, true));
    this.eventStreamLost?.(transport, error);
  };

  /** Request `id` was written for `request`: a broken answer stream ends its attempt, until `untrack`. */
  track(id: number, request: SentRequest): void {
    this.sent.set(id, request);
  }

  /**
   * Request `id` is done. `failed` when its call failed some other way: it gets no answer either,
   * and the stream still open for one is closed.
   */
  untrack(id: number, request: SentRequest, failed: boolean): void {
    if (this.sent.get(id) !== request) return;
    this.sent.delete(id);
    this.responses.delete(id);
    this.identities.delete(id);
    // A call that timed out or was cancelled gets no answer; close the stream that waits for one.
    if (failed || request.scope.aborted) this.abandon?.(id);
  }

  /** What the HTTP layer saw of the response to request `id`, read once: each request's facts are its own. */
  takeResponse(id: number | undefined): HttpResponseFacts | undefined {
    if (id === undefined) return undefined;
    const facts = this.responses.get(id);
    if (facts) this.responses.delete(id);
    return facts;
  }

  /** The newest response facts (a connect's requests: initialize, the GET that opens a stream), and forgets them all. */
  takeNewest(): HttpResponseFacts | undefined {
    const newest = [...this.responses.values()].at(-1);
    this.responses.clear();
    return newest;
  }

  /**
   * A message this client read: a progress notification for one of its requests whose call
   * listens is delivered here, at once, in the order the messages arrived (true: the SDK is not
   * to see it). Read before the SDK's own dispatch, which runs a notification's handler a microtask
   * after a response read in the same chunk, by when the response has removed it: the last
   * progress of a call (n of n) was lost that way, over stdio most of the time.
   */
  progressed(message: JSONRPCMessage): boolean {
    if (!("method" in message) || message.method !== "notifications/progress") return false;
    const params = (message as { params?: Record<string, unknown> }).params;
    const token = params?.progressToken;
    const request = typeof token === "number" ? this.sent.get(token) : undefined;
    if (!request?.onprogress || !params) return false;
    const { progressToken: _token, _meta: _unused, ...progress } = params;
    request.onprogress(progress);
    return true;
  }

  /** Aborts every request of this client that waits for an answer, with `reason`. */
  endRequests(reason: unknown): void {
    for (const request of this.sent.values()) request.scope.abort(reason);
  }
}
