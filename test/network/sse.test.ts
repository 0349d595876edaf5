/**
 * The legacy SSE transport, whose answers all travel on one event stream: a server that dies
 * mid-call fails the call at once (it used to wait for the whole timeout), and the next call
 * initializes a new session (the SDK used to re-attach silently to a never-initialized one).
 */
import { describe, expect, it } from "vitest";
import { server, toolkitFor } from "./helpers.js";

describe("the legacy SSE transport when the server dies", () => {
  it("fails an in-flight call at once with stream_error, then re-initializes on the next call", async () => {
    const http = await server({ mode: "sse" });
    const { call, events } = await toolkitFor(http.url, { transport: "sse" } as never, { timeoutMs: 120_000 });
    const inFlight = call("slow", { ms: 60_000 });
    // Wait until the server runs the tool, then take it down.
    await expect.poll(() => http.state.calls.includes("slow"), { timeout: 10_000 }).toBe(true);
    await http.restart();
    const reply = await inFlight;
    expect(reply.error).toMatchObject({ reason: "stream_error", outcome: "unknown", attempts: 1 });
    expect(reply.error!.message).toContain("event stream");
    // Every error a connection's death caused says which connection died.
    expect(reply.error!.data).toMatchObject({ connectionGeneration: 1 });

    const sessionsBefore = http.sessionCount;
    expect(await call("echo", { text: "after" })).toMatchObject({ status: "success", content: "after" });
    expect(events.some((e) => e.type === "reconnect")).toBe(true);
    // One new session, initialized by us (the fixture answers tools only after initialize).
    expect(http.sessionCount).toBe(sessionsBefore + 1);
  }, 30_000);
});
