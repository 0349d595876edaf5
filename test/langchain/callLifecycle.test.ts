/**
 * One lifecycle for every call: whatever a call waits on (an input handler, a reconnect, a
 * fallback function, the next attempt), the wait ends at the call's timeout and at once on the
 * caller's abort; a LangGraph interrupt thrown on any attempt reaches the graph as it is.
 */
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { afterEach, describe, expect, it } from "vitest";
import { langGraphInputHandler, type McpInputInterrupt } from "../../src/agents.js";
import { McpToolkit, type InputHandler, type McpEvent } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater, replyOf } from "../servers/replies.js";
import { startHttpFixture } from "../servers/http.js";
import { startV2Http, type V2HttpMode } from "../servers/v2/http.js";
import { registerSdk, type TestSdk } from "../telemetry/sdk.js";
import { stopwatch, type Stopwatch } from "../timing.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

/** Told when the deaf handler is asked. */
let deafAsked: (() => void) | undefined;

/** A person who never answers, and a handler that does not listen to its signal either. */
const deaf: InputHandler = {
  elicit: () => {
    deafAsked?.();
    return new Promise(() => {});
  },
};

/** Runs `work` and reports how long it took to settle, in ms, with the stopwatch that bounds it. */
async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number; clock: Stopwatch }> {
  const clock = stopwatch();
  const value = await work;
  return { value, ms: clock.elapsed(), clock };
}

describe("an input handler that ignores its signal", () => {
  it.each([
    ["2026-07-28 (an input_required round)", "modern"],
    ["the 2025 era (the server's elicitation request)", "legacy-session"],
  ] as const)("is cut off at the call's timeout in %s", async (_, mode: V2HttpMode) => {
    const http = later(await startV2Http({ mode }));
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href, inputHandler: deaf } }, timeoutMs: 1000, retry: { retries: 0 } }));
    const { value: reply, ms, clock } = await timed(replyOf(toolkit.getTool("confirm"), { action: "ship it" }));
    expect(reply.error).toMatchObject({ reason: "request_timeout" });
    // Bounded by the 1 s timeout, not by the handler (which never settles).
    clock.within(15_000, "a deaf input handler, with a 1 s timeout", ms);
  });

  it.each([
    ["2026-07-28", "modern"],
    ["the 2025 era", "legacy-session"],
  ] as const)("is cut off at once when the caller aborts, in %s", async (_, mode: V2HttpMode) => {
    const http = later(await startV2Http({ mode }));
    // A timeout far longer than the test: only the abort can end the call in time.
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href, inputHandler: deaf } }, timeoutMs: 600_000, retry: { retries: 0 } }));
    const controller = new AbortController();
    const asked = new Promise<void>((resolve) => {
      deafAsked = resolve;
    });
    const reply = replyOf(toolkit.getTool("confirm"), { action: "ship it" }, controller.signal);
    await asked;
    controller.abort(new Error("the user left"));
    const { value, ms, clock } = await timed(reply);
    expect(value.error).toMatchObject({ reason: "cancelled" });
    clock.within(10_000, "an aborted wait on a deaf input handler", ms);
  });
});

describe("a fallback function that never answers", () => {
  /** A server that is down for good: every attempt is refused, transient, and falls back. */
  async function downToolkit(fallback: (args: Record<string, unknown>, error: unknown, signal: AbortSignal) => Promise<string>, timeoutMs: number) {
    const events: McpEvent[] = [];
    // The server lists its tools, then goes away: every later attempt is refused.
    const live = later(await startV2Http({ mode: "modern" }));
    const toolkit = later(
      await McpToolkit.connect({
        servers: { s: { transport: "http", url: live.url.href } },
        timeoutMs,
        retry: { retries: 0 },
        tools: { echo: { fallback } },
        onEvent: (e) => events.push(e),
      }),
    );
    await live.close();
    return { toolkit, events };
  }

  it("settles at once as cancelled when the caller aborts", async () => {
    let heard: AbortSignal | undefined;
    let entered: () => void = () => {};
    const started = new Promise<void>((resolve) => (entered = resolve));
    const { toolkit } = await downToolkit((_args, _error, signal) => {
      heard = signal;
      entered();
      return new Promise(() => {});
    }, 600_000);
    const controller = new AbortController();
    const reply = replyOf(toolkit.getTool("echo"), { text: "hi" }, controller.signal);
    await started;
    controller.abort(new Error("the user left"));
    const { value, ms, clock } = await timed(reply);
    expect(value.error).toMatchObject({ reason: "cancelled" });
    expect(heard?.aborted, "the fallback's signal aborted too").toBe(true);
    clock.within(10_000, "an aborted wait on a fallback function", ms);
  });

  it("ends after the call's timeout, reporting both failures", async () => {
    const { toolkit } = await downToolkit(() => new Promise(() => {}), 800);
    const { value, ms, clock } = await timed(replyOf(toolkit.getTool("echo"), { text: "hi" }));
    expect(value.error).toMatchObject({ reason: "connection_refused" });
    expect(value.error!.message).toContain("The fallback function also failed (request_timeout)");
    clock.within(15_000, "a fallback function that never settles, with a 0.8 s timeout", ms);
  });
});

