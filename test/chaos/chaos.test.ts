import type { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it, vi } from "vitest";
import { McpToolkit, type McpToolErrorJSON } from "../../src/index.js";
import { startChaosHttp } from "../servers/chaos/http.js";
import { DEFAULT_MIX, expectedOutcome, faultFor, FAULTS, FAULT_INFO, firesOn } from "../servers/chaos/plan.js";
import { formatReport, runChaos } from "./run.js";
import { sleep } from "./support.js";

describe("the chaos plan", () => {
  it("deals each key the same fault for the same seed, and different faults across keys", () => {
    const keys = Array.from({ length: 500 }, (_, i) => `call-${i}`);
    const first = keys.map((k) => faultFor(1, k, "http"));
    expect(keys.map((k) => faultFor(1, k, "http"))).toEqual(first);
    expect(new Set(first).size).toBe(FAULTS.filter((f) => FAULT_INFO[f].transports.includes("http")).length);
    expect(keys.map((k) => faultFor(2, k, "http"))).not.toEqual(first);
  });

  it("never deals a fault the transport cannot produce", () => {
    for (let i = 0; i < 2000; i++) {
      expect(["http_429", "http_503", "socket_drop"]).not.toContain(faultFor(1, `k${i}`, "stdio"));
      expect(faultFor(1, `k${i}`, "http")).not.toBe("exit");
      expect(faultFor(1, `k${i}`, "memory", { ...DEFAULT_MIX, ok: 0 })).not.toMatch(/^(exit|socket_drop|http_)/);
    }
  });

  it("fires a transient fault on the first attempt only, a permanent one on every attempt", () => {
    expect([1, 2, 3].map((n) => firesOn("hang", n))).toEqual([true, false, false]);
    expect([1, 2, 3].map((n) => firesOn("malformed", n))).toEqual([true, true, true]);
  });

  it("expects a transient fault to be retried away only when repeating is safe", () => {
    expect(expectedOutcome("hang", true, 2)).toBe("ok");
    expect(expectedOutcome("hang", false, 2)).toBe("request_timeout");
    expect(expectedOutcome("http_429", false, 2)).toBe("ok");
    expect(expectedOutcome("http_429", false, 0)).toBe("rate_limited");
    expect(expectedOutcome("malformed", true, 2)).toBe("invalid_result");
  });
});

describe("chaos run: McpToolkit over stdio and streamable HTTP against the fault-injecting server", () => {
  // Seed 7 deals every fault to both tool flavours within 300 calls.
  it("settles every call once, classifies every fault as injected, runs non-idempotent tools at most once, and leaks nothing", async () => {
    const report = await runChaos({ calls: 300, seed: 7, concurrency: 8 });
    const broken = report.invariants.filter((i) => !i.ok);
    expect(broken, formatReport(report)).toEqual([]);
    expect(report.records).toHaveLength(300);
    const dealt = new Set(report.records.map((r) => `${r.fault}/${r.tool}`));
    expect(dealt.size, "every fault reached both tool flavours").toBe(FAULTS.length * 2);
  }, 180_000);
});

describe("a call that times out over streamable HTTP", () => {
  it.each([
    ["an event stream", false],
    ["a JSON body", true],
  ])("closes the response (%s) the server will never finish, so sockets do not pile up", async (_label, jsonResponse) => {
    const http = await startChaosHttp({ seed: 1, mix: { hang: 1 }, jsonResponse });
    const toolkit = await McpToolkit.connect({
      servers: { web: { transport: "http", url: http.url.href } },
      tools: { write: { timeoutMs: 300 } },
      retry: { retries: 0 },
      breaker: { enabled: false },
    });
    try {
      const replies = await Promise.all(
        Array.from({ length: 5 }, (_, i) => toolkit.getTool("write")!.invoke({ type: "tool_call", id: `t${i}`, name: "write", args: { key: `t${i}` } })),
      );
      for (const reply of replies) expect((reply as ToolMessage).artifact as McpToolErrorJSON).toMatchObject({ reason: "request_timeout" });
      // The server never answers a cancelled request; only the session's GET stream may stay open.
      for (let i = 0; i < 100 && http.openRequests > 1; i++) await sleep(30);
      expect(http.openRequests).toBeLessThanOrEqual(1);
      // …and each was told to stop (notifications/cancelled travels on its own POST).
      await vi.waitFor(() => {
        for (let i = 0; i < 5; i++) expect(http.ledger.get(`t${i}`).cancelled).toBe(1);
      }, 3_000);
      // The session still serves calls.
      const after = (await toolkit.getTool("read")!.invoke({ type: "tool_call", id: "t1", name: "read", args: { key: "t1" } })) as ToolMessage;
      expect(after.status, JSON.stringify(after.artifact)).toBe("success");
    } finally {
      await toolkit.close();
      await http.close();
    }
  });
});
