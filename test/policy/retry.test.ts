import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it, vi } from "vitest";
import { McpToolkit, type McpEvent, type McpToolErrorJSON, type McpToolkitConfig } from "../../src/index.js";
import { startHttpFixture, type HttpFixture } from "../servers/http.js";
import { stdioFixtureCommand } from "../servers/stdio.js";
import { closeAfterEach } from "../servers/cleanups.js";

const cleanups = closeAfterEach();

const call = (name: string, args: Record<string, unknown>, id = "call-1") => ({ type: "tool_call" as const, id, name, args });
const fast = { minTimeout: 5, maxTimeout: 5000, randomize: false };

async function httpToolkit(config: Partial<McpToolkitConfig> & { trust?: boolean } = {}) {
  const events: McpEvent[] = [];
  const http = await startHttpFixture();
  const { trust, ...rest } = config;
  const toolkit = await McpToolkit.connect({
    servers: { remote: { transport: "http", url: http.url.href, trustAnnotations: trust ?? false } },
    retry: fast,
    onEvent: (e) => events.push(e),
    ...rest,
  });
  cleanups.push(() => http.close(), () => toolkit.close());
  return { toolkit, http, events };
}

describe("retries", () => {
  it("retries a 503 twice and the third attempt's answer reaches the model", async () => {
    const { toolkit, http, events } = await httpToolkit();
    http.failNext(503, { count: 2 });
    const reply = (await toolkit.getTool("echo")!.invoke(call("echo", { text: "third time" }))) as ToolMessage;
    expect(reply.status).toBe("success");
    expect(reply.content).toBe("third time");
    const retries = events.filter((e) => e.type === "retry");
    expect(retries.map((e) => [e.attempt, e.error?.reason, e.error?.status])).toEqual([
      [1, "service_unavailable", 503],
      [2, "service_unavailable", 503],
    ]);
    // Without jitter the delays are exactly minTimeout × factor^(n-1).
    expect(retries.map((e) => e.delayMs)).toEqual([5, 10]);
    expect(http.state.calls).toEqual(["echo"]);
  });

  it("gives up after the configured retries and says how many attempts were made", async () => {
    const { toolkit, http, events } = await httpToolkit({ retry: { ...fast, retries: 1 } });
    http.failNext(503, { count: 5 });
    const reply = (await toolkit.getTool("echo")!.invoke(call("echo", { text: "x" }))) as ToolMessage;
    expect(reply.status).toBe("error");
    expect(reply.content).toMatch(/^Error: Tool 'echo' failed \(service_unavailable\) after 2 attempts: /);
    expect(reply.content).toContain("Retries are exhausted");
    expect((reply.artifact as McpToolErrorJSON).attempts).toBe(2);
    const final = events.at(-1)!;
    expect(final).toMatchObject({ type: "error", attempt: 2 });
  });

  it("honours Retry-After, measured by the delay in the retry event", async () => {
    const { toolkit, http, events } = await httpToolkit();
    http.failNext(429, { retryAfter: "1" });
    expect(await toolkit.getTool("echo")!.invoke({ text: "later" })).toBe("later");
    const retry = events.find((e) => e.type === "retry")!;
    expect(retry.error).toMatchObject({ reason: "rate_limited", status: 429, retryAfterMs: 1000 });
    expect(retry.delayMs).toBe(1000);
  });

  it("gives up with a clear message when Retry-After exceeds maxTimeout", async () => {
    const { toolkit, http, events } = await httpToolkit({ retry: { ...fast, maxTimeout: 500 } });
    http.failNext(429, { retryAfter: "120" });
    const text = (await toolkit.getTool("echo")!.invoke({ text: "x" })) as string;
    expect(text).toContain("(rate_limited)");
    expect(text).toContain("asked to wait 120 s");
    expect(events.some((e) => e.type === "retry")).toBe(false);
  });

  it("does not retry a permanent failure", async () => {
    const { toolkit, http, events } = await httpToolkit();
    http.failNext(400, { body: "malformed" });
    const text = (await toolkit.getTool("echo")!.invoke({ text: "x" })) as string;
    expect(text).toContain("(http_error)");
    expect(events.some((e) => e.type === "retry")).toBe(false);
  });

  it("retries isError results only when retryOnToolError matches", async () => {
    const { toolkit, http } = await httpToolkit({ tools: { flaky: { retry: { retryOnToolError: /temporarily unavailable/ } } } });
    http.state.failuresLeft.set("k", 2);
    expect(await toolkit.getTool("flaky")!.invoke({ key: "k" })).toBe("ok k");
    http.state.failuresLeft.set("j", 1);
    const other = await McpToolkit.connect({ servers: { remote: { transport: "http", url: http.url.href } }, retry: fast });
    cleanups.push(() => other.close());
    expect(await other.getTool("flaky")!.invoke({ key: "j" })).toMatch(/\(tool_error\)/);
  });
});

