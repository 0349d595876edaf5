/**
 * `withDeadline` end to end: real SDK servers over HTTP on 127.0.0.1 (a v1 McpServer on its
 * sessionful streamable HTTP transport; a v2 McpServer behind `createMcpHandler`, met by a v2
 * client in the 2026-07-28 era, and on the v2 package's sessionful 2025 transport), called by a real
 * SDK client of the same line that puts `_meta["langchain-mcp-errors/deadline"]` on `tools/call`.
 * Every time is taken on the server, from the moment the SDK hands it the call, so a loaded client
 * does not move a bound.
 */
import { getEventListeners } from "node:events";
import { Client as V2Client, StreamableHTTPClientTransport as V2StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { McpServer as V2McpServer } from "@modelcontextprotocol/server";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { DEADLINE_META, withDeadline } from "../../src/server/index.js";
import { closeLater, server } from "../network/helpers.js";
import { startV2Http, type V2HttpMode } from "../servers/v2/http.js";
import { stopwatch } from "../timing.js";

/** What the SDKs hand a tool callback, cut to what these tests read: v1 `extra`, v2 `ctx`. */
interface Extra {
  signal?: AbortSignal;
  mcpReq?: { signal: AbortSignal };
}
const signalOf = (extra: Extra): AbortSignal => (extra.mcpReq?.signal ?? extra.signal)!;
const listeners = (signal: AbortSignal) => getEventListeners(signal, "abort").length;

/** What the server saw of one call. */
class Seen {
  /** `performance.now()` when the SDK called the tool's callback (before the wrapper). */
  arrivedAt = 0;
  /** `performance.now()` when the signal the callback was given aborted. */
  firedAt = 0;
  reason: unknown;
  /** Whether the SDK's own signal had aborted when the callback's did (a cancellation, not the deadline). */
  sdkAbortedFirst?: boolean;
  originalExtra?: Extra;
  givenExtra?: Extra;
  /** Listeners on the SDK's own signal once the wrapped callback settled. */
  listenersAfter = -1;
  private readonly startedLatch = latch();
  private readonly firedLatch = latch();
  private readonly settledLatch = latch();
  readonly started = this.startedLatch.promise;
  readonly fired = this.firedLatch.promise;
  /** The wrapped callback settled (answered or rejected). */
  readonly settled = this.settledLatch.promise;

  /** The tool's callback as registered: notes the arrival, then runs the wrapped one. */
  arrive<T>(extra: Extra, run: () => Promise<T>): Promise<T> {
    this.arrivedAt = performance.now();
    this.originalExtra = extra;
    return run().finally(() => {
      this.listenersAfter = listeners(signalOf(extra));
      this.settledLatch.open();
    });
  }

  /** Sleeps `ms`, or until the signal it is given aborts, which it heeds by rejecting with the reason. */
  sleep(ms: number, extra: Extra): Promise<{ content: { type: "text"; text: string }[] }> {
    this.givenExtra = extra;
    this.startedLatch.open();
    const signal = signalOf(extra);
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        this.firedAt = performance.now();
        this.reason = signal.reason;
        this.sdkAbortedFirst = signalOf(this.originalExtra!).aborted;
        this.firedLatch.open();
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", onAbort);
        resolve({ content: [{ type: "text", text: `slept ${ms} ms` }] });
      }, ms);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}

function latch() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open: () => open() };
}

interface CallOptions {
  deadlineMs?: number;
  /** The client's own request timeout. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

interface Line {
  seen: Seen;
  /** Calls `sleep` (an input schema: `(args, extra)`) or `pause` (none: `(extra)`, sleeps 5 s). */
  call(tool: "sleep" | "pause", args: Record<string, unknown>, options: CallOptions): Promise<{ isError?: boolean; content: unknown[] }>;
}

