/**
 * The breaker's rates: `failureRate` and `slowCallRate` over a sliding window of calls, read once
 * the window holds `minimumCalls` (resilience4j's failureRateThreshold, slowCallRateThreshold,
 * minimumNumberOfCalls; Polly's FailureRatio, MinimumThroughput). Real SDK servers over HTTP;
 * the window's own arithmetic on a hand-driven clock.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { McpConfigError, validateConfig } from "../../src/config/index.js";
import { CircuitBreaker, McpToolError, McpToolkit, type McpEvent, type McpToolErrorJSON } from "../../src/index.js";
import { CallWindow } from "../../src/policy/CallWindow.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startFlakyEndpoint } from "../servers/flaky.js";
import { startHttpFixture } from "../servers/http.js";

const cleanups = closeAfterEach();

const call = (args: Record<string, unknown>, name = "echo") => ({ type: "tool_call" as const, id: "call-1", name, args });
/** A breaker that stays open once open: what happens while it is, not its test, is the subject. */
const staysOpen = { initialHalfOpenAfterMs: 60_000, halfOpenAfterMs: 60_000 };

/** The flaky endpoint (40% of calls answer 503) as `primary`, a healthy `backup` as its fallback. */
async function flakyWithBackup(breaker: Record<string, unknown>) {
  const events: McpEvent[] = [];
  const flaky = await startFlakyEndpoint();
  const backup = await startHttpFixture();
  const toolkit = await McpToolkit.connect({
    servers: {
      primary: { transport: "http", url: flaky.url.href, fallback: "backup", breaker },
      backup: { transport: "http", url: backup.url.href, exposeTools: false },
    },
    retry: { retries: 0 },
    onEvent: (e) => events.push(e),
  });
  cleanups.push(() => flaky.close(), () => backup.close(), () => toolkit.close());
  const echo = async (text: string) => {
    const reply = (await toolkit.getTool("echo")!.invoke(call({ text }))) as ToolMessage;
    return (reply.artifact ?? {}) as { fallback?: { reason: string } } & Partial<McpToolErrorJSON>;
  };
  return { toolkit, flaky, backup, events, echo };
}

describe("a breaker that opens on a rate", () => {
  it("opens at a 40% failure rate over its window, where consecutive failures never reach the threshold, and the fallback answers while it is open", async () => {
    const { toolkit, flaky, events, echo } = await flakyWithBackup({ failureRate: 0.3, window: { calls: 20 }, ...staysOpen });
    // The first nine calls are below minimumCalls (10): nothing is read yet.
    for (let i = 0; i < 9; i++) await echo(`call ${i}`);
    expect(events.filter((e) => e.type === "circuit_open")).toEqual([]);
    await echo("call 9");
    const opened = events.filter((e) => e.type === "circuit_open");
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ serverName: "primary", rate: { rule: "failureRate", value: 0.4, calls: 10 }, error: { reason: "service_unavailable" } });
    expect(toolkit.circuitState("primary")).toBe("open");

    const sent = flaky.toolCalls();
    expect(sent).toBe(10);
    for (let i = 0; i < 5; i++) expect((await echo(`while open ${i}`)).fallback?.reason).toBe("circuit_open");
    // The failing server was not asked while its circuit was open.
    expect(flaky.toolCalls()).toBe(sent);
    const refused = events.filter((e) => e.type === "fallback").at(-1)!;
    expect(refused.type === "fallback" && refused.error.message).toContain("40% of its last 10 calls failed");
  });

  it("never opens on the same server with only the consecutive-failure threshold (the defaults)", async () => {
    const { toolkit, flaky, events, echo } = await flakyWithBackup({});
    const fellBack: string[] = [];
    for (let i = 0; i < 30; i++) {
      const reply = await echo(`call ${i}`);
      if (reply.fallback) fellBack.push(reply.fallback.reason);
    }
    expect(events.filter((e) => e.type === "circuit_open")).toEqual([]);
    expect(toolkit.circuitState("primary")).toBe("closed");
    // Every call reached the server; its 12 failures went to the fallback one by one.
    expect(flaky.toolCalls()).toBe(30);
    expect(fellBack).toEqual(Array(12).fill("service_unavailable"));
  });

  it("opens on the slow-call rate: calls that answer, but later than slowCallMs", async () => {
    const events: McpEvent[] = [];
    const http = await startHttpFixture();
    const toolkit = await McpToolkit.connect({
      servers: { remote: { transport: "http", url: http.url.href, breaker: { slowCallRate: 0.5, slowCallMs: 100, minimumCalls: 4, window: { ms: 60_000 }, ...staysOpen } } },
      retry: { retries: 0 },
      errors: { mode: "throw" },
      onEvent: (e) => events.push(e),
    });
    cleanups.push(() => http.close(), () => toolkit.close());
    const slow = toolkit.getTool("slow")!;
    // Four calls of 300 ms each, all answered: no failure at all.
    const answers = await Promise.all([0, 1, 2, 3].map(() => slow.invoke({ ms: 300 })));
    expect(answers).toEqual(Array(4).fill("slept 300"));
    const opened = events.filter((e) => e.type === "circuit_open");
    expect(opened).toEqual([{ type: "circuit_open", serverName: "remote", rate: { rule: "slowCallRate", value: 1, calls: 4 } }]);

    const ran = http.state.calls.length;
    const refused = await slow.invoke({ ms: 300 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpToolError);
    expect((refused as McpToolError).reason).toBe("circuit_open");
    expect((refused as McpToolError).message).toContain("100% of its last 4 calls took longer than 100 ms");
    expect(http.state.calls.length).toBe(ran);
  });

  it("reads no rate before the window holds minimumCalls, though every call failed", async () => {
    const events: McpEvent[] = [];
    const http = await startHttpFixture();
    const toolkit = await McpToolkit.connect({
      // A consecutive threshold out of reach, so only the rate can open it.
      servers: { remote: { transport: "http", url: http.url.href, breaker: { failureThreshold: 100, failureRate: 0.5, minimumCalls: 10, ...staysOpen } } },
      retry: { retries: 0 },
      onEvent: (e) => events.push(e),
    });
    cleanups.push(() => http.close(), () => toolkit.close());
    const echo = toolkit.getTool("echo")!;
    http.failNext(503, { count: 10 });
    for (let i = 0; i < 9; i++) expect(await echo.invoke({ text: "x" })).toContain("(service_unavailable)");
    expect(events.filter((e) => e.type === "circuit_open")).toEqual([]);
    expect(toolkit.circuitState("remote")).toBe("closed");
    expect(await echo.invoke({ text: "x" })).toContain("(service_unavailable)");
    expect(events.filter((e) => e.type === "circuit_open")).toMatchObject([{ rate: { rule: "failureRate", value: 1, calls: 10 } }]);
  });
});

