import type { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it, vi } from "vitest";
import { McpToolkit, type McpToolErrorJSON } from "../../src/index.js";
import { startChaosHttp } from "../servers/chaos/http.js";
import { DEFAULT_MIX, expectedOutcome, expectedVerdict, expectedWriteRuns, faultFor, FAULTS, FAULT_INFO, firesOn, RACE_PREFIX } from "../servers/chaos/plan.js";
import { combinations, dealer } from "./deal.js";
import { formatReport, runChaos } from "./run.js";
import { sleep } from "./support.js";

describe("the chaos plan", () => {
  it("deals each key the same fault for the same seed, and different faults across keys", () => {
    const keys = Array.from({ length: 2000 }, (_, i) => `call-${i}`);
    const first = keys.map((k) => faultFor(1, k, "http"));
    expect(keys.map((k) => faultFor(1, k, "http"))).toEqual(first);
    expect(new Set(first).size).toBe(FAULTS.filter((f) => DEFAULT_MIX[f] > 0 && FAULT_INFO[f].transports.includes("http")).length);
    expect(keys.map((k) => faultFor(2, k, "http"))).not.toEqual(first);
  });

  it("never deals a fault the transport cannot produce", () => {
    for (const transport of ["stdio", "http", "memory"] as const) {
      for (let i = 0; i < 2000; i++) {
        const fault = faultFor(1, `k${i}`, transport, { ...DEFAULT_MIX, ok: 0 });
        expect(FAULT_INFO[fault].transports, `${transport} got ${fault}`).toContain(transport);
      }
    }
  });

  it("deals the keep-alive race's keys no fault but the race, and never deals the race otherwise", () => {
    expect(faultFor(1, `${RACE_PREFIX}3`, "http")).toBe("keepalive_race");
    expect(combinations({ transports: ["stdio", "http"], mix: DEFAULT_MIX }).map((c) => c.fault)).not.toContain("keepalive_race");
  });

  it("deals every transport × tool × fault at least once, even in a short run, keeping each key's fault", () => {
    const options = { seed: 3, calls: 120, transports: ["stdio", "http"] as ("stdio" | "http")[], mix: DEFAULT_MIX };
    const deal = dealer(options);
    const deals = Array.from({ length: options.calls }, (_, i) => deal(i));
    const seen = new Set(deals.map((d) => `${d.transport}/${d.tool}/${d.fault}`));
    expect(seen.size).toBe(combinations(options).length);
    for (const d of deals) expect(faultFor(options.seed, d.key, d.transport)).toBe(d.fault);
    expect(new Set(deals.map((d) => d.key)).size).toBe(options.calls);
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

  it("expects what ERRORS.md says of a proxy's failure: never not_sent after forwarding, and a 502 is no proof either way", () => {
    expect(expectedVerdict("proxy_502_after", false, 2)).toEqual({ reason: "server_error", outcome: "unknown", status: 502, attempts: 1 });
    expect(expectedVerdict("proxy_502_before", false, 2)).toEqual({ reason: "server_error", outcome: "unknown", status: 502, attempts: 1 });
    expect(expectedVerdict("proxy_503_after", false, 2)).toMatchObject({ reason: "server_error", outcome: "unknown" });
    expect(expectedVerdict("cf_522_before", false, 2)).toEqual({ reason: "ok" });
    expect(expectedVerdict("cf_524_after", true, 2)).toEqual({ reason: "ok" });
    expect(expectedVerdict("html_200", true, 2)).toEqual({ reason: "unexpected_response", outcome: "unknown", status: 200, attempts: 1 });
    expect(expectedVerdict("cf_522_before", false, 2, 3)).toEqual({ reason: "service_unavailable", outcome: "not_sent", status: 522, attempts: 3 });
  });

  it("expects a write to run once when the fault came after the tool, never when it came before", () => {
    expect(expectedWriteRuns("proxy_502_after", 2)).toBe(1);
    expect(expectedWriteRuns("proxy_502_before", 2)).toBe(0);
    expect(expectedWriteRuns("stall", 2)).toBe(0);
    expect(expectedWriteRuns("reset_mid_body", 2)).toBe(1);
    expect(expectedWriteRuns("cf_521_before", 2)).toBe(1);
    expect(expectedWriteRuns("protocol_invalid_params", 2)).toBe(0);
  });
});

describe("chaos run: McpToolkit over stdio, and over streamable HTTP behind a fault proxy, against the fault-injecting server", () => {
  it("settles every call once, classifies every fault as injected, runs non-idempotent tools at most once, survives the keep-alive race, and leaks nothing", async () => {
    const report = await runChaos({ calls: 300, seed: 7, concurrency: 8, raceWrites: 5 });
    const broken = report.invariants.filter((i) => !i.ok);
    expect(broken, formatReport(report)).toEqual([]);
    expect(report.records).toHaveLength(305);
    const dealt = new Set(report.records.map((r) => `${r.fault}/${r.tool}`));
    // Every fault on both flavours, but the race, which is writes only.
    expect(dealt.size, "every fault reached both tool flavours").toBe(FAULTS.length * 2 - 1);
    // A busy machine stretches the calibrated timeout, and the run with it.
  }, 400_000);
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
