/**
 * A server that refused the connection is tried again the moment it listens: the breaker's open
 * period and the reconnect backoff end there, rather than on their timers. Real sockets on
 * 127.0.0.1, a real MCP server over streamable HTTP that goes down and comes back on its port.
 */
import { createServer, type Server } from "node:net";
import { describe, expect, it } from "vitest";
import { McpToolkit, McpToolError, type McpEvent, type McpToolkitConfig } from "../../src/index.js";
import { ListenWatch } from "../../src/mcp/transport/listenWatch.js";
import { ReconnectBackoff } from "../../src/mcp/session/reconnectBackoff.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { replyOf } from "../servers/replies.js";
import { stopwatch } from "../timing.js";

const cleanups = closeAfterEach();

/** A port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function listenOn(port: number): Promise<Server> {
  const server = createServer((socket) => socket.destroy());
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}

describe("ListenWatch", () => {
  it("says false when nothing listens within the time, and true once something does", async () => {
    const port = await freePort();
    const closing = new AbortController();
    cleanups.push(async () => closing.abort());
    const watch = new ListenWatch(new URL(`http://127.0.0.1:${port}/mcp`), closing.signal);
    expect(await watch.within(60)).toBe(false);
    const waiting = watch.within(20_000);
    // A second waiter shares the loop the first started.
    expect(watch.within(20_000)).toBe(waiting);
    setTimeout(() => void listenOn(port), 100);
    const clock = stopwatch();
    expect(await waiting).toBe(true);
    // It answered because the port listens, long before its 20 s ran out.
    clock.within(10_000, "the wait for a port that listens after 100 ms");
  });

  it("answers each waiter at its own time: a short wait is not held by a long one sharing the loop", async () => {
    const port = await freePort();
    const closing = new AbortController();
    cleanups.push(async () => closing.abort());
    const watch = new ListenWatch(new URL(`http://127.0.0.1:${port}/mcp`), closing.signal);
    const long = watch.within(20_000);
    const clock = stopwatch();
    expect(await watch.within(100)).toBe(false);
    // Before, the short waiter got the shared loop's answer: 20 s later.
    clock.within(5_000, "a 100 ms wait sharing the loop of a 20 s one");
    await listenOn(port);
    expect(await long).toBe(true);
  });

  it("stops at once when the toolkit closes", async () => {
    const port = await freePort();
    const closing = new AbortController();
    const watch = new ListenWatch(new URL(`http://127.0.0.1:${port}/`), closing.signal);
    const waiting = watch.within(60_000);
    setTimeout(() => closing.abort(), 50);
    expect(await waiting).toBe(false);
  });
});

describe("ReconnectBackoff", () => {
  it("lets a refused server be tried again at once, and waits after other failures", async () => {
    const backoff = new ReconnectBackoff({ enabled: true, maxAttempts: 5, minDelayMs: 60_000, maxDelayMs: 60_000 } as never);
    backoff.failed(McpToolError.of("connection_refused", "refused", {}));
    // Resolves at once: a signal that aborts later never gets the chance.
    await backoff.turn(AbortSignal.timeout(5_000));
    backoff.failed(McpToolError.of("service_unavailable", "HTTP 503", { status: 503 }));
    await expect(backoff.turn(AbortSignal.timeout(50))).rejects.toMatchObject({ name: "TimeoutError" });
  });
});

/**
 * A toolkit over a real HTTP server that answered one call and then went down, with its pool
 * past the kept-alive socket the server closed, so the next call meets a refusal, not a reset.
 */
async function downAfterOneCall(config: Omit<McpToolkitConfig, "servers" | "onEvent">) {
  const http = await startHttpFixture();
  const events: McpEvent[] = [];
  const toolkit = await McpToolkit.connect({ servers: { remote: { transport: "http", url: http.url.href } }, onEvent: (e) => events.push(e), ...config });
  cleanups.push(() => http.close(), () => toolkit.close());
  const echo = toolkit.getTool("echo")!;
  expect(await echo.invoke({ text: "before" })).toContain("before");
  await http.down();
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { http, events, echo, toolkit };
}

