/**
 * `withDeadline` alone, on fake timers and hand-made `extra` objects of both SDK lines' shapes:
 * which signal the callback gets, when it aborts, and that nothing (timer, listener) outlives the
 * call. The same against real v1 and v2 servers: deadline.e2e.test.ts.
 */
import { getEventListeners } from "node:events";
import { McpServer as V2McpServer } from "@modelcontextprotocol/server";
import { McpServer as V1McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { DEADLINE_META, withDeadline } from "../../src/server/index.js";

/** What the v1 SDK hands a tool callback (`extra`), cut to what the wrapper reads. */
function v1Extra(meta?: Record<string, unknown>) {
  const request = new AbortController();
  return { request, extra: { signal: request.signal, requestId: 7, sessionId: "s", ...(meta ? { _meta: meta } : {}) } };
}

/** What the v2 SDK hands a tool callback (`ctx`), cut to what the wrapper reads. */
function v2Ctx(meta?: Record<string, unknown>) {
  const request = new AbortController();
  return { request, extra: { sessionId: "s", mcpReq: { id: 7, method: "tools/call", signal: request.signal, ...(meta ? { _meta: meta } : {}) } } };
}

/** Either shape, as the tests read it. */
interface Extra {
  signal?: AbortSignal;
  mcpReq?: { signal: AbortSignal };
}
const signalOf = (extra: Extra): AbortSignal => (extra.mcpReq?.signal ?? extra.signal)!;
/** `extra` without its signal(s), to compare the rest. */
const withoutSignal = (extra: Extra) => ({ ...extra, signal: undefined, mcpReq: extra.mcpReq && { ...extra.mcpReq, signal: undefined } });
const listeners = (signal: AbortSignal) => getEventListeners(signal, "abort").length;

/** A callback that runs until the test settles it, recording the extra it was given. */
function pending() {
  let settle!: (value: string) => void;
  let fail!: (error: unknown) => void;
  const seen: unknown[] = [];
  const handler = vi.fn((_args: unknown, extra: unknown) => {
    seen.push(extra);
    return new Promise<string>((resolve, reject) => {
      settle = resolve;
      fail = reject;
    });
  });
  return { handler, seen, settle: (v: string) => settle(v), fail: (e: unknown) => fail(e) };
}

beforeEach(() => {
  // Only the timers the wrapper could use, so that setImmediate still turns the real loop.
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe.each([
  ["v1 (extra.signal)", v1Extra],
  ["v2 (ctx.mcpReq.signal)", v2Ctx],
] as const)("withDeadline, %s", (_line, make) => {
  it("runs a call without the _meta entry exactly as before: the same extra, no timer", async () => {
    const { extra } = make();
    const { handler, seen, settle } = pending();
    const call = withDeadline(handler)({ a: 1 }, extra);
    expect(seen[0]).toBe(extra);
    expect(vi.getTimerCount()).toBe(0);
    expect(listeners(signalOf(extra))).toBe(0);
    settle("done");
    await expect(call).resolves.toBe("done");
  });

  it.each([-1, "1000", Number.NaN, Number.POSITIVE_INFINITY, null])("ignores a deadline of %s: the same extra, no timer", async (value) => {
    const { extra } = make({ [DEADLINE_META]: value });
    const { handler, seen, settle } = pending();
    const call = withDeadline(handler)({}, extra);
    expect(seen[0]).toBe(extra);
    expect(vi.getTimerCount()).toBe(0);
    settle("done");
    await expect(call).resolves.toBe("done");
  });

  it("gives the callback a signal of its own and leaves the SDK's extra as it was", async () => {
    const { extra } = make({ [DEADLINE_META]: 1_000, other: "kept" });
    const before = structuredClone(withoutSignal(extra));
    const original = signalOf(extra);
    const { handler, seen, settle } = pending();
    const call = withDeadline(handler)({}, extra);
    const given = seen[0] as typeof extra;
    expect(given).not.toBe(extra);
    expect(signalOf(given)).not.toBe(original);
    expect(signalOf(given).aborted).toBe(false);
    expect(withoutSignal(given)).toEqual(before);
    expect(signalOf(extra)).toBe(original);
    settle("done");
    await expect(call).resolves.toBe("done");
  });

  it("leaves no timer and no listener on the request's signal once the callback settles before the deadline", async () => {
    const { extra } = make({ [DEADLINE_META]: 60_000 });
    const { handler, settle } = pending();
    const call = withDeadline(handler)({}, extra);
    expect(vi.getTimerCount()).toBe(1);
    expect(listeners(signalOf(extra))).toBe(1);
    settle("early");
    await expect(call).resolves.toBe("early");
    expect(vi.getTimerCount()).toBe(0);
    expect(listeners(signalOf(extra))).toBe(0);
  });

  it("clears both when the callback throws, and passes its error on", async () => {
    const { extra } = make({ [DEADLINE_META]: 60_000 });
    const { handler, fail } = pending();
    const call = withDeadline(handler)({}, extra);
    const boom = new Error("boom");
    fail(boom);
    await expect(call).rejects.toBe(boom);
    expect(vi.getTimerCount()).toBe(0);
    expect(listeners(signalOf(extra))).toBe(0);
  });

  it("aborts the callback's signal at the deadline with a TimeoutError and rejects with it at once", async () => {
    const { extra } = make({ [DEADLINE_META]: 1_000 });
    const { handler, seen, settle } = pending();
    const call = withDeadline(handler)({}, extra);
    const outcome = call.then(() => "resolved", (e: unknown) => e);
    const signal = signalOf(seen[0] as typeof extra);
    await vi.advanceTimersByTimeAsync(999);
    expect(signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(DOMException);
    expect(signal.reason).toMatchObject({ name: "TimeoutError" });
    expect((signal.reason as Error).message).toContain(DEADLINE_META);
    expect(await outcome).toBe(signal.reason);
    expect(signalOf(extra).aborted).toBe(false);
    expect(listeners(signalOf(extra))).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    settle("too late"); // dropped, as the SDK drops a cancelled handler's result
  });

  it("drops a rejection the callback makes after the deadline (no unhandled rejection)", async () => {
    const unhandled = vi.fn();
    process.on("unhandledRejection", unhandled);
    try {
      const { extra } = make({ [DEADLINE_META]: 10 });
      const { handler, fail } = pending();
      const call = withDeadline(handler)({}, extra);
      const outcome = call.catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(10);
      expect(await outcome).toMatchObject({ name: "TimeoutError" });
      fail(new Error("gave up on my signal"));
      await vi.advanceTimersByTimeAsync(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off("unhandledRejection", unhandled);
    }
  });

  it("passes a cancellation on with its reason, clears the timer and waits for the callback", async () => {
    const { extra, request } = make({ [DEADLINE_META]: 60_000 });
    const { handler, seen, settle } = pending();
    const call = withDeadline(handler)({}, extra);
    const signal = signalOf(seen[0] as typeof extra);
    request.abort("client said stop");
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe("client said stop");
    expect(vi.getTimerCount()).toBe(0);
    expect(listeners(signalOf(extra))).toBe(0);
    settle("after cancel");
    await expect(call).resolves.toBe("after cancel");
  });

  it("gives an already-cancelled request an aborted signal", async () => {
    const { extra, request } = make({ [DEADLINE_META]: 60_000 });
    request.abort("gone before");
    const { handler, seen, settle } = pending();
    const call = withDeadline(handler)({}, extra);
    expect(signalOf(seen[0] as typeof extra).reason).toBe("gone before");
    expect(vi.getTimerCount()).toBe(0);
    settle("x");
    await expect(call).resolves.toBe("x");
  });

  it("does not run the callback when the caller has no time left (a deadline of 0)", async () => {
    const { extra } = make({ [DEADLINE_META]: 0 });
    const handler = vi.fn();
    await expect(withDeadline(handler)({}, extra)).rejects.toMatchObject({ name: "TimeoutError" });
    expect(handler).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("takes the callback of a tool without an input schema, which the SDK calls with extra alone", async () => {
    const { extra } = make({ [DEADLINE_META]: 500 });
    let given: typeof extra | undefined;
    const call = withDeadline((e: typeof extra) => {
      given = e;
      return new Promise<string>((_, reject) => signalOf(e).addEventListener("abort", () => reject(signalOf(e).reason)));
    })(extra);
    expect(given).not.toBe(extra);
    const outcome = call.catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(500);
    expect(await outcome).toMatchObject({ name: "TimeoutError" });
    expect(signalOf(given!).aborted).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("passes a synchronous throw on as a rejection and clears the timer", async () => {
    const { extra } = make({ [DEADLINE_META]: 500 });
    const boom = new Error("sync");
    await expect(
      withDeadline((_args: unknown, _extra: unknown) => {
        throw boom;
      })({}, extra),
    ).rejects.toBe(boom);
    expect(vi.getTimerCount()).toBe(0);
    expect(listeners(signalOf(extra))).toBe(0);
  });
});

describe("withDeadline's types", () => {
  it("registers on both McpServers as written, the SDK typing the callback's parameters (both shapes)", () => {
    const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });
    const v1 = new V1McpServer({ name: "types", version: "1.0.0" });
    v1.registerTool("withArgs", { inputSchema: { n: z.number() } }, withDeadline(async ({ n }, extra) => text(`${n + 1} ${extra.signal.aborted}`)));
    v1.registerTool("noArgs", {}, withDeadline((extra) => text(String(extra.signal.aborted))));
    // @ts-expect-error the SDK's extra has no such field: the parameter is typed, not any
    v1.registerTool("typed", {}, withDeadline(async (extra) => text(String(extra.noSuchField))));
    const v2 = new V2McpServer({ name: "types", version: "2.0.0" });
    v2.registerTool("withArgs", { inputSchema: z.object({ n: z.number() }) }, withDeadline(async ({ n }, ctx) => text(`${n + 1} ${ctx.mcpReq.signal.aborted}`)));
    v2.registerTool("noArgs", {}, withDeadline(async (ctx) => text(String(ctx.mcpReq.signal.aborted))));
    // A wrapped callback called directly answers a promise, whatever the callback returns.
    const direct: Promise<number> = withDeadline((_args: { n: number }, _extra: { signal?: AbortSignal }) => 1)({ n: 1 }, {});
    return direct.then((n) => expect(n).toBe(1));
  });
});
