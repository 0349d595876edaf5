/**
 * A server's stated wait is kept with jitter that only adds: never earlier than asked, at most
 * 10 % (1 s at most) later. The Retry-After gate, which holds every call to a server while its
 * wait runs, keeps the same rule.
 */
import { describe, expect, it } from "vitest";
import { McpToolError } from "../../src/errors/McpToolError.js";
import { RetryAfterGate, serverWait } from "../../src/policy/RetryAfterGate.js";

describe("serverWait", () => {
  it("is never less than the wait asked, and adds at most 10 % or 1 s", () => {
    expect(serverWait(250, () => 0)).toBe(250);
    expect(serverWait(250, () => 0.999)).toBe(275);
    expect(serverWait(60_000, () => 1)).toBe(61_000);
    for (let i = 0; i < 200; i++) {
      const wait = serverWait(1_000);
      expect(wait).toBeGreaterThanOrEqual(1_000);
      expect(wait).toBeLessThanOrEqual(1_100);
    }
  });
});

describe("the Retry-After gate's wait", () => {
  it("holds a call at least the remaining wait, plus the jitter, never less", async () => {
    let now = 0;
    const gate = new RetryAfterGate("s", () => now, () => 1);
    gate.note(McpToolError.of("rate_limited", "slow down", { retryAfterMs: 200 }));
    const started = performance.now();
    await gate.pass(60_000, undefined, { toolName: "t" });
    // 200 ms asked, 20 ms of jitter at most: the lower bound is the point, the upper generous.
    expect(performance.now() - started).toBeGreaterThanOrEqual(215);
    now = 10_000;
    expect(gate.remainingMs).toBe(0);
  });

  it("refuses at once, naming the wait, when it is past the call's maxRetryAfterMs", async () => {
    const gate = new RetryAfterGate("s", () => 0);
    gate.note(McpToolError.of("rate_limited", "slow down", { retryAfterMs: 90_000 }));
    await expect(gate.pass(60_000, undefined, { toolName: "t" })).rejects.toMatchObject({ reason: "rate_limited", outcome: "not_sent", message: "Server 's' asked callers to wait; 90 s of that wait remain." });
  });
});
