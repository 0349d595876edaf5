import type { Transport } from "@modelcontextprotocol/client";
import type { InjectedFault } from "../../policy/chaos.js";
import { dropsHeld, releaseHeld, sendWithFault, type ChaosProbe } from "../transport/chaos.js";

/** A request mark; one that carries a `fault` has its request sent with that fault (the tool's `chaos`). */
export type RequestMark = ((token: string | number) => void) & { fault?: InjectedFault };

/**
 * Which JSON-RPC ids a tool call's requests went out under. The v2 client awaits before it
 * numbers a request, so reading its counter before `callTool` names the wrong request when
 * calls run concurrently; the id is read where the request is written instead.
 *
 * Both SDK lines hand a request's `onresumptiontoken` option to `transport.send` as the caller
 * gave it. A call over one of our transports gives its own ({@link requestMark}); the transport
 * calls it with the id of each request written with it (a number). The SDK's streamable
 * transport calls it with the ids of SSE events (strings), which it ignores: the transport keeps
 * the last event id itself to resume a stream. A call answered after `input_required` rounds
 * sends each round with the same options, so it hears several ids. (An AsyncLocalStorage did
 * this job once, but on Node 20 running one turns on promise hooks for the whole process.)
 */
export function requestMark(sent: (id: number) => void): RequestMark {
  return (token: string | number) => {
    if (typeof token === "number") sent(token);
  };
}

/**
 * Tells each request's mark the id the request is written under; the client's `probe`
 * (transport/transports.ts `TransportProbe`) learns that its requests are told. A mark that
 * carries a fault has its request sent with it (transport/chaos.ts), once.
 */
export function tagRequests<T extends Transport>(transport: T, probe: { reportsIds?: boolean } & ChaosProbe): T {
  probe.reportsIds = true;
  const send = transport.send.bind(transport);
  const close = transport.close.bind(transport);
  transport.send = (message, options) => {
    if (!("method" in message)) return send(message, options);
    if (!("id" in message)) return dropsHeld(transport, message) ? Promise.resolve() : send(message, options);
    const mark = options?.onresumptiontoken as RequestMark | undefined;
    if (!mark || typeof message.id !== "number") return send(message, options);
    mark(message.id);
    const fault = mark.fault;
    if (!fault) return send(message, options);
    // An attempt's input rounds reuse its options: the fault meets its first request only.
    mark.fault = undefined;
    return sendWithFault(transport, send, message, options, message.id, fault, probe);
  };
  transport.close = () => {
    releaseHeld(transport);
    return close();
  };
  return transport;
}
