/**
 * Requests sent on a v2 client's transport and answered off it, past the client: the Tasks
 * extension's wire (./tasksExtension.ts), which the v2 client's codec refuses. Each request is
 * framed with the per-request `_meta` envelope the client itself would send, declaring the
 * extension. Our ids and progress tokens are strings, so they never meet the client's numbered
 * requests (nor the answer watcher, which follows only those); their answers and progress
 * notifications are taken off the transport before the client sees them.
 */
import { ProtocolError, SdkError, SdkErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/client";
import { type AnyClient, isV2Client, type Progress, protocolVersionOf, transportOf } from "../session/clients.js";
import { outboundEnvelopeOf } from "../transport/sdkInternals.js";

export const TASKS_EXTENSION_ID = "io.modelcontextprotocol/tasks";
const META = "io.modelcontextprotocol/";

/** One request's options: the same as the SDK's own for a request. */
export interface RawRequestOptions {
  signal?: AbortSignal;
  /** ms; none when undefined (the signal bounds the request). */
  timeout?: number;
  /** Asks the server for progress (a progress token in `_meta`) and hears it while the request is pending. */
  onProgress?: (progress: Progress) => void;
  /** Restarts `timeout` on each progress notification. @default false */
  resetTimeoutOnProgress?: boolean;
}

/** Sends one request and resolves with its result; rejects with its JSON-RPC error as a ProtocolError. */
export type RawChannel = (method: string, params: Record<string, unknown>, options: RawRequestOptions) => Promise<Record<string, unknown>>;

/** HTTP headers for one call's requests alone, and the map the connection's fetch reads them from by request id. */
export interface RequestHeaders {
  set: Record<string, string>;
  byRequest: Map<number | string, Record<string, string>>;
}

interface Pending {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: unknown) => void;
  progress?: (progress: Progress) => void;
}

/** One tap per transport: the requests of ours waiting on it, by their (string) ids, which are also their progress tokens. */
const taps = new WeakMap<object, Map<string, Pending>>();
let sequence = 0;

/** A channel on `client`'s transport; every request it sends carries `headers` (over HTTP) and nothing of another call's. */
export function rawChannel(client: AnyClient, headers?: RequestHeaders): RawChannel {
  const transport = transportOf(client);
  if (!transport || !isV2Client(client)) throw new Error("The Tasks extension needs a connected v2 client.");
  const waiting = tap(transport);
  return (method, params, { signal, timeout, onProgress, resetTimeoutOnProgress }) => {
    const id = `tasks-ext-${++sequence}`;
    const meta = { ...(params._meta as Record<string, unknown> | undefined), ...envelope(client), ...(onProgress ? { progressToken: id } : {}) };
    const message = { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } } as unknown as JSONRPCMessage;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const stream = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        waiting.delete(id);
        headers?.byRequest.delete(id);
      };
      const onAbort = () => {
        done();
        stream.abort(signal?.reason);
        reject(signal?.reason ?? new SdkError(SdkErrorCode.RequestTimeout, "Request aborted"));
      };
      const arm = () => {
        if (timeout === undefined) return;
        clearTimeout(timer);
        timer = setTimeout(() => {
          done();
          stream.abort();
          reject(new SdkError(SdkErrorCode.RequestTimeout, `Request timed out after ${timeout} ms`, { timeout }));
        }, timeout);
      };
      if (signal?.aborted) return onAbort();
      arm();
      signal?.addEventListener("abort", onAbort, { once: true });
      waiting.set(id, {
        resolve: (r) => (done(), resolve(r)),
        reject: (e) => (done(), reject(e)),
        ...(onProgress ? { progress: (p: Progress) => (resetTimeoutOnProgress && arm(), onProgress(p)) } : {}),
      });
      // Read by the connection's fetch for this request's POST alone (httpProbe.ts), as the SDK path's are.
      if (headers) headers.byRequest.set(id, headers.set);
      transport.send(message, { requestSignal: stream.signal } as never).catch((error: unknown) => {
        done();
        reject(error);
      });
    });
  };
}

/** The envelope the client sends on its own requests, with the extension declared in its capabilities. */
function envelope(client: AnyClient): Record<string, unknown> {
  const own = outboundEnvelopeOf(client) ?? {
    [`${META}protocolVersion`]: protocolVersionOf(client),
    [`${META}clientInfo`]: { name: "langchain-mcp-errors", version: "0" },
  };
  const capabilities = (own[`${META}clientCapabilities`] ?? {}) as { extensions?: Record<string, unknown> };
  return { ...own, [`${META}clientCapabilities`]: { ...capabilities, extensions: { ...capabilities.extensions, [TASKS_EXTENSION_ID]: {} } } };
}

/** Takes the answers and progress of our requests off `transport`, once per transport; the rest goes on to the client. */
function tap(transport: NonNullable<ReturnType<typeof transportOf>>): Map<string, Pending> {
  const known = taps.get(transport);
  if (known) return known;
  const waiting = new Map<string, Pending>();
  taps.set(transport, waiting);
  const heard = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ("method" in message) {
      const params = (message as { params?: { progressToken?: unknown; _meta?: unknown } }).params;
      const token = message.method === "notifications/progress" ? params?.progressToken : undefined;
      const mine = typeof token === "string" ? waiting.get(token) : undefined;
      if (!mine || !params) return heard?.(message, extra);
      // Ours: the client knows no such token, and would report it as an error.
      const { progressToken: _token, _meta: _unused, ...progress } = params;
      return mine.progress?.(progress as unknown as Progress);
    }
    const id = (message as { id?: unknown }).id;
    const mine = typeof id === "string" ? waiting.get(id) : undefined;
    if (!mine) return heard?.(message, extra);
    const answer = message as { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };
    if (answer.error) mine.reject(new ProtocolError(answer.error.code, answer.error.message, answer.error.data));
    else mine.resolve(answer.result ?? {});
  };
  const closed = transport.onclose;
  transport.onclose = () => {
    for (const p of waiting.values()) p.reject(new SdkError(SdkErrorCode.ConnectionClosed, "Connection closed"));
    waiting.clear();
    closed?.();
  };
  return waiting;
}
