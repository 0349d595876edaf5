/**
 * Servers that restart with calls in flight: one re-initialize serves every call that met the
 * expired session, a recovered server is not locked out, what cannot come back is not retried,
 * close() is final and bounded.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { createMcpTools, McpToolkit, type McpEvent } from "../../src/index.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { closesLater, replyOf } from "../servers/replies.js";
import { stopwatch } from "../timing.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

describe("parallel calls meeting an expired session", () => {
  it("are all re-sent once on one new session, writes included, and each runs once", async () => {
    const http = later(await startHttpFixture());
    const events: McpEvent[] = [];
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href } }, onEvent: (e) => events.push(e) }));
    expect((await replyOf(toolkit.getTool("echo"), { text: "warm" })).error).toBeUndefined();
    await http.forgetSessions();
    const replies = await Promise.all(Array.from({ length: 10 }, (_, i) => replyOf(toolkit.getTool("counter"), { key: `k${i}` })));
    expect(replies.map((r) => r.error?.reason)).toEqual(Array(10).fill(undefined));
    for (let i = 0; i < 10; i++) expect(http.state.executions.get(`k${i}`), `k${i} ran once`).toBe(1);
    expect(events.filter((e) => e.type === "reconnect")).toHaveLength(1);
  });
});

describe("a server that answers again", () => {
  it("is not locked out by the breaker: its session_expired proves it is up", async () => {
    const http = later(await startHttpFixture());
    const events: McpEvent[] = [];
    const toolkit = later(
      await McpToolkit.connect({
        servers: { s: { transport: "http", url: http.url.href, breaker: { failureThreshold: 2 } } },
        retry: { retries: 0 },
        onEvent: (e) => events.push(e),
      }),
    );
    // Two server failures in a row would open the circuit; a refused session is not one of them.
    http.failNext(503);
    expect((await replyOf(toolkit.getTool("echo"), { text: "a" })).error?.reason).toBe("service_unavailable");
    await http.forgetSessions();
    // The refused request never ran: it is re-sent once on the new session, although the
    // policy allows no retry, and the breaker does not refuse it.
    const after = await replyOf(toolkit.getTool("echo"), { text: "b" });
    expect(after.error).toBeUndefined();
    expect(after.content).toBe("b");
    const resent = events.filter((e) => e.type === "retry");
    expect(resent.map((e) => e.type === "retry" && e.error.reason)).toEqual(["session_expired"]);
    expect(events.filter((e) => e.type === "circuit_open")).toEqual([]);
    expect((await replyOf(toolkit.getTool("echo"), { text: "c" })).content).toBe("c");
  });

  it("re-sends a write that met an expired session once, even with the retry budget spent", async () => {
    const http = later(await startHttpFixture());
    const toolkit = later(
      await McpToolkit.connect({
        servers: { s: { transport: "http", url: http.url.href } },
        retryBudget: { capacity: 0 },
      }),
    );
    expect((await replyOf(toolkit.getTool("echo"), { text: "warm" })).error).toBeUndefined();
    await http.forgetSessions();
    const write = await replyOf(toolkit.getTool("counter"), { key: "w" });
    expect(write.error).toBeUndefined();
    expect(http.state.executions.get("w")).toBe(1);
  });
});

describe("a short outage under parallel writes", () => {
  it("opens the circuit briefly at most: every write that did not run is sent once the server is back", async () => {
    const http = later(await startHttpFixture());
    const events: McpEvent[] = [];
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href } }, onEvent: (e) => events.push(e) }));
    expect((await replyOf(toolkit.getTool("echo"), { text: "warm" })).error).toBeUndefined();
    await http.down();
    const calls = Array.from({ length: 16 }, (_, i) => replyOf(toolkit.getTool("counter"), { key: `w${i}` }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await http.up();
    const replies = await Promise.all(calls);
    // A write sent on a pooled socket the dying server had just closed may come back `unknown`
    // (the client cannot tell it from a crash mid-call); every other write runs, once.
    const failed = replies.filter((r) => r.error && r.error.outcome !== "unknown").map((r) => `${r.error!.reason}/${r.error!.outcome}: ${r.error!.message}`);
    expect(failed).toEqual([]);
    expect(replies.filter((r) => r.error?.reason === "circuit_open")).toEqual([]);
    for (let i = 0; i < 16; i++) {
      const runs = http.state.executions.get(`w${i}`) ?? 0;
      if (replies[i]!.error) expect(runs, `w${i} ran at most once`).toBeLessThanOrEqual(1);
      else expect(runs, `w${i} ran once`).toBe(1);
    }
    expect(replies.filter((r) => !r.error).length).toBeGreaterThanOrEqual(14);
  });
});

describe("a connection that can never come back", () => {
  it("is not retried once the user closed their own client, and the model is not told to try later", async () => {
    const http = later(await startHttpFixture());
    const client = new Client({ name: "mine", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(http.url));
    const tools = await createMcpTools(client, { serverName: "s" });
    cleanups.push(() => tools.close());
    await client.close();
    const before = http.posts;
    const reply = await replyOf(tools.find((t) => t.name === "echo"), { text: "x" });
    expect(reply.error).toMatchObject({ reason: "not_connected", transient: false, attempts: 1 });
    expect(reply.content).not.toMatch(/try again/i);
    expect(http.posts).toBe(before);
  });
});

/** A toolkit over a stdio server that works once, then fails (`exit`) or hangs (`hang`) at every restart. */
async function crashLooping(then: "exit" | "hang", server: Record<string, unknown>, toolkit: Record<string, unknown>) {
  const mark = join(mkdtempSync(join(tmpdir(), "crashloop-")), "starts");
  const entry = fileURLToPath(new URL("../servers/crashloop-server.ts", import.meta.url));
  const config = { transport: "stdio" as const, command: process.execPath, args: ["--import", "tsx", entry], env: { CRASHLOOP_MARK: mark, CRASHLOOP_THEN: then }, ...server };
  const kit = await McpToolkit.connect({ servers: { s: config }, retry: { retries: 0 }, ...toolkit });
  const starts = () => readFileSync(mark, "utf8").trim().split("\n").length;
  return { toolkit: kit, starts };
}