const info = { name: "deadline-test", version: "1.0.0" };
const textOf = (result: { content: unknown[] }) => (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("");
const metaFor = (options: CallOptions) => (options.deadlineMs !== undefined ? { _meta: { [DEADLINE_META]: options.deadlineMs } } : {});

async function v1Line(): Promise<Line> {
  const seen = new Seen();
  const sleep = withDeadline((args: { ms: number }, extra: Extra) => seen.sleep(args.ms, extra));
  const pause = withDeadline(async (extra: Extra) => seen.sleep(5_000, extra));
  const http = await server({
    build: () => {
      const mcp = new V1McpServer(info);
      mcp.registerTool("sleep", { description: "Sleeps, heeding its signal.", inputSchema: { ms: z.number() } }, (args, extra) => seen.arrive(extra, () => sleep(args, extra)));
      mcp.registerTool("pause", { description: "Pauses 5 s, heeding its signal." }, (extra) => seen.arrive(extra, () => pause(extra)));
      return mcp;
    },
  });
  const client = new V1Client(info);
  await client.connect(new V1StreamableHTTPClientTransport(http.url));
  closeLater(client);
  return {
    seen,
    call: (name, args, options) =>
      client.callTool({ name, arguments: args, ...metaFor(options) }, undefined, { timeout: options.timeoutMs ?? 10_000, signal: options.signal }) as Promise<{ isError?: boolean; content: unknown[] }>,
  };
}

async function v2Line(mode: V2HttpMode): Promise<Line> {
  const seen = new Seen();
  const sleep = withDeadline((args: { ms: number }, extra: Extra) => seen.sleep(args.ms, extra));
  const pause = withDeadline(async (ctx: Extra) => seen.sleep(5_000, ctx));
  const http = closeLater(
    await startV2Http({
      mode,
      build: () => {
        const mcp = new V2McpServer(info);
        mcp.registerTool("sleep", { description: "Sleeps, heeding its signal.", inputSchema: z.object({ ms: z.number() }) }, (args, ctx) => seen.arrive(ctx, () => sleep(args, ctx)));
        mcp.registerTool("pause", { description: "Pauses 5 s, heeding its signal." }, (ctx) => seen.arrive(ctx, () => pause(ctx)));
        return mcp;
      },
    }),
  );
  const client = new V2Client(info, { versionNegotiation: { mode: mode === "modern" ? "auto" : "legacy" } });
  await client.connect(new V2StreamableHTTPClientTransport(http.url));
  expect(client.getProtocolEra()).toBe(mode === "modern" ? "modern" : "legacy");
  closeLater(client);
  return {
    seen,
    call: (name, args, options) => client.callTool({ name, arguments: args, ...metaFor(options) }, { timeout: options.timeoutMs ?? 10_000, signal: options.signal }) as Promise<{ isError?: boolean; content: unknown[] }>,
  };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe.each([
  ["a v1 server (sessionful streamable HTTP)", () => v1Line()],
  ["a v2 server (createMcpHandler, 2026-07-28 era)", () => v2Line("modern")],
  ["a v2 server (sessionful, 2025 era)", () => v2Line("legacy-session")],
] as const)("withDeadline on %s", (_name, connect) => {
  it("aborts the callback's signal when the caller's 1 s has passed since the request arrived, and answers its TimeoutError", async () => {
    const clock = stopwatch();
    const { seen, call } = await connect();
    const result = await call("sleep", { ms: 5_000 }, { deadlineMs: 1_000, timeoutMs: 3_000 });
    await seen.fired;
    const afterArrival = seen.firedAt - seen.arrivedAt;
    expect(afterArrival).toBeGreaterThanOrEqual(950);
    clock.within(1_200, "the signal fired after the 1 s deadline", afterArrival, 800);
    expect(seen.reason).toBeInstanceOf(DOMException);
    expect(seen.reason).toMatchObject({ name: "TimeoutError" });
    expect((seen.reason as Error).message).toContain(DEADLINE_META);
    // The deadline, not a cancellation: the SDK's own signal had not aborted, so the SDK sent the
    // answer, the error as an isError result.
    expect(seen.sdkAbortedFirst).toBe(false);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe((seen.reason as Error).message);
    await seen.settled;
    expect(seen.listenersAfter).toBe(0);
  });

  it("runs a call without the _meta entry unchanged: the SDK's own extra and signal", async () => {
    const { seen, call } = await connect();
    const result = await call("sleep", { ms: 20 }, {});
    expect(result).toMatchObject({ content: [{ type: "text", text: "slept 20 ms" }] });
    expect(result.isError).toBeFalsy();
    expect(seen.givenExtra).toBe(seen.originalExtra);
    expect(signalOf(seen.givenExtra!)).toBe(signalOf(seen.originalExtra!));
  });

  it("passes the client's cancellation on through the signal it gives the callback", async () => {
    const { seen, call } = await connect();
    const cancel = new AbortController();
    const reply = call("sleep", { ms: 20_000 }, { deadlineMs: 15_000, timeoutMs: 25_000, signal: cancel.signal });
    const settled = reply.then(() => "answered", () => "rejected");
    await seen.started;
    cancel.abort("the user went away");
    await seen.fired;
    expect(await settled).toBe("rejected");
    expect(signalOf(seen.givenExtra!)).not.toBe(signalOf(seen.originalExtra!));
    // The SDK's signal aborted (the cancellation reached the server), and its reason is what the callback got.
    expect(seen.sdkAbortedFirst).toBe(true);
    expect(seen.reason).toBe(signalOf(seen.originalExtra!).reason);
    expect(seen.reason).not.toMatchObject({ name: "TimeoutError" });
    await seen.settled;
    expect(seen.listenersAfter).toBe(0);
  });

  it("clears its timer, and leaves no listener on the request's signal, when the callback finishes before the deadline", async () => {
    const { seen, call } = await connect();
    const setTimeoutSpy = vi.spyOn(globalThis, "setTimeout");
    const clearTimeoutSpy = vi.spyOn(globalThis, "clearTimeout");
    const result = await call("sleep", { ms: 20 }, { deadlineMs: 43_210 });
    expect(result).toMatchObject({ content: [{ type: "text", text: "slept 20 ms" }] });
    await seen.settled;
    // The wrapper's timer is the one set for the deadline's 43,210 ms; nothing else here waits that long.
    const index = setTimeoutSpy.mock.calls.findIndex(([, ms]) => ms === 43_210);
    expect(index).toBeGreaterThanOrEqual(0);
    const handle = setTimeoutSpy.mock.results[index]!.value as unknown;
    expect(clearTimeoutSpy.mock.calls.some(([h]) => h === handle)).toBe(true);
    expect(seen.givenExtra).not.toBe(seen.originalExtra);
    expect(seen.listenersAfter).toBe(0);
  });

  it("wraps the callback of a tool without an input schema, which the SDK calls with extra alone", async () => {
    const { seen, call } = await connect();
    const result = await call("pause", {}, { deadlineMs: 300, timeoutMs: 3_000 });
    await seen.fired;
    expect(seen.firedAt - seen.arrivedAt).toBeGreaterThanOrEqual(250);
    expect(seen.reason).toMatchObject({ name: "TimeoutError" });
    expect(result.isError).toBe(true);
    expect(signalOf(seen.givenExtra!)).not.toBe(signalOf(seen.originalExtra!));
  });
});
