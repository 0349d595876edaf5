/**
 * The throttle alone, on a clock the test moves (fake timers): off until a rate-limited answer,
 * then a rate cut to beta of what the server took, growing back along CUBIC; calls wait their
 * turn in order, fail at once when it would come past their bound, and leave at once on abort.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { McpToolError, isMcpToolError } from "../../src/index.js";
import { ToolkitClosedError } from "../../src/policy/abort.js";
import { Throttle, throttleFor } from "../../src/policy/Throttle.js";

const context = { toolName: "search", serverName: "s" };
const ok = () => Promise.resolve("ok");
const limited = (retryAfterMs?: number) => () => Promise.reject(McpToolError.of("rate_limited", "HTTP 429", { status: 429, ...(retryAfterMs ? { retryAfterMs } : {}) }));

/** A throttle on the fake clock that has seen `taken` answers in the last second, then one 429. */
async function cutAfter(taken: number, options = {}): Promise<Throttle> {
  const throttle = new Throttle("s", options, () => Date.now());
  for (let i = 0; i < taken; i++) await throttle.run(ok, 1000, undefined, context);
  await throttle.run(limited(), 1000, undefined, context).catch(() => undefined);
  return throttle;
}

/** Starts `n` calls and counts how many have been sent as time moves. */
function start(throttle: Throttle, n: number, maxWaitMs = 60_000, signal?: AbortSignal) {
  let sent = 0;
  const settled = Array.from({ length: n }, () =>
    throttle.run(
      () => {
        sent++;
        return ok();
      },
      maxWaitMs,
      signal,
      context,
    ).then(
      () => "sent",
      (error: unknown) => error,
    ),
  );
  return { sent: () => sent, settled };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("the throttle", () => {
  it("sends everything at once until the server first answers rate_limited", async () => {
    const throttle = new Throttle("s", {}, () => Date.now());
    const calls = start(throttle, 100);
    expect(calls.sent()).toBe(100);
    expect(throttle.rate).toBeUndefined();
  });

  it("then cuts the rate to beta of what the server took in a second, and paces the calls in order", async () => {
    const throttle = await cutAfter(20);
    // 20 answers in the busiest second: 0.7 × 20 = 14 calls a second.
    expect(throttle.rate).toBeCloseTo(14, 0);
    const calls = start(throttle, 14);
    // The bucket held one token at most; the rest go one every ~71 ms.
    expect(calls.sent()).toBeLessThanOrEqual(1);
    await vi.advanceTimersByTimeAsync(500);
    expect(calls.sent()).toBeGreaterThanOrEqual(6);
    expect(calls.sent()).toBeLessThanOrEqual(9);
    await vi.advanceTimersByTimeAsync(600);
    expect(calls.sent()).toBe(14);
    expect(await Promise.all(calls.settled)).toEqual(Array(14).fill("sent"));
  });

  it("grows the rate back along the CUBIC curve: to what the server took after K seconds, then past it", async () => {
    const throttle = await cutAfter(50);
    expect(throttle.rate).toBeCloseTo(35, 0);
    // K = cbrt(50 × 0.3 / 0.4) ≈ 3.35 s.
    vi.setSystemTime(Date.now() + 3347);
    expect(throttle.rate).toBeCloseTo(50, 0);
    vi.setSystemTime(Date.now() + 3000);
    expect(throttle.rate).toBeCloseTo(50 + 0.4 * 27, 0);
  });

  it("cuts once for the answers to attempts sent before the cut (the calls in flight)", async () => {
    const throttle = new Throttle("s", {}, () => Date.now());
    for (let i = 0; i < 40; i++) await throttle.run(ok, 1000, undefined, context);
    let refuse!: () => void;
    const inFlight = Array.from({ length: 5 }, () =>
      throttle.run(() => new Promise<never>((_, reject) => (refuse = () => reject(McpToolError.of("rate_limited", "HTTP 429", { status: 429 })))), 1000, undefined, context).catch(() => undefined),
    );
    // Each in-flight attempt is refused in turn; only the first refusal cuts.
    await throttle.run(limited(), 1000, undefined, context).catch(() => undefined);
    expect(throttle.rate).toBeCloseTo(28, 0);
    refuse();
    await Promise.all(inFlight.slice(-1));
    expect(throttle.rate).toBeCloseTo(28, 0);
  });

  it("fails a call whose turn would come past its bound at once: rate_limited, not sent, naming the wait", async () => {
    const throttle = await cutAfter(10);
    // 7 calls a second: the 8th in line waits about a second.
    start(throttle, 7);
    const error = await throttle.run(ok, 500, undefined, context).catch((e: unknown) => e);
    expect(isMcpToolError(error)).toBe(true);
    const e = error as McpToolError;
    expect([e.reason, e.outcome, e.transient]).toEqual(["rate_limited", "not_sent", false]);
    expect(e.message).toMatch(/would have waited 1\.\d s for its turn, longer than its 500 ms timeout/);
    expect(e.retryAfterMs).toBeGreaterThan(500);
    // The first had the bucket's one token; six wait, and the refused call took no place.
    expect(throttle.waiting).toBe(6);
  });

  it("holds the queue for the server's Retry-After", async () => {
    const throttle = new Throttle("s", {}, () => Date.now());
    for (let i = 0; i < 100; i++) await throttle.run(ok, 1000, undefined, context);
    await throttle.run(limited(1000), 5000, undefined, context).catch(() => undefined);
    const calls = start(throttle, 3);
    await vi.advanceTimersByTimeAsync(990);
    expect(calls.sent()).toBe(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(calls.sent()).toBeGreaterThanOrEqual(1);
  });

  it("ends a wait at once on the caller's abort (cancelled) and on the toolkit's close (closed), unsent, and frees the turn", async () => {
    const throttle = await cutAfter(10);
    const caller = new AbortController();
    const closing = new AbortController();
    const first = start(throttle, 3, 60_000, caller.signal);
    const second = start(throttle, 1, 60_000, closing.signal);
    caller.abort(new Error("user"));
    closing.abort(new ToolkitClosedError("s"));
    const reasons = (await Promise.all([...first.settled, ...second.settled])).map((r) => (isMcpToolError(r) ? `${r.reason}/${r.outcome}` : r));
    // The first may have had the bucket's one token and gone.
    expect(reasons.filter((r) => r === "cancelled/not_sent").length).toBeGreaterThanOrEqual(2);
    expect(reasons.at(-1)).toBe("closed/not_sent");
    expect(throttle.waiting).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("cuts for another process's cut as for its own: from what the server took from it, on the fleet's clock", async () => {
    const throttle = new Throttle("s", {}, () => Date.now());
    for (let i = 0; i < 20; i++) await throttle.run(ok, 1000, undefined, context);
    // The fleet cut from 50 calls a second, 1 s ago: this process cuts from its own 20.
    throttle.fleetCut(1000, 50);
    const k = Math.cbrt((20 * 0.3) / 0.4);
    expect(throttle.rate).toBeCloseTo(0.4 * (1 - k) ** 3 + 20, 1);
    // Its own 429 a moment later, from an attempt sent after the fleet's cut, cuts again.
    await throttle.run(limited(), 1000, undefined, context).catch(() => undefined);
    expect(throttle.rate).toBeLessThan(0.4 * (1 - k) ** 3 + 20);
  });

  it("starts from the cutter's rate when it sent nothing for two seconds, and ignores a fleet cut older than its own", async () => {
    const idle = new Throttle("s", {}, () => Date.now());
    idle.fleetCut(0, 30);
    expect(idle.rate).toBeCloseTo(21, 0);
    const cut = await cutAfter(10);
    cut.fleetCut(500, 40);
    expect(cut.rate).toBeCloseTo(7, 0);
  });

  it("shares its own cuts, once per burst, with the rate each started from", async () => {
    const throttle = new Throttle("s", {}, () => Date.now());
    const shared: number[] = [];
    throttle.useShared({ cut: (wMax) => shared.push(wMax) });
    for (let i = 0; i < 30; i++) await throttle.run(ok, 1000, undefined, context);
    await throttle.run(limited(), 1000, undefined, context).catch(() => undefined);
    expect(shared).toEqual([30]);
    // Another process's cut is not shared back.
    vi.setSystemTime(Date.now() + 5000);
    throttle.fleetCut(0, 30);
    expect(shared).toEqual([30]);
  });

  it("is built from the layers: true, an object over it, false or enabled: false off", () => {
    expect(throttleFor("s", undefined, undefined)).toBeUndefined();
    expect(throttleFor("s", true, undefined)).toBeInstanceOf(Throttle);
    expect(throttleFor("s", { beta: 0.5 }, false)).toBeUndefined();
    expect(throttleFor("s", { enabled: false }, { beta: 0.5 })).toBeUndefined();
    expect(throttleFor("s", { enabled: false }, true)).toBeInstanceOf(Throttle);
  });
});
