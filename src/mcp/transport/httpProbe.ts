import type { FetchLike } from "@modelcontextprotocol/client";
import type { HttpResponseFacts } from "../../errors/normalize.js";
import { parseRetryAfter } from "../../errors/normalize.js";
import { readJsonAnswer } from "./sdkInternals.js";
import type { TransportProbe } from "./probe.js";

/**
 * The fetch under both HTTP transports. The SDK's HTTP errors carry no headers and its
 * "Unexpected content type" no body, so this fetch records, per JSON-RPC request, what a
 * response that was no plain MCP answer said beyond JSON-RPC: the status, Retry-After,
 * WWW-Authenticate, the page or stray JSON it held.
 *
 * It never changes what the SDK reads. Only MCP messages are looked at: POSTs of JSON-RPC and
 * the GETs that open an event stream. Everything else the SDK sends through this fetch (OAuth
 * discovery, client registration, token requests, a session's DELETE) passes through untouched.
 * No body is cut or re-wrapped: a page's excerpt is read from a clone, and a JSON answer is read
 * where the SDK reads it. A broken answer stream is seen by the transport (answerStreams.ts).
 */

/** Bodies read for a message (a page, a stray JSON) are cut here: enough for a title and a sentence. */
const EXCERPT_BYTES = 8192;

/** The key of facts about a request without an id (the GET that opens a stream): the connect path reads it. */
export const STREAM_REQUEST = -1;

export interface ProbingFetchOptions {
  /** The fetch the requests go through (the server's `fetch` option). @default globalThis.fetch */
  base?: FetchLike;
}

export function probingFetch(probe: TransportProbe, options: ProbingFetchOptions = {}): FetchLike {
  // Resolved per request, so a fetch replaced after construction (a test's stub, a polyfill) is used.
  const base: FetchLike = options.base ?? ((url, init) => fetch(url, init));
  return async (url, init) => {
    const method = init?.method ?? "GET";
    if (method === "POST" && isJsonRpcBody(init?.body)) return watchAnswer(await base(url, withRequestHeaders(init, init.body, probe)), url, init.body, probe);
    if (method === "GET" && asksForEventStream(init?.headers)) return watchOpening(await base(url, init), url, probe);
    return base(url, init);
  };
}

/** The POST with the headers a call set for its own request (see TransportProbe.requestHeaders). */
function withRequestHeaders(init: RequestInit, body: string, probe: TransportProbe): RequestInit {
  const own = probe.requestHeaders;
  if (!own || own.size === 0) return init;
  let headers: Headers | undefined;
  for (const id of [...requestIds(body), ...cancelledIds(body)]) {
    const set = own.get(id);
    if (!set) continue;
    headers ??= new Headers(init.headers);
    for (const [name, value] of Object.entries(set)) headers.set(name, value);
  }
  return headers ? { ...init, headers } : init;
}

/** The keys under which a `notifications/cancelled` waits for the headers of the request it cancels (see carryRequestHeaders). */
function cancelledIds(body: string): string[] {
  if (!body.includes('"notifications/cancelled"')) return [];
  try {
    const message = JSON.parse(body) as { method?: unknown; params?: { requestId?: unknown } };
    const id = message.params?.requestId;
    return message.method === "notifications/cancelled" && (typeof id === "number" || typeof id === "string") ? [cancelKey(id)] : [];
  } catch {
    return [];
  }
}

/** Where the headers of a cancellation of request `id` wait while it is written. */
export const cancelKey = (id: number | string): string => `cancelled:${id}`;

/**
 * Every JSON-RPC message has a `jsonrpc` member, and JSON.stringify writes its name as is:
 * a body without it is no MCP message (a registration, a token request).
 */
function isJsonRpcBody(body: unknown): body is string {
  return typeof body === "string" && body.includes('"jsonrpc"');
}

function asksForEventStream(headers: RequestInit["headers"]): boolean {
  if (!headers) return false;
  const accept = headers instanceof Headers ? headers.get("accept") : new Headers(headers).get("accept");
  return accept?.toLowerCase().includes("text/event-stream") === true;
}

