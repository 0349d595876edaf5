import { AsyncLocalStorage } from "node:async_hooks";
import type { Transport } from "@modelcontextprotocol/client";

/**
 * Which JSON-RPC ids a tool call's requests went out under. The v2 client awaits before it
 * numbers a request, so reading its counter before `callTool` names the wrong request when
 * calls run concurrently; the id is read where the request is written instead, in the async
 * context of the call that wrote it. A call answered after `input_required` rounds has several.
 */
export interface RequestIds {
  /** Called with each request id the call writes. */
  sent(id: number): void;
}

const scope = new AsyncLocalStorage<RequestIds>();

/** Runs `call` so that every request it writes through a {@link tagRequests} transport is reported to `ids`. */
export function withRequestIds<T>(ids: RequestIds, call: () => Promise<T>): Promise<T> {
  return scope.run(ids, call);
}

/** Reports the id of every request written through `transport` to the call that wrote it. */
export function tagRequests<T extends Transport>(transport: T): T {
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const ids = scope.getStore();
    if (ids && "method" in message && "id" in message && typeof message.id === "number") ids.sent(message.id);
    return send(message, options);
  };
  return transport;
}