describe("a call waiting for a refused server's test", () => {
  it("goes as soon as the server listens again, not at the end of the breaker's open period", async () => {
    // A long first open period: only the server listening again can end it early.
    const { http, events, echo } = await downAfterOneCall({
      breaker: { failureThreshold: 1, initialHalfOpenAfterMs: 8_000, halfOpenAfterMs: 8_000, halfOpenJitter: 0 },
      retry: { retries: 2, minTimeout: 1, maxTimeout: 20_000, randomize: false },
      timeoutMs: 20_000,
    });
    // Refused while down: the circuit opens for 8 s; the next attempt waits for its test.
    const call = echo.invoke({ text: "after" });
    while (!events.some((e) => e.type === "circuit_open")) await new Promise((resolve) => setTimeout(resolve, 10));
    expect((events.find((e) => e.type === "circuit_open") as { error?: McpToolError }).error?.reason).toBe("connection_refused");
    await new Promise((resolve) => setTimeout(resolve, 100));
    await http.up();
    const clock = stopwatch();
    expect(await call).toContain("after");
    // Before, the call waited out the 8 s; now it goes within a probe's pace of the server listening.
    clock.within(5_000, "the call after the server listens again (its open period: 8 s)");
    expect(events.filter((e) => e.type === "half_open")).toHaveLength(1);
  });
});

describe("a call in its retry backoff after a refused connect", () => {
  it("is tried again as soon as the server listens, not at the end of its backoff", async () => {
    // An 8 s backoff: only the server listening again can end it early.
    const { http, events, echo } = await downAfterOneCall({
      breaker: { enabled: false },
      retry: { retries: 2, minTimeout: 8_000, maxTimeout: 20_000, randomize: false },
      timeoutMs: 30_000,
    });
    const call = echo.invoke({ text: "after" });
    while (!events.some((e) => e.type === "retry")) await new Promise((resolve) => setTimeout(resolve, 10));
    // A refusal spends no retry: the call waits on the listen watch, up to maxTimeout (20 s) from the refusal, not its 8 s backoff.
    const retry = events.find((e) => e.type === "retry") as { delayMs: number; error: McpToolError };
    expect(retry.error.reason).toBe("connection_refused");
    expect(retry.delayMs).toBeGreaterThan(15_000);
    expect(retry.delayMs).toBeLessThanOrEqual(20_000);
    await http.up();
    const clock = stopwatch();
    expect(await call).toContain("after");
    clock.within(5_000, "the call after the server listens again (its backoff: 8 s)");
  }, 30_000);
});

describe("a call to a server that refuses and stays down, with the default settings", () => {
  it("waits for it to listen as long as for a breaker's test (maxTimeout, 5 s), not its 30 s timeout, then fails refused", async () => {
    const { echo } = await downAfterOneCall({});
    const clock = stopwatch();
    const reply = String(await echo.invoke({ text: "after" }));
    const took = clock.elapsed();
    expect(reply).toContain("(connection_refused)");
    // Before, it gave up after its three attempts' backoffs, about a second: a restart of 1.5 s failed it.
    expect(took).toBeGreaterThan(4_500);
    clock.within(20_000, "a call to a server that stays down (maxTimeout 5 s, timeout 30 s)", took);
  }, 40_000);

  it("ends the wait at once on the caller's abort (cancelled, not_sent) and on the toolkit's close (closed)", async () => {
    const { echo, toolkit } = await downAfterOneCall({});
    const controller = new AbortController();
    const aborted = replyOf(echo, { text: "a" }, controller.signal);
    const closed = replyOf(echo, { text: "b" });
    await new Promise((resolve) => setTimeout(resolve, 500));
    let clock = stopwatch();
    controller.abort();
    expect((await aborted).error).toMatchObject({ reason: "cancelled", outcome: "not_sent" });
    clock.within(1_000, "the abort ending the wait");
    clock = stopwatch();
    await toolkit.close();
    expect((await closed).error).toMatchObject({ reason: "closed" });
    clock.within(2_000, "close() ending the wait");
  });
});
