/**
 * The recovery ping's rule, on the breaker alone (the pure decision; the whole path, a real
 * server behind a gateway answering 503, is test/restart/recoveryPing.test.ts): which openings
 * are pinged, what an answer does, when pings stop. The open periods here are 60 s, so any call
 * let through before that was let through by a ping's answer.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { McpToolError } from "../../src/errors/McpToolError.js";
import { CircuitBreaker } from "../../src/policy/CircuitBreaker.js";
import type { CallContext } from "../../src/policy/abort.js";

const context: CallContext = { toolName: "t", serverName: "s" };
const LONG = { failureThreshold: 1, initialHalfOpenAfterMs: 60_000, halfOpenAfterMs: 60_000, halfOpenJitter: 0, recoveryPingMs: 20 };

/**
 * Every breaker's pinging ends with its test, as the toolkit's close ends it: a ping loop left
 * running would schedule its next timer inside a later file's fake clock (the shared-modules
 * project runs files one after another in one process).
 */
const closings: AbortController[] = [];
afterEach(() => {
  for (const closing of closings.splice(0)) closing.abort();
});

/** A breaker whose pings the test answers: `up` decides the answer; `pings` counts them. */
function breakerWith(options: object = {}) {
  const state = { up: false, pings: 0 };
  const closing = new AbortController();
  closings.push(closing);
  const breaker = new CircuitBreaker("s", { ...LONG, ...options }, {
    ping: async () => {
      state.pings++;
      return state.up;
    },
    closing: closing.signal,
  });
  const fail = (error: McpToolError) => breaker.execute(() => Promise.reject(error), undefined, context).catch((e: unknown) => e);
  const succeed = () => breaker.execute(() => Promise.resolve("ok"), undefined, context).catch((e: unknown) => e);
  return { breaker, state, closing, fail, succeed };
}

const unavailable = () => McpToolError.of("service_unavailable", "HTTP 503", { serverName: "s" });
const internal = () => McpToolError.of("internal_error", "MCP error -32603: boom", { serverName: "s" });
const timedOut = () => McpToolError.of("request_timeout", "timed out", { serverName: "s" });

describe("the recovery ping", () => {
  it("pings a server whose circuit opened on a 503, and its first answer lets the next call test it; only that call's success closes the circuit", async () => {
    const { breaker, state, fail, succeed } = breakerWith();
    await fail(unavailable());
    expect(breaker.state).toBe("open");
    await vi.waitFor(() => expect(state.pings).toBeGreaterThanOrEqual(2));
    // Unanswered pings leave it open: a call is refused without running.
    expect(await succeed()).toMatchObject({ reason: "circuit_open" });
    state.up = true;
    await vi.waitFor(() => expect(breaker.remainingOpenMs).toBe(0));
    expect(breaker.state).toBe("open");
    const pings = state.pings;
    expect(await succeed()).toBe("ok");
    expect(breaker.state).toBe("closed");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(state.pings, "no ping once closed").toBe(pings);
  });

  it("sends at most one ping per recoveryPingMs", async () => {
    const { state, fail } = breakerWith({ recoveryPingMs: 100 });
    await fail(unavailable());
    const started = performance.now();
    await vi.waitFor(() => expect(state.pings).toBeGreaterThanOrEqual(3));
    // Three pings, one per 100 ms at most: the third no sooner than 300 ms after the opening.
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
  });

  it("does not ping where the tool's own error opened the circuit: the open period keeps its rule", async () => {
    const { breaker, state, fail, succeed } = breakerWith();
    await fail(internal());
    state.up = true;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(state.pings).toBe(0);
    expect(await succeed()).toMatchObject({ reason: "circuit_open" });
    expect(breaker.remainingOpenMs).toBeGreaterThan(50_000);
  });

  it("does not ping where a failure rate opened the circuit: a server failing some calls answers every ping", async () => {
    // 3 failures in 5 calls reach failureRate 0.5 over the window of 5; no three in a row.
    const { breaker, state, fail, succeed } = breakerWith({ failureThreshold: 100, failureRate: 0.5, minimumCalls: 5, window: { calls: 5 } });
    for (const step of [fail, succeed, fail, succeed, fail]) await (step === fail ? fail(unavailable()) : succeed());
    expect(breaker.state).toBe("open");
    state.up = true;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(state.pings).toBe(0);
    expect(breaker.remainingOpenMs).toBeGreaterThan(50_000);
  });

    it("does not ping with recoveryPingMs: 0", async () => {
    const { state, fail } = breakerWith({ recoveryPingMs: 0 });
    await fail(unavailable());
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(state.pings).toBe(0);
  });

  it("stops pinging after a timeout that follows an answered ping: the server answers, its tool does not", async () => {
    const { breaker, state, fail } = breakerWith();
    await fail(timedOut());
    state.up = true;
    await vi.waitFor(() => expect(breaker.remainingOpenMs).toBe(0));
    // The test call times out again: the ping's answer told nothing about the tool.
    expect(await fail(timedOut())).toMatchObject({ reason: "request_timeout" });
    expect(breaker.state).toBe("open");
    const pings = state.pings;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(state.pings).toBe(pings);
    expect(breaker.remainingOpenMs).toBeGreaterThan(50_000);
  });

  it("stops pinging when the toolkit closes", async () => {
    const { state, closing, fail } = breakerWith();
    await fail(unavailable());
    await vi.waitFor(() => expect(state.pings).toBeGreaterThanOrEqual(1));
    closing.abort();
    const pings = state.pings;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(state.pings).toBe(pings);
  });

  it("wakes a caller sleeping out the open period when a ping answers", async () => {
    const { breaker, state, fail } = breakerWith();
    await fail(unavailable());
    // This caller may wait the whole period (maxWaitMs 120 s): it sleeps until the ping's answer.
    const waiting = breaker.execute(() => Promise.resolve("tested"), undefined, context, 120_000);
    state.up = true;
    expect(await waiting).toBe("tested");
    expect(breaker.state).toBe("closed");
  });
});
