import type { Transport } from "@modelcontextprotocol/client";

/**
 * Which JSON-RPC ids a tool call's requests went out under. The v2 client awaits before it
 * numbers a request, so reading its counter before `callTool` names the wrong request when
 * calls run concurrently; the id is read where the request is written instead.
 *
 * The call is recognised there by its request options: both SDK lines hand a request's
 * `onresumptiontoken` to `transport.send` as the caller gave it, so a function made for one
 * call names that call (pinned by the tests of concurrent calls over HTTP). It does nothing when
 * called: the transport keeps the last event id itself to resume a stream. An AsyncLocalStorage did this job
 * before, but on Node 20 running one turns on promise hooks for the whole process, which cost
 * about 5% of an HTTP tool call's CPU, for every caller in the process. A call answered after
 * `input_required` rounds sends each round with the same options, so it has several ids.
 */
export interface RequestIds {
  /** Called with each request id the call writes. */
  sent(id: number): void;
}

const owners = new WeakMap<object, RequestIds>();
/** The transports that report ids: a request over any other needs no mark. */
const tagged = new WeakSet<object>();

/** Does `transport` report the ids of the requests written through it? */
export function tagsRequests(transport: object | undefined): boolean {
  return transport !== undefined && tagged.has(transport);
}

/**
 * The `onresumptiontoken` request option that makes every request written with it through a
 * {@link tagRequests} transport be reported to `ids`.
 */
export function requestMark(ids: RequestIds): (token: string) => void {
  const onresumptiontoken = (): void => {};
  owners.set(onresumptiontoken, ids);
  return onresumptiontoken;
}

/** Reports the id of every request written through `transport` to the call whose mark it carries. */
export function tagRequests<T extends Transport>(transport: T): T {
  tagged.add(transport);
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const mark = options?.onresumptiontoken;
    const ids = mark ? owners.get(mark) : undefined;
    if (ids && "method" in message && "id" in message && typeof message.id === "number") ids.sent(message.id);
    return send(message, options);
  };
  return transport;
}
