/**
 * The server's guards, consulted before every attempt: the breaker (so a dead server costs
 * `failureThreshold` attempts, not that many calls' worth of retries), the server's own
 * Retry-After kept for all its calls, and a retry budget.
 */
import { describe, expect, it } from "vitest";
import { McpToolError, McpToolkit, type McpEvent } from "../../src/index.js";
import { ToolkitClosedError } from "../../src/policy/abort.js";
import { CircuitBreaker } from "../../src/policy/CircuitBreaker.js";
import { RetryBudget } from "../../src/policy/RetryBudget.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { stdioFixtureCommand } from "../servers/stdio.js";
import { stopwatch } from "../timing.js";

const cleanups = closeAfterEach();
const context = { toolName: "t", serverName: "s" };
const failing = () => Promise.reject(McpToolError.of("service_unavailable", "HTTP 503", { status: 503 }));

async function remote(config: Record<string, unknown> = {}) {
  const events: McpEvent[] = [];
  const http = await startHttpFixture();
  const toolkit = await McpToolkit.connect({
    servers: { remote: { transport: "http", url: http.url.href } },
    retry: { retries: 2, minTimeout: 1, maxTimeout: 2000, randomize: false },
    onEvent: (e) => events.push(e),
    ...config,
  });
  cleanups.push(() => http.close(), () => toolkit.close());
  return { http, toolkit, events, echo: toolkit.getTool("echo")! };
}

