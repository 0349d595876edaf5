/**
 * A broken answer stream that the SDK resumes is not a lost answer. A resumable server primes
 * each stream with an event id; when the stream breaks after it, the v2 client re-attaches with
 * `Last-Event-ID` and the server replays the answer. Our stream-break detection must stay quiet
 * then, and speak once the SDK gives the stream up. It hears both through the SDK's public
 * `onRequestStreamEnd`, which the SDK calls only for a stream it will not (or no longer) resume.
 */
import { describe, expect, it } from "vitest";
import { startFaultProxy } from "../servers/proxy/faultProxy.js";
import { closeLater, server, toolkitFor } from "./helpers.js";
import { stopwatch } from "../timing.js";

describe("a broken answer stream the SDK resumes", () => {
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

  it("whose resume fails (a restarted server does not know the stream: 404) fails the call as stream_error within about half a second, not at its timeout", async () => {
    const http = await server({ resumable: true });
    const proxy = closeLater(await startFaultProxy(http.url));
    const { call } = await toolkitFor(proxy.url, { era: "legacy", timeoutMs: 60_000 }, { retry: { retries: 0 } });
    proxy.plan({ kind: "reset_after_first_event" });
    // Both resumes (at 100 ms and 300 ms) meet a server that does not know the stream.
    proxy.plan({ kind: "status", when: "before", status: 404, body: "Session not found" }, { rpc: "GET", count: 2 });
    const clock = stopwatch();
    const reply = await call("slow", { ms: 20_000 });
    const elapsed = clock.elapsed();
    expect(reply.error).toMatchObject({ reason: "stream_error", outcome: "unknown" });
    // It names what happened (the resume was answered 404), not the SDK's "Maximum reconnection attempts".
    expect(reply.error?.message).toMatch(/resuming it failed: Failed to open SSE stream: Not Found/);
    expect(reply.error?.message).not.toMatch(/Maximum reconnection/);
    expect(proxy.seen.filter((r) => r.method === "GET" && r.fault === "status")).toHaveLength(2);
    // Far from the call's 60 s timeout and from the slow tool's 20 s; about 0.5 s on a quiet machine.
    clock.within(10_000, "a broken stream whose two resumes fail", elapsed);
  }, 60_000);
});