describe("a LangGraph interrupt thrown on the second attempt", () => {
  let sdk: TestSdk | undefined;
  afterEach(async () => {
    await sdk?.shutdown();
    sdk = undefined;
  });

  it.each([["without a tracer", false], ["with an OpenTelemetry tracer registered", true]] as const)("reaches the graph, which pauses and resumes (%s)", async (_, traced) => {
    if (traced) sdk = registerSdk();
    const http = later(await startV2Http({ mode: "modern" }));
    const events: McpEvent[] = [];
    const toolkit = later(
      await McpToolkit.connect({
        servers: { s: { transport: "http", url: http.url.href, inputHandler: langGraphInputHandler() } },
        tools: { confirm: { idempotent: true, retry: { retries: 2, minTimeout: 10, maxTimeout: 20 } } },
        onEvent: (e) => events.push(e),
      }),
    );
    // The first attempt meets a 503: the retry's attempt is the one the server asks for input on.
    http.failNext(503, 1, { headers: { "retry-after": "0" } });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("tools", new ToolNode(toolkit.getTools()))
      .addEdge(START, "tools")
      .addEdge("tools", END)
      .compile({ checkpointer: new MemorySaver() });
    const thread = { configurable: { thread_id: `t-${traced}` } };
    const call = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "confirm", args: { action: "refund order 7" } }] });

    const paused = await graph.invoke({ messages: [new HumanMessage("Refund it."), call] }, thread);
    const interrupts = (paused as { __interrupt__?: { value: McpInputInterrupt }[] }).__interrupt__ ?? [];
    expect(interrupts.map((i) => i.value)).toMatchObject([{ type: "mcp_input", kind: "elicitation", toolName: "confirm" }]);
    expect(events.filter((e) => e.type === "retry")).toHaveLength(1);
    expect(events.filter((e) => e.type === "error")).toEqual([]);

    const done = await graph.invoke(new Command({ resume: { action: "accept", content: { ok: true } } }), thread);
    const reply = done.messages.filter((m) => ToolMessage.isInstance(m)).at(-1)!;
    expect(reply).toMatchObject({ status: "success", content: "done: refund order 7" });
    if (sdk) {
      const calls = sdk.spans().filter((s) => s.name === "execute_tool confirm");
      // The paused call's span says it was interrupted, not failed.
      expect(calls.some((s) => s.attributes["langchain_mcp.result"] === "interrupted" && s.status.code !== 2)).toBe(true);
    }
  });
});