describe("the breaker before every attempt", () => {
  it("opens after failureThreshold attempts, even within one call's retries, and stops them", async () => {
    const { http, toolkit, echo } = await remote({ breaker: { failureThreshold: 2, halfOpenAfterMs: 60_000, initialHalfOpenAfterMs: 60_000 } });
    http.failNext(503, { count: 100 });
    const posts = http.posts;
    expect(await echo.invoke({ text: "x" })).toContain("(circuit_open)");
    // Two attempts reached the server; the third met the open circuit instead of a third 503.
    expect(http.posts - posts).toBe(2);
    expect(toolkit.circuitState("remote")).toBe("open");
    expect(await echo.invoke({ text: "x" })).toContain("(circuit_open)");
    expect(http.posts - posts).toBe(2);
  });

  it("tests a half-open server with a single attempt", async () => {
    const { http, echo, events } = await remote({ breaker: { failureThreshold: 1, halfOpenAfterMs: 200, halfOpenJitter: 0 }, retry: { retries: 0 } });
    http.failNext(503, { count: 100 });
    expect(await echo.invoke({ text: "x" })).toContain("(service_unavailable)");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const posts = http.posts;
    // Three calls at once when the circuit may be tested: one tests, the others wait for its verdict.
    const replies = await Promise.all([1, 2, 3].map(() => echo.invoke({ text: "x" })));
    expect(http.posts - posts).toBe(1);
    expect(replies.filter((r) => String(r).includes("(service_unavailable)"))).toHaveLength(1);
    expect(replies.filter((r) => String(r).includes("(circuit_open)"))).toHaveLength(2);
    expect(events.filter((e) => e.type === "half_open")).toHaveLength(1);
  });

  it("counts no attempt the caller's deadline ended against the server, nor lets one fail a half-open test", async () => {
    let now = 0;
    const breaker = new CircuitBreaker("s", { failureThreshold: 1, initialHalfOpenAfterMs: 100, halfOpenAfterMs: 100, halfOpenJitter: 0 }, { now: () => now });
    const cut = McpToolError.of("request_timeout", "The call's deadline of 500 ms ran out.", { ...context, data: { deadline: true } });
    await breaker.execute(() => Promise.reject(cut), undefined, context).catch(() => undefined);
    expect(breaker.state).toBe("closed");
    await breaker.execute(failing, undefined, context).catch(() => undefined);
    expect(breaker.state).toBe("open");
    now = 100;
    // The test the deadline cut says nothing of the server: the circuit stays open, and the next call tests.
    await expect(breaker.execute(() => Promise.reject(cut), undefined, context)).rejects.toBe(cut);
    expect(breaker.state).not.toBe("closed");
    await expect(breaker.execute(() => Promise.resolve("ok"), undefined, context)).resolves.toBe("ok");
    expect(breaker.state).toBe("closed");
  });

  it("spreads the open period by its jitter", async () => {
    let now = 0;
    const breaker = new CircuitBreaker("s", { failureThreshold: 1, initialHalfOpenAfterMs: 1000, halfOpenAfterMs: 1000, halfOpenJitter: 0.2 }, { random: () => 0.5, now: () => now });
    await breaker.execute(failing, undefined, context).catch(() => undefined);
    now = 1099;
    await expect(breaker.execute(() => Promise.resolve("ok"), undefined, context)).rejects.toMatchObject({ reason: "circuit_open" });
    now = 1100;
    await expect(breaker.execute(() => Promise.resolve("ok"), undefined, context)).resolves.toBe("ok");
    expect(breaker.state).toBe("closed");
  });

  it("opens for a short period first, twice as long after each failed test up to halfOpenAfterMs, and short again once closed", async () => {
    let now = 0;
    const breaker = new CircuitBreaker("s", { failureThreshold: 1, initialHalfOpenAfterMs: 100, halfOpenAfterMs: 300, halfOpenJitter: 0 }, { now: () => now });
    await breaker.execute(failing, undefined, context).catch(() => undefined);
    const periods: number[] = [];
    for (let trip = 0; trip < 4; trip++) {
      periods.push(breaker.remainingOpenMs);
      now += breaker.remainingOpenMs - 1;
      await expect(breaker.execute(failing, undefined, context)).rejects.toMatchObject({ reason: "circuit_open" });
      now += 1;
      // The test call fails: the circuit opens again, for longer.
      await expect(breaker.execute(failing, undefined, context)).rejects.toMatchObject({ reason: "service_unavailable" });
    }
    expect(periods).toEqual([100, 200, 300, 300]);
    now += breaker.remainingOpenMs;
    await expect(breaker.execute(() => Promise.resolve("ok"), undefined, context)).resolves.toBe("ok");
    await breaker.execute(failing, undefined, context).catch(() => undefined);
    expect(breaker.remainingOpenMs).toBe(100);
  });

  it("tests a server that refuses the connection at the first period's pace, however often it failed: the test costs it nothing", async () => {
    let now = 0;
    const refused = () => Promise.reject(McpToolError.of("connection_refused", "Connection refused by 127.0.0.1:1", {}));
    const breaker = new CircuitBreaker("s", { failureThreshold: 1, halfOpenJitter: 0 }, { now: () => now });
    await breaker.execute(refused, undefined, context).catch(() => undefined);
    const periods: number[] = [];
    for (let trip = 0; trip < 4; trip++) {
      periods.push(breaker.remainingOpenMs);
      now += breaker.remainingOpenMs;
      await expect(breaker.execute(refused, undefined, context)).rejects.toMatchObject({ reason: "connection_refused" });
    }
    expect(periods).toEqual([100, 100, 100, 100]);
  });

  it("holds calls that may wait out the rest of the open period, and the one test lets them all through", async () => {
    const breaker = new CircuitBreaker("s", { failureThreshold: 1, initialHalfOpenAfterMs: 150, halfOpenJitter: 0 });
    await breaker.execute(failing, undefined, context).catch(() => undefined);
    const started: string[] = [];
    const done: string[] = [];
    // Each call notes how many had finished when it started: the others start after the test ends.
    const run = (name: string) => () => {
      started.push(`${name} after ${done.length}`);
      return new Promise<string>((resolve) => setTimeout(() => resolve(name), 20)).finally(() => done.push(name));
    };
    // One may not wait that long: refused at once, with the time still to run.
    await expect(breaker.execute(run("impatient"), undefined, context, 10)).rejects.toMatchObject({ reason: "circuit_open", message: expect.stringContaining("paused for 1 s more") });
    const results = await Promise.all(["a", "b", "c"].map((name) => breaker.execute(run(name), undefined, context, 5_000)));
    expect(results).toEqual(["a", "b", "c"]);
    expect(started.map((s) => s.split(" after ")[1]).sort()).toEqual(["0", "1", "1"]);
    expect(breaker.state).toBe("closed");
  });

  it("ends a wait for the open period at once on the caller's abort, unsent", async () => {
    const breaker = new CircuitBreaker("s", { failureThreshold: 1, initialHalfOpenAfterMs: 60_000, halfOpenAfterMs: 60_000 });
    await breaker.execute(failing, undefined, context).catch(() => undefined);
    const controller = new AbortController();
    const waiting = breaker.execute(() => Promise.resolve("ran"), controller.signal, context, 120_000);
    setTimeout(() => controller.abort(), 20);
    await expect(waiting).rejects.toMatchObject({ reason: "cancelled", outcome: "not_sent" });
  });

  it("holds a call behind another call's test only within its own bound; a close ends the wait as closed", async () => {
    const breaker = new CircuitBreaker("s", { failureThreshold: 1, initialHalfOpenAfterMs: 10, halfOpenJitter: 0 });
    await breaker.execute(failing, undefined, context).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    let answer: (value: string) => void = () => {};
    const test = breaker.execute(() => new Promise<string>((resolve) => (answer = resolve)), undefined, context);
    expect(breaker.state).toBe("half-open");
    const clock = stopwatch();
    await expect(breaker.execute(() => Promise.resolve("ran"), undefined, context, 0, 100)).rejects.toMatchObject({
      reason: "circuit_open",
      outcome: "not_sent",
      message: expect.stringContaining("this call's 100 ms ran out waiting for the verdict"),
    });
    clock.within(2_000, "a 100 ms wait for the test's verdict");
    // The toolkit's close reaches the same wait through the call's signal, and reads as closed.
    const closing = new AbortController();
    const waiting = breaker.execute(() => Promise.resolve("ran"), closing.signal, context, 0, 60_000);
    closing.abort(new ToolkitClosedError("s"));
    await expect(waiting).rejects.toMatchObject({ reason: "closed", kind: "client", transient: false, outcome: "not_sent" });
    answer("tested");
    await expect(test).resolves.toBe("tested");
    expect(breaker.state).toBe("closed");
  });

  it("counts failures that share a key once: one connection death, many calls in flight", async () => {
    const breaker = new CircuitBreaker("s", { failureThreshold: 2 }, { failureKey: () => "generation-1" });
    for (let i = 0; i < 6; i++) await breaker.execute(failing, undefined, context).catch(() => undefined);
    expect(breaker.state).toBe("closed");
  });

  it("does not count a failure of an attempt begun before the circuit last closed: it tells of the server as it was", async () => {
    let now = 0;
    const breaker = new CircuitBreaker("s", { failureThreshold: 2, initialHalfOpenAfterMs: 100, halfOpenAfterMs: 100, halfOpenJitter: 0 }, { now: () => now });
    // Two calls in flight when the server dies; their streams fail only later.
    const ends: ((error: unknown) => void)[] = [];
    const inFlight = [1, 2].map(() => breaker.execute(() => new Promise((_, reject) => ends.push(reject)), undefined, context).catch(() => undefined));
    for (let i = 0; i < 2; i++) await breaker.execute(failing, undefined, context).catch(() => undefined);
    expect(breaker.state).toBe("open");
    now += 100;
    expect(await breaker.execute(() => Promise.resolve("back"), undefined, context)).toBe("back");
    expect(breaker.state).toBe("closed");
    // The restarted server answers their resumes with 400: they fail now, as they would have at the crash.
    for (const end of ends) end(McpToolError.of("stream_error", "The response stream broke before the server answered.", {}));
    await Promise.all(inFlight);
    expect(breaker.state).toBe("closed");
    // Failures of attempts begun since the close still count.
    for (let i = 0; i < 2; i++) await breaker.execute(failing, undefined, context).catch(() => undefined);
    expect(breaker.state).toBe("open");
  });
});

