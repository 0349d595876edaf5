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

  it("whose resume fails (the server forgot the session) fails the call as stream_error, not at its timeout", async () => {
    const http = await server({ resumable: true });
    const proxy = closeLater(await startFaultProxy(http.url));
    const { call } = await toolkitFor(proxy.url, { era: "legacy", timeoutMs: 60_000 }, { retry: { retries: 0 } });
    proxy.plan({ kind: "reset_after_first_event" });
    const calling = call("slow", { ms: 5_000 });
    // The SDK waits a second before it resumes: the server forgets the stream in the meantime.
    for (let i = 0; i < 200 && !proxy.seen.some((r) => r.fault === "reset_after_first_event"); i++) await new Promise((r) => setTimeout(r, 10));
    await http.forgetSessions();
    const started = Date.now();
    const reply = await calling;
    expect(reply.error).toMatchObject({ reason: "stream_error", outcome: "unknown" });
    // The SDK's own retry budget (two resumes, 1 s and 1.5 s apart), far from the call's 60 s timeout.
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);
});
