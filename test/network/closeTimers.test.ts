/**
 * close() leaves no timer of a transport behind, even one its SDK or the `eventsource` package
 * armed for a stream that broke just before. Each such timer is refed: it held the process open
 * after close() for as long as the server's `retry` asked. Timers are told apart by where they
 * were made (an async hook records each one's stack while the test runs), so a timer another
 * file left in this worker cannot count here.
 */
import { createHook } from "node:async_hooks";
import { describe, expect, it, onTestFinished } from "vitest";
import { server, toolkitFor } from "./helpers.js";

interface Made {
  stack: string;
  timer: { hasRef(): boolean; _destroyed?: boolean; _idleTimeout?: number };
}

/** Records the timers made from now on, with the stack that made each. */
function recordTimers() {
  const made = new Map<number, Made>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (type !== "Timeout") return;
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 40;
      made.set(id, { stack: new Error().stack ?? "", timer: resource as Made["timer"] });
      Error.stackTraceLimit = limit;
    },
    destroy(id) {
      made.delete(id);
    },
  }).enable();
  onTestFinished(() => void hook.disable());
  const matching = (pattern: RegExp) => [...made.values()].filter((m) => pattern.test(m.stack));
  return {
    /** How many timers made so far (alive or not) came through a frame matching `pattern`. */
    madeBy: (pattern: RegExp) => matching(pattern).length,
    /** The ones still armed and holding the process open. */
    aliveBy: (pattern: RegExp) => matching(pattern).filter(({ timer }) => timer.hasRef() && !timer._destroyed && timer._idleTimeout !== -1).length,
  };
}

describe("close() after a stream broke", () => {
  it("legacy SSE: the eventsource package's reconnect timer does not outlive close()", async () => {
    const timers = recordTimers();
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
    const timers = recordTimers();
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
