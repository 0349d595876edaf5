/**
 * A call's deadline holds over every wait a call can meet: a backoff after 503s, an open circuit,
 * a Retry-After, the throttle's queue, a reconnect to a dead port, a slow fallback. Each settles
 * within its deadline and a little, with `data.deadline: true`, and every request that left told
 * the server how long it had (never less than the floor an attempt needs).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpToolErrorJSON } from "../../src/index.js";
import { withDeadline } from "../../src/server/index.js";
import { DEADLINE_META } from "../../src/errors/deadline.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { everythingStdioCommand } from "../servers/tasks/everything.js";
import { startHttpFixture, type HttpFixture } from "../servers/http.js";
import { stopwatch, type Stopwatch } from "../timing.js";

const cleanups = closeAfterEach();

const DEADLINE_MS = 2_000;
/**
 * How late past its deadline a call may settle: the bound, widened by the event loop's
 * measured stall in the same run (test/timing.ts), so a busy machine does not fail it.
 */
const SLACK_MS = 500;

/** One tools/call as it left the client: when, and what `_meta` told the server. */
interface Sent {
  at: number;
  meta: Record<string, unknown> | undefined;
}

/** A fetch that records every tools/call that leaves, on its way to the real one. */
function recordingFetch(sent: Sent[]): typeof fetch {
  return (url, init) => {
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string; params?: { _meta?: Record<string, unknown> } }) : undefined;
    if (body?.method === "tools/call") sent.push({ at: performance.now(), meta: body.params?._meta });
    return fetch(url, init);
  };
}

async function toolkitFor(servers: Record<string, HttpFixture>, config: Record<string, unknown> = {}) {
  const sent: Sent[] = [];
  const toolkit = await McpToolkit.connect({
    servers: Object.fromEntries(Object.entries(servers).map(([name, http]) => [name, { transport: "http", url: http.url.href, fetch: recordingFetch(sent) }])),
    deadlineMs: DEADLINE_MS,
    ...config,
  });
  cleanups.push(() => toolkit.close());
  return { toolkit, sent };
}

async function server(): Promise<HttpFixture> {
  const http = await startHttpFixture();
  cleanups.push(() => http.close());
  return http;
}

/** Calls the tool, and returns the error it settled with and how long that took. */
async function timedFailure(toolkit: McpToolkit, tool: string, args: Record<string, unknown>): Promise<{ error: McpToolErrorJSON; ms: number; started: number; clock: Stopwatch }> {
  const clock = stopwatch();
  const started = performance.now();
  const reply = (await toolkit.getTool(tool)!.invoke({ type: "tool_call", id: "1", name: tool, args })) as { status?: string; artifact: McpToolErrorJSON };
  const ms = performance.now() - started;
  expect(reply.status).toBe("error");
  return { error: reply.artifact, ms, started, clock };
}

/** Every request that left did so before the deadline, telling the server at least the floor (100 ms). */
function expectSendsWithin(sent: Sent[], started: number): void {
  for (const send of sent.filter((s) => s.at >= started)) {
    expect(send.at - started).toBeLessThan(DEADLINE_MS);
    expect(send.meta?.[DEADLINE_META]).toBeGreaterThanOrEqual(100);
    expect(send.meta?.[DEADLINE_META]).toBeLessThanOrEqual(DEADLINE_MS);
  }
}

