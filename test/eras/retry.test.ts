/**
 * The retry rules and reconnection in both protocol eras, end to end against real servers
 * (./targets.ts). ERRORS.md: a retry is safe when the error is transient and either nothing was
 * sent (`not_sent`) or the tool is idempotent (trusted annotations, or a tool policy). The
 * 2026-07-28 spec lets a client re-issue a request whose outcome it does not know only when the
 * tool tolerates it: here that is `retry: { retryUnknownOutcome: true }` on the tool's policy.
 *
 * `counter` is not idempotent and counts its executions per key; `echo` is read-only and
 * idempotent by its annotations.
 */
import { describe, expect, it } from "vitest";
import type { McpEvent } from "../../src/index.js";
import { useCleanup } from "../errors/helpers.js";
import type { ProxyFault } from "../servers/proxy/faultProxy.js";
import { HTTP, LEGACY_STDIO, MODERN_STDIO, open, SERVER, STDIO, type OpenOptions, type Opened } from "./targets.js";

const defer = useCleanup();

const RETRIES = { retries: 2, minTimeout: 5, maxTimeout: 5_000, randomize: false };
const retrying: OpenOptions = { toolkit: { retry: RETRIES } };

/** The reason and outcome of each failed attempt that was retried. */
function retried(events: McpEvent[]): string[] {
  return events.flatMap((e) => (e.type === "retry" ? [`${e.error.reason}/${e.error.outcome}`] : []));
}

function executions(o: Opened, key: string): number | undefined {
  return o.upstream!.state.executions.get(key);
}

/** Failures after which the server may have run the tool: its answer was lost on the way back. */
const UNKNOWN_OUTCOME: Array<[string, ProxyFault]> = [
  ["the answer stream broke after the server ran the tool", { kind: "reset_mid_body" }],
  ["a 502 after the proxy forwarded the call", { kind: "status", when: "after", status: 502, body: "Bad Gateway" }],
];

describe.each(HTTP)("$name: the retry rules", (target) => {
  it("retries a transient failure before the tool ran (the server answers 503) even for the non-idempotent counter, which runs once", async () => {
    const o = await open(target, defer, retrying);
    o.upstream!.failNext(503);
    expect(await o.call("counter", { key: "k" })).toEqual({ status: "success", content: "count 1" });
    expect(executions(o, "k")).toBe(1);
    expect(retried(o.events)).toEqual(["service_unavailable/not_sent"]);
  });

  describe.each(UNKNOWN_OUTCOME)("after an unknown outcome: %s", (_what, fault) => {
    it("does not repeat counter by default: the server ran it once, and the model is told to check", async () => {
      const o = await open(target, defer, { ...retrying, proxy: true });
      o.proxy!.plan(fault, { key: "k" });
      const reply = await o.call("counter", { key: "k" });
      expect(reply.error).toMatchObject({ transient: true, outcome: "unknown", attempts: 1 });
      expect(reply.error!.reason).toBe(fault.kind === "status" ? "server_error" : "stream_error");
      expect(reply.content).toContain("outcome is unknown");
      expect(executions(o, "k")).toBe(1);
      expect(retried(o.events)).toEqual([]);
    });

    it("repeats counter when its tool policy says retryUnknownOutcome: true: the server runs it twice", async () => {
      const o = await open(target, defer, { proxy: true, toolkit: { retry: RETRIES, tools: { counter: { retry: { retryUnknownOutcome: true } } } } });
      o.proxy!.plan(fault, { key: "k" });
      expect(await o.call("counter", { key: "k" })).toEqual({ status: "success", content: "count 2" });
      expect(executions(o, "k")).toBe(2);
      expect(retried(o.events)).toHaveLength(1);
      expect(retried(o.events)[0]).toMatch(/\/unknown$/);
    });

    it("repeats the idempotent echo when the server's annotations are trusted", async () => {
      const o = await open(target, defer, { ...retrying, proxy: true, server: { trustAnnotations: true } });
      o.proxy!.plan(fault);
      expect(await o.call("echo", { text: "again" })).toEqual({ status: "success", content: "again" });
      expect(o.upstream!.state.calls.filter((c) => c === "echo")).toHaveLength(2);
    });

    it("does not repeat echo when annotations are untrusted (the default)", async () => {
      const o = await open(target, defer, { ...retrying, proxy: true });
      o.proxy!.plan(fault);
      const reply = await o.call("echo", { text: "once" });
      expect(reply.error).toMatchObject({ transient: true, outcome: "unknown", attempts: 1 });
      expect(o.upstream!.state.calls.filter((c) => c === "echo")).toHaveLength(1);
    });
  });
});

