/**
 * Where a `chaos` fault happens: in the transport, so everything above it (the SDK, our
 * classification, the policies, the model's text) meets it as it meets the real failure.
 *
 * An attempt that rolled a fault carries it on its request mark (see call/requestScope.ts); the
 * transport's send acts on it. The HTTP faults are made one level lower, in fetch, as the
 * network makes them: a 503 page, a reset before any answer, a reset mid-answer; the SDK reads
 * each as it reads the real one.
 */
import type { FetchLike, JSONRPCMessage, Transport, TransportSendOptions } from "@modelcontextprotocol/client";
import type { InjectedFault } from "../../policy/chaos.js";
import { requestIds } from "./httpProbe.js";

/** What the transport and its fetch share: the HTTP faults waiting for their POST, by request id. */
export interface ChaosProbe {
  chaos?: Map<number | string, InjectedFault>;
}

/** The text of an injected `isError` answer. */
export const INJECTED_TOOL_ERROR = "Injected fault (chaos): the tool reported an error.";

type Send = (message: JSONRPCMessage, options?: TransportSendOptions) => Promise<void>;

/** Requests held back by a `slow` fault, by id: a cancellation that comes first drops one unsent. */
const held = new WeakMap<Transport, Map<number, { timer: ReturnType<typeof setTimeout>; done: () => void }>>();

/** Sends request `id` of `transport` with `fault` injected. */
export function sendWithFault(transport: Transport, send: Send, message: JSONRPCMessage, options: TransportSendOptions | undefined, id: number, fault: InjectedFault, probe: ChaosProbe): Promise<void> {
  switch (fault.kind) {
    case "timeout":
      // Written nowhere: the server never hears of it, and no answer comes.
      return Promise.resolve();
    case "is_error": {
      const answer: JSONRPCMessage = { jsonrpc: "2.0", id, result: { content: [{ type: "text", text: INJECTED_TOOL_ERROR }], isError: true } };
      // After the send resolves, as a server's answer comes.
      return Promise.resolve().then(() => transport.onmessage?.(answer));
    }
    case "slow":
      return new Promise<void>((resolve, reject) => {
        const waiting = held.get(transport) ?? new Map();
        held.set(transport, waiting);
        const done = () => {
          clearTimeout(entry.timer);
          waiting.delete(id);
          resolve();
        };
        const entry = {
          timer: setTimeout(() => {
            waiting.delete(id);
            send(message, options).then(resolve, reject);
          }, fault.delayMs),
          done,
        };
        waiting.set(id, entry);
      });
    default:
      (probe.chaos ??= new Map()).set(id, fault);
      return send(message, options).finally(() => probe.chaos?.delete(id));
  }
}

/**
 * A cancellation of a request still held back by `slow`: the request is dropped unsent, and the
 * cancellation with it (the server never heard of the request). True when it was one.
 */
export function dropsHeld(transport: Transport, message: JSONRPCMessage): boolean {
  const waiting = held.get(transport);
  if (!waiting || waiting.size === 0 || !("method" in message) || message.method !== "notifications/cancelled") return false;
  const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
  const entry = typeof id === "number" ? waiting.get(id) : undefined;
  entry?.done();
  return entry !== undefined;
}

/** Releases every request `slow` still holds (the transport closes): none is sent after. */
export function releaseHeld(transport: Transport): void {
  const waiting = held.get(transport);
  if (waiting) for (const entry of [...waiting.values()]) entry.done();
}

/**
 * `base`, with the HTTP faults made where the network makes them. Costs one map check per
 * request while no fault waits.
 */
export function chaosFetch(base: FetchLike, probe: ChaosProbe): FetchLike {
  return (url, init) => {
    const waiting = probe.chaos;
    if (!waiting || waiting.size === 0 || init?.method !== "POST") return base(url, init);
    let fault: InjectedFault | undefined;
    for (const id of requestIds(init.body)) fault ??= waiting.get(id);
    if (!fault) return base(url, init);
    if (fault.kind === "http_503") {
      const headers = { "content-type": "text/html", "retry-after": String(fault.retryAfterS) };
      return Promise.resolve(new Response("<html><body><h1>503 Service Unavailable</h1></body></html>", { status: 503, statusText: "Service Unavailable", headers }));
    }
    if (fault.kind === "reset_before") return Promise.reject(resetError());
    return base(url, init).then(resetMidAnswer);
  };
}

/** What undici throws when the peer closes the connection before answering: `fetch failed`, caused by its SocketError. */
function resetError(): TypeError {
  const cause = Object.assign(new Error("other side closed"), { name: "SocketError", code: "UND_ERR_SOCKET" });
  return new TypeError("fetch failed", { cause });
}

/** The answer's head arrived, then its body broke: undici's `terminated`, caused by the reset. */
function resetMidAnswer(response: Response): Response {
  void response.body?.cancel().catch(() => undefined);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.error(new TypeError("terminated", { cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }) }));
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
