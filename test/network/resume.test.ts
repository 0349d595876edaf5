/**
 * A broken answer stream that the SDK resumes is not a lost answer. A resumable server primes
 * each stream with an event id; when the stream breaks after it, the v2 client re-attaches with
 * `Last-Event-ID` and the server replays the answer. Our stream-break detection must stay quiet
 * then. It reads a private field of the v2 streamable transport (`_cancelReconnection`, set
 * when a resumption is scheduled): this file pins it against SDK 2.4.
 */
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { startFaultProxy } from "../servers/proxy/faultProxy.js";
import { closeLater, server, toolkitFor } from "./helpers.js";

describe("a broken answer stream the SDK resumes", () => {
  it("the v2 streamable transport still names its scheduled resumption _cancelReconnection", () => {
    const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1:1/mcp"));
    expect(Object.keys(transport)).toContain("_cancelReconnection");
  });

  it("is resumed, not reported lost: the call gets its answer and the tool ran once", async () => {
    const http = await server({ resumable: true });
    const proxy = closeLater(await startFaultProxy(http.url));
    const { call } = await toolkitFor(proxy.url, { era: "legacy" });
    proxy.plan({ kind: "reset_after_first_event" });
    const reply = await call("slow", { ms: 300 });
    expect(reply).toMatchObject({ status: "success", content: "slept 300" });
    expect(http.state.calls.filter((c) => c === "slow")).toHaveLength(1);
    // The answer came back on a GET that resumed the POST's stream.
    const post = proxy.seen.findIndex((r) => r.fault === "reset_after_first_event");
    expect(proxy.seen.slice(post + 1).some((r) => r.method === "GET")).toBe(true);
  });
});
