/**
 * A real MCP server (the fixture, streamable HTTP) behind the fault proxy, failing a fixed share
 * of its tool calls, as a struggling server behind a gateway does: the n-th tools/call (from 0)
 * is answered HTTP 503 by the proxy, unsent, when n % 5 < 2. So 40% of calls fail, never more
 * than two in a row: a rate a consecutive-failure breaker never sees.
 */
import { startFaultProxy } from "./proxy/faultProxy.js";
import { startHttpFixture, type HttpFixture } from "./http.js";

export interface FlakyEndpoint {
  /** The proxied MCP endpoint. */
  url: URL;
  /** The server behind the proxy: `state.calls` holds the calls it ran. */
  server: HttpFixture;
  /** The tools/call requests that reached the endpoint, the refused ones included. */
  toolCalls(): number;
  close(): Promise<void>;
}

export async function startFlakyEndpoint(): Promise<FlakyEndpoint> {
  const server = await startHttpFixture();
  let n = 0;
  const proxy = await startFaultProxy(server.url, {
    decide: () => (n++ % 5 < 2 ? { kind: "status", when: "before", status: 503, body: "upstream overloaded" } : undefined),
  });
  return {
    url: proxy.url,
    server,
    toolCalls: () => proxy.seen.filter((r) => r.rpc === "tools/call").length,
    close: async () => {
      await proxy.close();
      await server.close();
    },
  };
}
