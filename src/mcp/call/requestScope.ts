import type { Transport } from "@modelcontextprotocol/client";

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
export function requestMark(sent: (id: number) => void): (token: string) => void {
  return (token: string | number) => {
    if (typeof token === "number") sent(token);
  };
}

/**
 * Tells each request's mark the id the request is written under; the client's `probe`
 * (transport/transports.ts `TransportProbe`) learns that its requests are told.
 */
export function tagRequests<T extends Transport>(transport: T, probe: { reportsIds?: boolean }): T {
  probe.reportsIds = true;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const mark = options?.onresumptiontoken as ((id: number) => void) | undefined;
    if (mark && "method" in message && "id" in message && typeof message.id === "number") mark(message.id);
    return send(message, options);
  };
  return transport;
}
