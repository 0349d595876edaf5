import type { StreamPipeOptions } from "node:stream/web";
import type { FetchLike } from "@modelcontextprotocol/client";
import type { HttpResponseFacts } from "../errors/normalize.js";
import { parseRetryAfter } from "../errors/normalize.js";
import type { TransportProbe } from "./transports.js";

/**
 * The fetch under both HTTP transports. The SDK's HTTP errors carry no headers and its
 * "Unexpected content type" no body, and a POST's response stream that breaks or ends without
 * the answer leaves the call waiting for its timeout. This fetch records, per JSON-RPC request,
 * what the response said beyond JSON-RPC, and reports a lost answer stream at once.
 *
 * The success path stays cheap: no body is copied or re-wrapped. An event stream is watched
 * through the one `pipeThrough` the SDK calls on it (a pipe it makes anyway), and a JSON body
 * through its `json()`.
 */

/** Bodies read for a message (a page, a stray JSON) are cut here: enough for a title and a sentence. */
const EXCERPT_BYTES = 8192;

/** The key of facts about a request without an id (the GET that opens a stream): the connect path reads it. */
export const STREAM_REQUEST = -1;

export interface ProbingFetchOptions {
  /** The fetch the requests go through (the server's `fetch` option). @default globalThis.fetch */
  base?: FetchLike;
  /**
   * Something that changes when the SDK schedules a resumption of a broken stream (the streamable
   * transport does, after an event with an id): a stream it resumes is not lost.
   */
  resumeMarker?: () => unknown;
}