describe("close()", () => {
  it("settles a call waiting on the reconnect backoff at once as closed, and starts no server afterwards", async () => {
    const { toolkit, starts } = await crashLooping("exit", { reconnect: { minDelayMs: 5_000, maxDelayMs: 5_000 } }, { timeoutMs: 20_000 });
    expect((await replyOf(toolkit.getTool("crash"), { code: 1 })).error?.reason).toBe("connection_closed");
    // The reconnect fails at start: the next connect waits 5 s.
    await replyOf(toolkit.getTool("echo"), { text: "a" });
    expect(starts()).toBe(2);
    const waiting = replyOf(toolkit.getTool("echo"), { text: "b" });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const clock = stopwatch();
    await toolkit.close();
    const reply = await waiting;
    // The 5 s backoff ends about 4.8 s from here: at most 1.5 s of stall widens the bound.
    clock.within(3_000, "close() ending a call waiting on the reconnect backoff", undefined, 1_500);
    expect(reply.error).toMatchObject({ reason: "closed" });
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    expect(starts(), "no process is started after close()").toBe(2);
  }, 30_000);

  it("returns within about a second while a reconnect hangs on a server that never answers, and the call settles closed", async () => {
    const { toolkit, starts } = await crashLooping("hang", { connectTimeoutMs: 30_000 }, { timeoutMs: 60_000 });
    expect((await replyOf(toolkit.getTool("crash"), { code: 1 })).error?.reason).toBe("connection_closed");
    const waiting = replyOf(toolkit.getTool("echo"), { text: "a" });
    await vi.waitFor(() => expect(starts()).toBe(2), { timeout: 10_000 });
    const clock = stopwatch();
    await toolkit.close();
    const closedIn = clock.elapsed();
    const reply = await waiting;
    clock.within(3_000, "close() while a reconnect hangs (connect timeout 30 s)", closedIn);
    expect(reply.error).toMatchObject({ reason: "closed" });
  }, 30_000);
});

describe("a crash-looping stdio server", () => {
  it("names the exit code and stderr even when a call's timeout runs out while the toolkit waits to reconnect", async () => {
    // Starting the process takes seconds on a loaded machine: only the waiting call has a short timeout.
    const { toolkit } = await crashLooping("exit", { reconnect: { minDelayMs: 20_000, maxDelayMs: 20_000 } }, { timeoutMs: 20_000, tools: { counter: { timeoutMs: 1_500 } } });
    later(toolkit);
    const crashed = await replyOf(toolkit.getTool("crash"), { code: 7 });
    expect(crashed.content).toContain("exited with code 7");
    // The reconnect starts the process again; it fails at start.
    const first = await replyOf(toolkit.getTool("echo"), { text: "x" });
    expect(first.content).toContain("config file /etc/app.toml missing");
    // The next connect waits 20 s: this call's 1.5 s run out first. Its error still says why.
    const waited = await replyOf(toolkit.getTool("counter"), { key: "y" });
    expect(waited.error?.outcome).toBe("not_sent");
    expect(waited.content).toContain("exited with code 3");
    expect(waited.content).toContain("config file /etc/app.toml missing");
  }, 30_000);
});