describe("safe repeats when the connection drops mid-call", () => {
  function stdioToolkit(trust: boolean, events: McpEvent[]) {
    const log = join(mkdtempSync(join(tmpdir(), "mcp-")), "calls.log");
    const promise = McpToolkit.connect({
      servers: { local: { transport: "stdio", ...stdioFixtureCommand(), env: { FIXTURE_LOG: log }, trustAnnotations: trust } },
      retry: fast,
      onEvent: (e) => events.push(e),
    });
    return { promise, executions: () => readFileSync(log, "utf8").trim().split("\n") };
  }

  it("runs a non-idempotent tool exactly once and tells the model the outcome is unknown", async () => {
    const events: McpEvent[] = [];
    const { promise, executions } = stdioToolkit(true, events);
    const toolkit = await promise;
    cleanups.push(() => toolkit.close());
    const reply = (await toolkit.getTool("transfer")!.invoke(call("transfer", { key: "t1", amount: 100 }))) as ToolMessage;
    expect(reply.status).toBe("error");
    expect((reply.artifact as McpToolErrorJSON)).toMatchObject({ reason: "connection_closed", outcome: "unknown", attempts: 1 });
    expect(reply.content).toContain("The outcome is unknown");
    expect(executions()).toEqual(["transfer"]);
    expect(events.some((e) => e.type === "retry")).toBe(false);
  });

  it("retries a read-only tool on a trusted server after the connection drops", async () => {
    const events: McpEvent[] = [];
    const { promise, executions } = stdioToolkit(true, events);
    const toolkit = await promise;
    cleanups.push(() => toolkit.close());
    const reply = (await toolkit.getTool("lookup")!.invoke(call("lookup", { key: "r1" }))) as ToolMessage;
    expect(reply.status).toBe("success");
    expect(reply.content).toBe("found r1");
    expect(executions()).toEqual(["lookup", "lookup"]);
    expect(events.filter((e) => e.type === "retry").map((e) => e.error?.reason)).toEqual(["connection_closed"]);
  });

  it("does not trust a read-only annotation from an untrusted server", async () => {
    const events: McpEvent[] = [];
    const { promise, executions } = stdioToolkit(false, events);
    const toolkit = await promise;
    cleanups.push(() => toolkit.close());
    const reply = (await toolkit.getTool("lookup")!.invoke(call("lookup", { key: "r2" }))) as ToolMessage;
    expect(reply.status).toBe("error");
    expect(executions()).toEqual(["lookup"]);
  });

  it("retries a tool the config declares idempotent, whatever its annotations", async () => {
    const events: McpEvent[] = [];
    const log = join(mkdtempSync(join(tmpdir(), "mcp-")), "calls.log");
    const toolkit = await McpToolkit.connect({
      servers: { local: { transport: "stdio", ...stdioFixtureCommand(), env: { FIXTURE_LOG: log } } },
      retry: fast,
      tools: { "local/transfer": { idempotent: true } },
      onEvent: (e) => events.push(e),
    });
    cleanups.push(() => toolkit.close());
    expect(await toolkit.getTool("transfer")!.invoke({ key: "t2", amount: 5 })).toBe("transferred 5");
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["transfer", "transfer"]);
  });

  it("classifies a streamable-HTTP response stream that breaks mid-call without waiting for the timeout", async () => {
    let http: HttpFixture | undefined;
    const { toolkit, http: h } = await httpToolkit({ timeoutMs: 20_000 });
    http = h;
    const reply = (await toolkit.getTool("transfer")!.invoke(call("transfer", { key: "h1", amount: 1 }))) as ToolMessage;
    expect(reply.status).toBe("error");
    const artifact = reply.artifact as McpToolErrorJSON;
    expect(artifact.outcome).toBe("unknown");
    expect(["stream_error", "connection_reset"]).toContain(artifact.reason);
    expect(http.state.executions.get("h1")).toBe(1);
  });
});

describe("a streamable-HTTP response stream that breaks after it started", () => {
  it("ends the call with stream_error at once instead of waiting for the timeout", async () => {
    const { toolkit, http, events } = await httpToolkit({
      timeoutMs: 25_000,
      retry: { ...fast, retries: 0 },
      tools: { slow: { resetTimeoutOnProgress: true } },
    });
    const pending = toolkit.getTool("slow")!.invoke(call("slow", { ms: 60_000, progressEveryMs: 50 }));
    // Progress notifications mean the SSE response has started; then the socket dies.
    await vi.waitFor(() => expect(http.state.calls).toContain("slow"));
    await new Promise((r) => setTimeout(r, 300));
    http.dropInFlight();
    const reply = (await pending) as ToolMessage;
    expect(reply.artifact as McpToolErrorJSON).toMatchObject({ reason: "stream_error", outcome: "unknown" });
    expect(events.at(-1)!.type).toBe("error");
  });
});