describe.each([MODERN_STDIO, LEGACY_STDIO])("$name: the retry rules over stdio", (target) => {
  it("retries a transient not_sent failure (a JSON-RPC 429) up to its limit", async () => {
    const o = await open(target, defer, { ...retrying, kind: "protocol" });
    const reply = await o.call("raise", { code: 429, message: "slow down" });
    expect(reply.error).toMatchObject({ reason: "rate_limited", outcome: "not_sent", attempts: 3 });
    expect(retried(o.events)).toEqual(["rate_limited/not_sent", "rate_limited/not_sent"]);
  });

  it("does not repeat an unknown-outcome failure (-32603) of a tool not known to be idempotent", async () => {
    const o = await open(target, defer, { ...retrying, kind: "protocol" });
    const reply = await o.call("raise", { code: -32603, message: "database down" });
    expect(reply.error).toMatchObject({ reason: "internal_error", outcome: "unknown", attempts: 1 });
    expect(retried(o.events)).toEqual([]);
  });

  it("repeats it when the tool's policy says retryUnknownOutcome: true", async () => {
    const o = await open(target, defer, { kind: "protocol", toolkit: { retry: RETRIES, tools: { raise: { retry: { retryUnknownOutcome: true } } } } });
    const reply = await o.call("raise", { code: -32603, message: "database down" });
    expect(reply.error).toMatchObject({ reason: "internal_error", outcome: "unknown", attempts: 3 });
    expect(retried(o.events)).toEqual(["internal_error/unknown", "internal_error/unknown"]);
  });
});

describe.each(STDIO)("$name: reconnection", (target) => {
  it("reconnects after the process crashed, in the same era, and the next call succeeds", async () => {
    const o = await open(target, defer);
    const crashed = await o.fail("crash", { code: 3 });
    expect(crashed).toMatchObject({ reason: "connection_closed", outcome: "unknown" });
    expect(o.toolkit.protocolEra(SERVER)).toBeUndefined();
    expect(await o.call("echo", { text: "back" })).toEqual({ status: "success", content: "back" });
    // The 2026-07-28 process refuses 2025 openings: only a reconnect in its own era gets through.
    expect(o.toolkit.protocolEra(SERVER)).toBe(target.era);
    expect(o.events.filter((e) => e.type === "reconnect")).toHaveLength(1);
    expect(o.executed()).toEqual(["crash", "echo"]);
  });
});

describe.each(HTTP)("$name: reconnection", (target) => {
  it("the next call after the server restarts on the same port succeeds, in the same era, and a non-idempotent tool runs once", async () => {
    // keepAliveCheckAfterMs 0: the pooled socket the restart killed is found by the check, not by
    // the call (otherwise the call may meet it first: connection_reset with an unknown outcome).
    const o = await open(target, defer, { ...retrying, server: { keepAliveCheckAfterMs: 0 } });
    expect(await o.call("counter", { key: "k" })).toEqual({ status: "success", content: "count 1" });
    await o.upstream!.restart();
    expect(await o.call("counter", { key: "k" })).toEqual({ status: "success", content: "count 2" });
    expect(executions(o, "k")).toBe(2);
    expect(o.toolkit.protocolEra(SERVER)).toBe(target.era);
    if (target.era === "legacy") {
      // The restarted server has no session: its 404 is not_sent, so even counter is re-sent after re-initializing.
      expect(retried(o.events)).toEqual(["session_expired/not_sent"]);
      expect(o.events.filter((e) => e.type === "reconnect")).toHaveLength(1);
      expect(o.upstream!.sessionCount).toBe(1);
    } else {
      // 2026-07-28 has no session to lose: the restarted server simply answers.
      expect(retried(o.events)).toEqual([]);
      expect(o.events.filter((e) => e.type === "reconnect")).toHaveLength(0);
    }
  });

  it("with default settings, the idempotent echo on a trusted server succeeds right after a restart", async () => {
    const o = await open(target, defer, { ...retrying, server: { trustAnnotations: true } });
    expect(await o.call("echo", { text: "one" })).toEqual({ status: "success", content: "one" });
    await o.upstream!.restart();
    expect(await o.call("echo", { text: "two" })).toEqual({ status: "success", content: "two" });
    expect(o.toolkit.protocolEra(SERVER)).toBe(target.era);
    // Whether the pooled socket noticed the restart before the call is a race: either failure is retried.
    for (const r of retried(o.events)) expect(["session_expired/not_sent", "connection_reset/unknown"]).toContain(r);
  });
});
