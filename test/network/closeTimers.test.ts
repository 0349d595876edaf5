/**
 * close() leaves no timer of a transport behind, even one its SDK or the `eventsource` package
 * armed for a stream that broke just before. Each such timer is refed: it held the process open
 * after close() for as long as the server's `retry` asked. Timers are told apart by where they
 * were made (an async hook records each one's stack while the test runs), so a timer another
 * file left in this worker cannot count here.
 */
import { describe, expect, it, onTestFinished } from "vitest";
import { recordTimers } from "../support/timers.js";
import { server, toolkitFor } from "./helpers.js";

/** The timers this test makes, not yet fired or cleared, that came through a frame matching a pattern; and of those, the ones still armed. */
function timersOfThisTest() {
  const record = recordTimers();
  onTestFinished(record.stop);
  const matching = (pattern: RegExp) => [...record.made.values()].filter((m) => pattern.test(m.stack));
  return {
    madeBy: (pattern: RegExp) => matching(pattern).length,
    aliveBy: (pattern: RegExp) => matching(pattern).filter(record.armed).length,
  };
}

describe("close() after a stream broke", () => {
  it("legacy SSE: the eventsource package's reconnect timer does not outlive close()", async () => {
    const timers = timersOfThisTest();
    const http = await server({ mode: "sse" });
    const { toolkit, call } = await toolkitFor(http.url, { transport: "sse" } as never, { timeoutMs: 60_000 });
    const inFlight = call("slow", { ms: 60_000 });
    await expect.poll(() => http.state.calls.includes("slow"), { timeout: 10_000 }).toBe(true);
    await http.restart();
    expect((await inFlight).error).toMatchObject({ reason: "stream_error" });
    // The package armed its reconnect (3 s by default) when the stream ended.
    expect(timers.madeBy(/scheduleReconnect/)).toBeGreaterThan(0);
    await toolkit.close();
    expect(timers.aliveBy(/scheduleReconnect/)).toBe(0);
  });

  it("streamable HTTP: every stream resume the SDK scheduled is cancelled by close(), not only the last one", async () => {
    const timers = timersOfThisTest();
    // The server asks for 5 s between resumes; a 2025 session keeps a GET stream beside the call's POST stream.
    const http = await server({ resumable: true, retryIntervalMs: 5_000 });
    const { toolkit, call, events } = await toolkitFor(http.url, { era: "legacy" }, { retry: { retries: 0 }, timeoutMs: 30_000 });
    expect(await call("echo", { text: "warm" })).toMatchObject({ status: "success" });
    const inFlight = call("slow", { ms: 10_000, progressEveryMs: 20 });
    await expect.poll(() => events.some((e) => e.type === "progress"), { timeout: 10_000 }).toBe(true);
    await http.down();
    // Both streams broke and the SDK scheduled a resume for each.
    await expect.poll(() => timers.madeBy(/_scheduleReconnection/), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await toolkit.close();
    expect(timers.aliveBy(/_scheduleReconnection/)).toBe(0);
    expect((await inFlight).error).toMatchObject({ reason: "closed" });
  });
});