describe("one connection death is one failure", () => {
  it("does not open the circuit when the calls in flight on a dying stdio server all fail with it", async () => {
    const events: McpEvent[] = [];
    const toolkit = await McpToolkit.connect({
      servers: { local: { transport: "stdio", ...stdioFixtureCommand(), breaker: { failureThreshold: 3 } } },
      retry: { retries: 0 },
      onEvent: (e) => events.push(e),
    });
    cleanups.push(() => toolkit.close());
    // LangGraph runs a turn's tool calls at once: five in flight when the process dies.
    const slow = Array.from({ length: 5 }, (_, i) => toolkit.getTool("slow")!.invoke({ ms: 30_000 + i }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await toolkit.getTool("crash")!.invoke({ code: 1 });
    for (const text of await Promise.all(slow)) expect(String(text)).toContain("(connection_closed)");
    expect(events.filter((e) => e.type === "circuit_open")).toHaveLength(0);
    expect(toolkit.circuitState("local")).toBe("closed");
    expect(await toolkit.getTool("echo")!.invoke({ text: "back" })).toBe("back");
  });
});

describe("the server's Retry-After, kept for all its calls", () => {
  it("fails the next call at once while a wait longer than its deadline runs, without touching the server", async () => {
    const { http, echo } = await remote({ deadlineMs: 5_000 });
    http.failNext(429, { retryAfter: "120" });
    // Believed up to maxRetryAfterMs (60 s by default): the text says the server asked for more.
    const first = String(await echo.invoke({ text: "x" }));
    expect(first).toContain("(rate_limited)");
    expect(first).toContain("asked to wait 120 s");
    const posts = http.posts;
    const text = String(await echo.invoke({ text: "x" }));
    expect(text).toContain("(rate_limited)");
    expect(text).toMatch(/asked callers to wait; (59|60) s of that wait remain/);
    expect(http.posts).toBe(posts);
  });

  it("makes the next call wait out a short wait before it goes", async () => {
    const { http, echo } = await remote({ retry: { retries: 0, maxTimeout: 5000 } });
    http.failNext(429, { retryAfter: "1" });
    expect(await echo.invoke({ text: "first" })).toContain("(rate_limited)");
    const askedAt = performance.now();
    const posts = http.posts;
    expect(await echo.invoke({ text: "second" })).toBe("second");
    // Sent once, and not before the server's second was over (a lower bound cannot flake).
    expect(http.posts - posts).toBe(1);
    expect(performance.now() - askedAt).toBeGreaterThanOrEqual(900);
  });
});

describe("the retry budget", () => {
  it("is a token bucket: a retry takes 5 tokens (10 after a timeout), a success puts 1 back, an empty bucket retries nothing", () => {
    const budget = new RetryBudget({ capacity: 20 });
    expect(budget.tryRetry("request_timeout")).toBe(true);
    expect(budget.tokens).toBe(10);
    expect([1, 2, 3].map(() => budget.tryRetry("service_unavailable"))).toEqual([true, true, false]);
    for (let i = 0; i < 4; i++) budget.noteSuccess();
    expect(budget.tryRetry("service_unavailable")).toBe(false);
    budget.noteSuccess();
    expect(budget.tryRetry("service_unavailable")).toBe(true);
    for (let i = 0; i < 100; i++) budget.noteSuccess();
    // Refilled to its capacity, no further.
    expect(budget.tokens).toBe(20);
  });

  it("lets the defaults' burst of 100 retries through, then none until a success", () => {
    const budget = new RetryBudget();
    const granted = Array.from({ length: 150 }, () => budget.tryRetry("connection_reset")).filter(Boolean).length;
    expect(granted).toBe(100);
  });

  it("keeps an outage from multiplying the load: calls to a dead server stop retrying", async () => {
    const { http, echo } = await remote({ breaker: { enabled: false }, retryBudget: { capacity: 10 } });
    http.failNext(503, { count: 1000 });
    const posts = http.posts;
    for (let i = 0; i < 20; i++) expect(await echo.invoke({ text: "x" })).toContain("(service_unavailable)");
    // 20 first attempts, and the two retries a bucket of 10 tokens pays for: far from 20 × 3.
    expect(http.posts - posts).toBe(20 + 2);
    expect(String(await echo.invoke({ text: "x" }))).toContain("retry budget is spent");
  });
});