export function probingFetch(probe: TransportProbe, options: ProbingFetchOptions = {}): FetchLike {
  // Resolved per request, so a fetch replaced after construction (a test's stub, a polyfill) is used.
  const base: FetchLike = options.base ?? ((url, init) => fetch(url, init));
  // Each POST carrying requests gets its own controller, linked to the transport's, so one
  // request's stream can be closed alone.
  const open = new Map<number, AbortController>();
  const abandoned = new WeakSet<AbortController>();
  probe.abandon = (id) => {
    const request = open.get(id);
    if (!request) return;
    abandoned.add(request);
    request.abort(new Error("The caller gave up on this request."));
  };

  return async (url, init) => {
    const ids = init?.method === "POST" ? requestIds(init.body) : [];
    if (ids.length === 0) {
      if ((init?.method ?? "GET") !== "GET") return base(url, init);
      return watchOpening(await base(url, init), url, probe);
    }
    const own = linkedController(init?.signal);
    for (const id of ids) open.set(id, own.controller);
    const done = () => {
      probe.lastActivity = performance.now();
      own.unlink();
      for (const id of ids) if (open.get(id) === own.controller) open.delete(id);
    };
    let response: Response;
    try {
      response = await base(url, { ...init, signal: own.controller.signal });
    } catch (error) {
      done();
      throw error;
    }
    const record = (facts: Partial<HttpResponseFacts>) => {
      const entry = { url: String(url), status: response.status, ...contentTypeOf(response), ...facts };
      for (const id of ids) probe.responses.set(id, entry);
    };
    if (!response.ok) {
      done();
      record(failureFacts(response));
      return response;
    }
    const type = mediaType(response.headers.get("content-type"));
    if (type === "text/event-stream" && response.body) {
      watchStream(response.body, {
        ids,
        done,
        quiet: () => abandoned.has(own.controller) || init?.signal?.aborted === true,
        lost: (error) => {
          const marker = options.resumeMarker?.();
          // After the SDK has read what the stream held and decided whether to resume it.
          setImmediate(() => {
            if (options.resumeMarker?.() === marker) probe.onStreamLost?.(ids, error);
          });
        },
      });
      return response;
    }
    if (type === "application/json") {
      watchJson(response, done, record, (error) => probe.onStreamLost?.(ids, error));
      return response;
    }
    if (response.status === 202 || !response.body) {
      done();
      return response;
    }
    // Neither JSON nor an event stream: the SDK cancels the body and says only "Unexpected content
    // type". Read the start of it for the message (this is no success path).
    const text = await excerpt(response);
    done();
    record({ body: text, unexpected: !text.trim() ? "empty" : /html/i.test(type ?? "") || /^\s*</.test(text) ? "html" : "content_type" });
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** What a failed response says beyond its status: the wait it asks for, the auth error it names. */
function failureFacts(response: Response): Partial<HttpResponseFacts> {
  const facts: Partial<HttpResponseFacts> = {};
  const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"));
  if (retryAfterMs !== undefined) facts.retryAfterMs = retryAfterMs;
  const auth = response.headers.get("www-authenticate");
  if (auth) facts.wwwAuthenticate = auth;
  return facts;
}

function contentTypeOf(response: Response): Pick<HttpResponseFacts, "contentType"> {
  const type = response.headers.get("content-type");
  return type ? { contentType: type } : {};
}

/** A stream-opening GET: a failure or a page instead of an event stream is recorded for the connect error. */
async function watchOpening(response: Response, url: string | URL, probe: TransportProbe): Promise<Response> {
  const base = { url: String(url), status: response.status, ...contentTypeOf(response) };
  if (!response.ok) {
    probe.responses.set(STREAM_REQUEST, { ...base, ...failureFacts(response) });
    return response;
  }
  const type = mediaType(response.headers.get("content-type"));
  if (type === "text/event-stream" || !response.body) return response;
  const text = await excerpt(response);
  probe.responses.set(STREAM_REQUEST, { ...base, body: text, unexpected: /^\s*</.test(text) ? "html" : text.trim() ? "content_type" : "empty" });
  return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

interface StreamWatch {
  ids: number[];
  done: () => void;
  /** Did we close this stream on purpose (the caller gave up, the transport closed)? */
  quiet: () => boolean;
  /** The stream broke (`error`) or ended (`undefined`). */
  lost: (error: unknown) => void;
}

/**
 * Watches an event stream through the `pipeThrough` the SDK calls on it: the pipe is the same
 * one `pipeThrough` would make, so no chunk takes an extra step. Only its settling is observed.
 */
function watchStream(body: ReadableStream<Uint8Array>, watch: StreamWatch): void {
  const pipeThrough = <T>(transform: { writable: WritableStream<Uint8Array>; readable: ReadableStream<T> }, options?: StreamPipeOptions): ReadableStream<T> => {
    // The destination is left to us on a break, so a stream we closed on purpose ends quietly.
    body.pipeTo(transform.writable, { ...options, preventAbort: true }).then(
      () => {
        watch.done();
        watch.lost(undefined);
      },
      (error: unknown) => {
        watch.done();
        if (watch.quiet()) {
          transform.writable.close().catch(() => undefined);
          return;
        }
        transform.writable.abort(error).catch(() => undefined);
        watch.lost(error);
      },
    );
    return transform.readable;
  };
  Object.defineProperty(body, "pipeThrough", { value: pipeThrough, configurable: true });
}

/**
 * Watches a JSON answer through the `json()` the SDK calls: a body that is no JSON-RPC is
 * recorded, and a body that breaks off is reported lost.
 */
function watchJson(response: Response, done: () => void, record: (facts: Partial<HttpResponseFacts>) => void, lost: (error: unknown) => void): void {
  const text = response.text.bind(response);
  const json = async (): Promise<unknown> => {
    let body: string;
    try {
      body = await text();
    } catch (error) {
      // The body broke off before the answer was whole: the answer is lost, as on a broken stream.
      done();
      lost(error);
      throw error;
    }
    done();
    if (!body.trim()) {
      record({ unexpected: "empty" });
      throw new SyntaxError("The server answered with an empty body.");
    }
    let data: unknown;
    try {
      data = JSON.parse(body);
    } catch (error) {
      record({ body: body.slice(0, EXCERPT_BYTES), unexpected: /^\s*</.test(body) ? "html" : "not_json_rpc" });
      throw error;
    }
    if (!isJsonRpc(data)) record({ body: body.slice(0, 2000), unexpected: "not_json_rpc" });
    return data;
  };
  Object.defineProperty(response, "json", { value: json, configurable: true });
}

function isJsonRpc(data: unknown): boolean {
  const one = (m: unknown) => typeof m === "object" && m !== null && (m as { jsonrpc?: unknown }).jsonrpc === "2.0";
  return Array.isArray(data) ? data.length > 0 && data.every(one) : one(data);
}

/** The first bytes of a body as text; the rest is cancelled. */
async function excerpt(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < EXCERPT_BYTES) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // A body that broke while we read it: what arrived is enough for a message.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, EXCERPT_BYTES));
}

function mediaType(header: string | null): string | undefined {
  return header?.split(";", 1)[0]?.trim().toLowerCase();
}

/** A controller that aborts with `outer`; `unlink` drops the listener once the request is done. */
function linkedController(outer: AbortSignal | null | undefined): { controller: AbortController; unlink: () => void } {
  const controller = new AbortController();
  if (!outer) return { controller, unlink: () => {} };
  if (outer.aborted) {
    controller.abort(outer.reason);
    return { controller, unlink: () => {} };
  }
  const onAbort = () => controller.abort(outer.reason);
  outer.addEventListener("abort", onAbort, { once: true });
  return { controller, unlink: () => outer.removeEventListener("abort", onAbort) };
}

/**
 * The ids of the JSON-RPC requests in a POST body. The SDK writes `{"method":…,"jsonrpc":"2.0","id":N}`
 * with the id last, so the common case is read from the end without parsing the whole body (which
 * may hold megabytes of arguments).
 */
export function requestIds(body: unknown): number[] {
  if (typeof body !== "string") return [];
  // A notification (the SDK's cancels and acknowledgements) ends with the version and carries no id.
  if (body.endsWith('"jsonrpc":"2.0"}') && body.startsWith('{"method":')) return [];
  const tail = /"jsonrpc":"2\.0","id":(\d+)\}$/.exec(body.length > 64 ? body.slice(-64) : body);
  if (tail && body.startsWith('{"method":')) return [Number(tail[1])];
  if (!body.startsWith("[") && !body.includes('"method"')) return [];
  try {
    const parsed = JSON.parse(body) as unknown;
    const messages = Array.isArray(parsed) ? parsed : [parsed];
    return messages
      .filter((m): m is { id: number; method: string } => typeof m === "object" && m !== null && "method" in m && typeof (m as { id?: unknown }).id === "number")
      .map((m) => m.id);
  } catch {
    return [];
  }
}