describe("the window (hand-built errors, a hand-driven clock)", () => {
  const down = () => McpToolError.of("service_unavailable", "HTTP 503", { status: 503 });
  const failing = () => Promise.reject(down());
  const answering = () => Promise.resolve("ok");
  const context = { toolName: "t" };

  it("meets a rate exactly at its threshold: 3 failures of 10 open at 0.3", () => {
    const window = CallWindow.of({ failureRate: 0.3, minimumCalls: 10, window: { calls: 20 } })!;
    const ends = [true, true, true, false, false, false, false, false, false];
    for (const failed of ends) expect(window.record(failed, false, 0)).toBeUndefined();
    expect(window.record(false, false, 0)).toEqual({ rule: "failureRate", value: 0.3, calls: 10 });
  });

  it("reads a count window smaller than minimumCalls once it is full, and forgets its oldest call", () => {
    const window = CallWindow.of({ failureRate: 0.5, minimumCalls: 10, window: { calls: 4 } })!;
    expect(window.record(true, false, 0)).toBeUndefined();
    expect(window.record(true, false, 0)).toBeUndefined();
    expect(window.record(false, false, 0)).toBeUndefined();
    // Four calls: the window is full, and 2 of 4 failed.
    expect(window.record(false, false, 0)).toEqual({ rule: "failureRate", value: 0.5, calls: 4 });
    // The oldest failure leaves as a fifth call comes: 1 of 4.
    expect(window.record(false, false, 0)).toBeUndefined();
  });

  it("drops a time window's calls older than its span, a tenth at a time", () => {
    const window = CallWindow.of({ failureRate: 0.5, minimumCalls: 4, window: { ms: 1_000 } })!;
    for (let i = 0; i < 3; i++) expect(window.record(true, false, 50)).toBeUndefined();
    // 1.1 s later the three failures have left with their bucket: 1 call, under the minimum.
    expect(window.record(false, false, 1_150)).toBeUndefined();
    for (let i = 0; i < 2; i++) expect(window.record(false, false, 1_200)).toBeUndefined();
    // Had they stayed, 4 failures of 7 would open it here.
    expect(window.record(true, false, 1_300)).toBeUndefined();
    expect(window.record(true, false, 1_300)).toBeUndefined();
    expect(window.record(true, false, 1_300)).toEqual({ rule: "failureRate", value: 0.5, calls: 6 });
  });

  it("empties when the circuit closes: the calls before a successful test do not count again", async () => {
    let now = 0;
    const opened: unknown[] = [];
    const breaker = new CircuitBreaker("s", { failureThreshold: 100, failureRate: 0.5, minimumCalls: 4, initialHalfOpenAfterMs: 1_000, halfOpenJitter: 0 }, {
      now: () => now,
      onOpen: (_error, rate) => opened.push(rate),
    });
    for (const fn of [failing, answering, failing, answering]) await breaker.execute(fn, undefined, context).catch(() => undefined);
    expect(breaker.state).toBe("open");
    expect(opened).toEqual([{ rule: "failureRate", value: 0.5, calls: 4 }]);
    now += 1_000;
    // The test answers: the circuit closes, and its window starts empty.
    await breaker.execute(answering, undefined, context);
    expect(breaker.state).toBe("closed");
    for (const fn of [failing, answering, answering]) await breaker.execute(fn, undefined, context).catch(() => undefined);
    // Had the window kept its four calls, 3 failures of 5 would have opened it again at the first.
    expect(breaker.state).toBe("closed");
    expect(opened).toHaveLength(1);
    await breaker.execute(failing, undefined, context).catch(() => undefined);
    expect(breaker.state).toBe("open");
  });

  it("times a call from its start on the breaker's clock: one over slowCallMs is slow, answered or failed", async () => {
    let now = 0;
    const breaker = new CircuitBreaker("s", { slowCallRate: 0.5, slowCallMs: 100, minimumCalls: 2 }, { now: () => now });
    const after = (ms: number, fn: () => Promise<string>) => () => {
      now += ms;
      return fn();
    };
    await breaker.execute(after(100, answering), undefined, context);
    await breaker.execute(after(101, failing), undefined, context).catch(() => undefined);
    // 1 slow of 2: at 0.5, open.
    expect(breaker.state).toBe("open");
  });
});