/** Timers alive now (`process.getActiveResourcesInfo()`). */
const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("close() while a call waits between attempts", () => {
  it("ends a call sleeping in its 3 s retry backoff at once, as closed, and leaves no timer", async () => {
    const http = later(await startHttpFixture());
    const backoff = { retries: 2, minTimeout: 3_000, maxTimeout: 3_000, randomize: false };
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href } }, tools: { echo: { idempotent: true, retry: backoff } } }));
    const retried = new Promise<void>((resolve) => toolkit.on("retry", () => resolve()));
    const idle = timers();
    http.failNext(503);
    const reply = replyOf(toolkit.getTool("echo"), { text: "hi" });
    await retried;
    await toolkit.close();
    const { value, ms, clock } = await timed(reply);
    // Was 2.8 s: the backoff slept on the caller's signal alone.
    clock.within(500, "close() ending a 3 s backoff", ms);
    expect(value.error).toMatchObject({ reason: "closed", kind: "client", transient: false, outcome: "not_sent", attempts: 1 });
    // The server's own short timer for the closed response goes within a few ms; the 3 s backoff would stay.
    await pause(100);
    expect(timers()).toBeLessThanOrEqual(idle);
  });

  it("ends a call held by the server's Retry-After gate at once, as closed, unsent", async () => {
    const http = later(await startHttpFixture());
    const retry = { retries: 2, minTimeout: 100, maxTimeout: 5_000 };
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href } }, tools: { echo: { idempotent: true, retry } } }));
    const retried = new Promise<void>((resolve) => toolkit.on("retry", () => resolve()));
    // The first call is asked to wait 3 s: it sleeps in its backoff, and the gate holds every other call as long.
    http.failNext(429, { retryAfter: "3" });
    const first = replyOf(toolkit.getTool("echo"), { text: "a" });
    await retried;
    const posts = http.posts;
    const held = replyOf(toolkit.getTool("echo"), { text: "b" });
    await pause(50);
    expect(http.posts, "the gate holds the second call unsent").toBe(posts);
    await toolkit.close();
    const [a, b] = await Promise.all([timed(first), timed(held)]);
    a.clock.within(500, "close() ending the Retry-After waits", Math.max(a.ms, b.ms));
    expect(a.value.error).toMatchObject({ reason: "closed", outcome: "not_sent" });
    expect(b.value.error).toMatchObject({ reason: "closed", kind: "client", transient: false, outcome: "not_sent" });
  });

  it("ends a call waiting on its fallback function at once, as closed", async () => {
    const live = later(await startV2Http({ mode: "modern" }));
    let heard: AbortSignal | undefined;
    let entered: () => void = () => {};
    const started = new Promise<void>((resolve) => (entered = resolve));
    const fallback = (_args: Record<string, unknown>, _error: unknown, signal: AbortSignal) => {
      heard = signal;
      entered();
      return new Promise<string>(() => {});
    };
    // The fallback's bound is the tool's timeout, far longer than the test: only close() can end the wait in time.
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: live.url.href } }, timeoutMs: 600_000, retry: { retries: 0 }, tools: { echo: { fallback } } }));
    await live.close();
    const reply = replyOf(toolkit.getTool("echo"), { text: "hi" });
    await started;
    await toolkit.close();
    const { value, ms, clock } = await timed(reply);
    clock.within(500, "close() ending a wait on a fallback function", ms);
    expect(value.error).toMatchObject({ reason: "closed" });
    expect(heard?.aborted, "the fallback's signal aborted too").toBe(true);
  });
});

describe("a call that finds another call testing a half-open circuit", () => {
  it("waits for the verdict only within its own timeout, then fails circuit_open, unsent", async () => {
    const http = later(await startHttpFixture());
    const breaker = { failureThreshold: 1, initialHalfOpenAfterMs: 200, halfOpenAfterMs: 200, halfOpenJitter: 0 };
    const toolkit = later(
      await McpToolkit.connect({
        servers: { s: { transport: "http", url: http.url.href } },
        breaker,
        retry: { retries: 0 },
        tools: { slow: { timeoutMs: 10_000 }, echo: { timeoutMs: 300 } },
      }),
    );
    http.failNext(500);
    expect((await replyOf(toolkit.getTool("echo"), { text: "a" })).error).toBeDefined();
    expect(toolkit.circuitState("s")).toBe("open");
    await pause(300);
    // This call tests the server, and takes 2.5 s to answer.
    const test = replyOf(toolkit.getTool("slow"), { ms: 2_500 });
    await expect.poll(() => http.state.calls.includes("slow")).toBe(true);
    expect(toolkit.circuitState("s")).toBe("half-open");
    const { value, ms, clock } = await timed(replyOf(toolkit.getTool("echo"), { text: "b" }));
    // Was 2.5 s: the wait for another call's test had no bound of its own (so at most 0.4 s of stall widens it).
    clock.within(2_000, "a 300 ms call waiting for another call's test", ms, 400);
    expect(value.error).toMatchObject({ reason: "circuit_open", outcome: "not_sent", transient: true });
    expect(value.error!.message).toContain("this call's 300 ms ran out waiting for the verdict");
    expect((await test).error).toBeUndefined();
  });
});