/** The answer to a POST: an event stream or a valid JSON answer costs nothing here beyond a look at its headers. */
async function watchAnswer(response: Response, url: string | URL, body: string, probe: TransportProbe): Promise<Response> {
  const record = (facts: Partial<HttpResponseFacts>) => {
    const entry = { url: String(url), status: response.status, ...contentTypeOf(response), ...facts };
    for (const id of requestIds(body)) probe.responses.set(id, entry);
  };
  if (!response.ok) {
    record(failureFacts(response));
    return response;
  }
  const type = mediaType(response.headers.get("content-type"));
  if (type === "text/event-stream" || response.status === 202 || !response.body) return response;
  if (type === "application/json") {
    readJsonAnswer(response, (text) => readJson(text, record, probe, body));
    return response;
  }
  // Neither JSON nor an event stream: the SDK reads the body away and says only "Unexpected
  // content type". A copy's first bytes go into the message (this is no success path).
  if (requestIds(body).length === 0) return response;
  const text = await excerpt(response.clone());
  record({ body: text, unexpected: !text.trim() ? "empty" : /html/i.test(type ?? "") || /^\s*</.test(text) ? "html" : "content_type" });
  return response;
}

/**
 * What `response.json()` does, and a record of a body that is no JSON-RPC. A body that breaks
 * off is a lost answer, reported as a broken stream is.
 */
async function readJson(text: () => Promise<string>, record: (facts: Partial<HttpResponseFacts>) => void, probe: TransportProbe, request: string): Promise<unknown> {
  let body: string;
  try {
    body = await text();
  } catch (error) {
    probe.onStreamLost?.(requestIds(request).filter((id): id is number => typeof id === "number"), error);
    throw error;
  } finally {
    probe.lastActivity = performance.now();
  }
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
  else {
    // A JSON answer is the whole answer: a request it does not answer (a wrong id, a proxy's
    // mix-up) will hear nothing more, and would wait out its timeout.
    const answered = answeredIds(data);
    const unanswered = unansweredIds(request, answered);
    if (unanswered.length > 0) {
      const carried = answered.length === 0 ? "no answer" : `id ${answered.map((id) => JSON.stringify(id ?? null)).join(", ")}`;
      probe.onStreamLost?.(unanswered, new Error(`the server's JSON answer carried ${carried}, not the request's id ${unanswered.join(", ")}`));
    }
  }
  return data;
}

/** The ids of the answers (results and errors) in a JSON-RPC body. */
function answeredIds(data: unknown): unknown[] {
  const ids: unknown[] = [];
  for (const m of Array.isArray(data) ? data : [data]) {
    if (typeof m === "object" && m !== null && ("result" in m || "error" in m)) ids.push((m as { id?: unknown }).id);
  }
  return ids;
}

/** The numeric ids of the requests in `request` that no id of `answered` answers. */
function unansweredIds(request: string, answered: readonly unknown[]): number[] {
  // The common body, one request whose answer is here, seen without parsing it again (a body
  // written in another key order is parsed: only the speed depends on the order).
  for (const id of answered) if (typeof id === "number" && request.endsWith(`"id":${id}}`)) return [];
  return requestIds(request).filter((id): id is number => typeof id === "number" && !answered.includes(id));
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

/** A stream-opening GET: a failure, or a page instead of an event stream, is recorded for the connect error. */
async function watchOpening(response: Response, url: string | URL, probe: TransportProbe): Promise<Response> {
  const base = { url: String(url), status: response.status, ...contentTypeOf(response) };
  if (!response.ok) {
    probe.responses.set(STREAM_REQUEST, { ...base, ...failureFacts(response) });
    return response;
  }
  const type = mediaType(response.headers.get("content-type"));
  if (type === "text/event-stream" || !response.body) return response;
  const text = await excerpt(response.clone());
  probe.responses.set(STREAM_REQUEST, { ...base, body: text, unexpected: /^\s*</.test(text) ? "html" : text.trim() ? "content_type" : "empty" });
  return response;
}

function isJsonRpc(data: unknown): boolean {
  const one = (m: unknown) => typeof m === "object" && m !== null && (m as { jsonrpc?: unknown }).jsonrpc === "2.0";
  return Array.isArray(data) ? data.length > 0 && data.every(one) : one(data);
}

/** The first bytes of a body (a copy the SDK does not read) as text; the rest of the copy is cancelled. */
async function excerpt(copy: Response): Promise<string> {
  const reader = copy.body!.getReader();
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
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes.subarray(0, EXCERPT_BYTES));
}

function mediaType(header: string | null): string | undefined {
  return header?.split(";", 1)[0]?.trim().toLowerCase();
}

/**
 * The ids of the JSON-RPC requests in a POST body, parsed as JSON (key order, spacing and batches
 * do not matter). Read only where a response needs recording, never on the success path.
 */
export function requestIds(body: unknown): (number | string)[] {
  if (typeof body !== "string") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const ids: (number | string)[] = [];
  for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
    if (typeof m !== "object" || m === null) continue;
    const { method, id } = m as { method?: unknown; id?: unknown };
    if (typeof method === "string" && (typeof id === "number" || typeof id === "string")) ids.push(id);
  }
  return ids;
}