describe("a call's deadline", () => {
  it("ends a backoff after 503s and settles with the last failure", async () => {
    const http = await server();
    const { toolkit, sent } = await toolkitFor({ api: http }, { retry: { retries: 50, minTimeout: 300, maxTimeout: 5_000, randomize: false } });
    http.failNext(503, { count: 1_000 });
    const { error, ms, started, clock } = await timedFailure(toolkit, "echo", { text: "x" });
    expect(error).toMatchObject({ reason: "service_unavailable", outcome: "not_sent", data: { deadline: true } });
    expect(error.message).toContain(`deadline of ${DEADLINE_MS} ms`);
    clock.within(DEADLINE_MS + SLACK_MS, "the call settles at its deadline", ms);
    expect(sent.filter((s) => s.at >= started).length).toBeGreaterThan(1);
    expectSendsWithin(sent, started);
  });

  it("does not wait for an open circuit's test past the deadline", async () => {
    const http = await server();
    const { toolkit, sent } = await toolkitFor(
      { api: http },
      { retry: { retries: 5, minTimeout: 50, maxTimeout: 20_000 }, breaker: { failureThreshold: 1, initialHalfOpenAfterMs: 10_000, halfOpenAfterMs: 10_000 }, timeoutMs: 20_000 },
    );
    http.failNext(500, { count: 1 });
    const { error, ms, started, clock } = await timedFailure(toolkit, "echo", { text: "x" });
    expect(["server_error", "circuit_open"]).toContain(error.reason);
    clock.within(DEADLINE_MS + SLACK_MS, "the call settles at its deadline", ms);
    expectSendsWithin(sent, started);
  });

  it("does not wait out a Retry-After longer than the time left", async () => {
    const http = await server();
    const { toolkit, sent } = await toolkitFor({ api: http }, { retry: { retries: 3, maxRetryAfterMs: 60_000 } });
    http.failNext(429, { retryAfter: "10" });
    const first = await timedFailure(toolkit, "echo", { text: "x" });
    expect(first.error).toMatchObject({ reason: "rate_limited", data: { deadline: true } });
    first.clock.within(DEADLINE_MS + SLACK_MS, "the call settles at its deadline", first.ms);
    // The next call meets the server's wait on the gate: refused at once, nothing sent.
    const posts = http.posts;
    const second = await timedFailure(toolkit, "echo", { text: "y" });
    expect(second.error.reason).toBe("rate_limited");
    second.clock.within(DEADLINE_MS + SLACK_MS, "the gate refuses the next call at once", second.ms);
    expect(http.posts).toBe(posts);
    expectSendsWithin(sent, first.started);
  });

  it("leaves the throttle's queue when its turn would come past the deadline", async () => {
    const http = await server();
    const { toolkit, sent } = await toolkitFor({ api: http }, { throttle: { minRate: 0.5 }, retry: { retries: 0 } });
    // One refusal turns the throttle on: from then on about one call a second goes.
    http.failNext(429);
    await timedFailure(toolkit, "echo", { text: "first" });
    const clock = stopwatch();
    const started = performance.now();
    const calls = Array.from({ length: 5 }, (_, i) => toolkit.getTool("echo")!.invoke({ type: "tool_call", id: String(i), name: "echo", args: { text: String(i) } }) as Promise<{ status?: string; artifact: unknown }>);
    const replies = await Promise.all(calls);
    clock.within(DEADLINE_MS + SLACK_MS, "the queued calls settle by their deadline");
    const refused = replies.filter((r) => r.status === "error").map((r) => r.artifact as McpToolErrorJSON);
    expect(refused.length).toBeGreaterThan(0);
    for (const error of refused) expect(error).toMatchObject({ outcome: "not_sent" });
    expectSendsWithin(sent, started);
  });

  it("stops waiting for a dead server to come back", async () => {
    const http = await server();
    // Idempotent, so that a call that meets the dropped connection is repeated on a new one.
    const { toolkit, sent } = await toolkitFor({ api: http }, { retry: { retries: 20, minTimeout: 200, maxTimeout: 5_000 }, tools: { echo: { idempotent: true } } });
    expect(await toolkit.getTool("echo")!.invoke({ text: "up" })).toBe("up");
    await http.down();
    const { error, ms, started, clock } = await timedFailure(toolkit, "echo", { text: "x" });
    expect(error).toMatchObject({ data: { deadline: true } });
    expect(["connection_refused", "request_timeout", "connection_closed", "connection_reset"]).toContain(error.reason);
    clock.within(DEADLINE_MS + SLACK_MS, "the call settles at its deadline", ms);
    expectSendsWithin(sent, started);
  });

  it("ends a slow fallback at the deadline with the primary's failure", async () => {
    const primary = await server();
    const backup = await server();
    const { toolkit, sent } = await toolkitFor({ primary, backup }, { retry: { retries: 0 }, prefixToolNames: true });
    await toolkit.close();
    const fallbackToolkit = await McpToolkit.connect({
      servers: {
        primary: { transport: "http", url: primary.url.href, fetch: recordingFetch(sent), fallback: "backup" },
        backup: { transport: "http", url: backup.url.href, fetch: recordingFetch(sent), exposeTools: false },
      },
      deadlineMs: DEADLINE_MS,
      retry: { retries: 0 },
    });
    cleanups.push(() => fallbackToolkit.close());
    primary.failNext(503, { count: 10 });
    const { error, ms, started, clock } = await timedFailure(fallbackToolkit, "slow", { ms: 10_000 });
    expect(error).toMatchObject({ reason: "service_unavailable", data: { deadline: true } });
    clock.within(DEADLINE_MS + SLACK_MS, "the call settles at its deadline", ms);
    // The fallback's request went, inside the primary's deadline, and told the backup what was left.
    expect(backup.state.calls).toContain("slow");
    expectSendsWithin(sent, started);
  });

  it("tells the server how long it waits: withDeadline aborts a 5 s handler when the caller's 1 s is up", async () => {
    const seen: { arrived: number; aborted?: number; reason?: unknown }[] = [];
    const http = await startHttpFixture({
      build: () => {
        const mcp = new McpServer({ name: "sleepy", version: "1.0.0" });
        // A tool without an input schema: the SDK calls it with `extra` alone.
        const sleep = withDeadline(async (extra: { signal: AbortSignal }) => {
          const record: (typeof seen)[number] = { arrived: performance.now() };
          seen.push(record);
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, 5_000);
            extra.signal.addEventListener("abort", () => {
              record.aborted = performance.now();
              record.reason = extra.signal.reason;
              clearTimeout(timer);
              resolve();
            });
          });
          return { content: [{ type: "text" as const, text: "slept" }] };
        });
        mcp.registerTool("sleep", { description: "Sleeps 5 s unless its caller's time runs out." }, sleep as never);
        return mcp;
      },
    });
    cleanups.push(() => http.close());
    const { toolkit } = await toolkitFor({ api: http }, { deadlineMs: 1_000 });
    const { error, ms, clock } = await timedFailure(toolkit, "sleep", {});
    // The server's timer and the caller's end together: the client reads its own cut or, when the
    // server's answer was read first (a busy machine held the client's timer back), the server's
    // word for the same deadline.
    if (error.reason === "tool_error") expect(error.message).toMatch(/deadline/i);
    else expect(error).toMatchObject({ reason: "request_timeout", outcome: "unknown", data: { deadline: true } });
    clock.within(1_000 + SLACK_MS, "the call settles at its 1 s deadline", ms);
    expect(seen).toHaveLength(1);
    // Timed on the server, from the request's arrival: within 0.2 s of the caller's deadline.
    await expect.poll(() => seen[0]!.aborted).toBeDefined();
    const firedAfter = seen[0]!.aborted! - seen[0]!.arrived;
    clock.within(1_000 + 200, "the server's handler is aborted at the caller's deadline", firedAfter);
    expect(firedAfter).toBeGreaterThan(500);
  });

  it("ends 16 parallel calls to server-everything at their 1 s deadline, and the connection stays good", async () => {
    const toolkit = await McpToolkit.connect({ servers: { everything: { transport: "stdio", ...everythingStdioCommand() } }, deadlineMs: 1_000 });
    cleanups.push(() => toolkit.close());
    const tool = toolkit.getTool("trigger-long-running-operation")!;
    const clock = stopwatch();
    const calls = Array.from({ length: 16 }, (_, i) => tool.invoke({ type: "tool_call", id: `e${i}`, name: tool.name, args: { duration: 10, steps: 10 } }) as Promise<{ status?: string; artifact?: McpToolErrorJSON }>);
    const replies = await Promise.all(calls);
    clock.within(1_000 + SLACK_MS, "16 calls end at their 1 s deadline");
    expect(replies.map((r) => [r.status, r.artifact?.reason, (r.artifact?.data as { deadline?: boolean } | undefined)?.deadline])).toEqual(calls.map(() => ["error", "request_timeout", true]));
    expect(String(await toolkit.getTool("echo")!.invoke({ message: "after" }))).toContain("after");
  }, 30_000);
});