describe("the rate options, at connect", () => {
  const http = { transport: "http" as const, url: "http://127.0.0.1:9/mcp" };
  const rejection = (config: unknown) => {
    try {
      validateConfig(config);
    } catch (error) {
      expect(error).toBeInstanceOf(McpConfigError);
      return { field: (error as McpConfigError).field, message: (error as Error).message };
    }
    throw new Error("accepted");
  };

  it.each([1.5, 0, -0.2, "0.5"])("refuses a failureRate of %s, naming the field", (failureRate) => {
    const { field, message } = rejection({ servers: { a: { ...http, breaker: { failureRate } } } });
    expect(field).toBe("servers.a.breaker.failureRate");
    expect(message).toContain("expected a number above 0 and at most 1");
  });

  it("refuses a slowCallRate outside 0..1, and one without slowCallMs in any layer", () => {
    expect(rejection({ servers: { a: { ...http, breaker: { slowCallRate: 2, slowCallMs: 100 } } } }).field).toBe("servers.a.breaker.slowCallRate");
    expect(rejection({ servers: { a: { ...http, breaker: { slowCallRate: 0.5 } } } })).toEqual({
      field: "servers.a.breaker.slowCallMs",
      message: "Invalid MCP toolkit configuration: servers.a.breaker.slowCallMs: required with slowCallRate: the duration past which a call is slow, in milliseconds",
    });
    expect(rejection({ servers: { a: http }, breaker: { slowCallRate: 0.5 } }).field).toBe("breaker.slowCallMs");
    // The layers merge: the toolkit's slowCallMs serves a server's slowCallRate, and the other way round.
    expect(() => validateConfig({ servers: { a: { ...http, breaker: { slowCallRate: 0.5 } } }, breaker: { slowCallMs: 200 } })).not.toThrow();
    expect(() => validateConfig({ servers: { a: { ...http, breaker: { slowCallMs: 200 } } }, breaker: { slowCallRate: 0.5 } })).not.toThrow();
  });

  it("takes a window of calls or of milliseconds, and nothing else", () => {
    expect(() => validateConfig({ servers: { a: { ...http, breaker: { failureRate: 0.5, window: { ms: 30_000 }, minimumCalls: 5 } } } })).not.toThrow();
    expect(rejection({ servers: { a: { ...http, breaker: { window: { calls: 0 } } } } }).field).toBe("servers.a.breaker.window.calls");
    expect(rejection({ servers: { a: { ...http, breaker: { minimumCalls: 0 } } } }).field).toBe("servers.a.breaker.minimumCalls");
    expect(rejection({ servers: { a: { ...http, breaker: { window: 20 } } } }).field).toBe("servers.a.breaker.window");
  });

  it("rejects at connect, and in a breaker made by hand (wrapTool's)", async () => {
    await expect(McpToolkit.connect({ servers: { a: { ...http, breaker: { slowCallRate: 0.5 } } } })).rejects.toMatchObject({ name: "McpConfigError", field: "servers.a.breaker.slowCallMs" });
    expect(() => new CircuitBreaker("s", { slowCallRate: 0.5 })).toThrow(McpConfigError);
  });
});
