/**
 * The `chaos` option: each fault shape, injected at a rate of 1, gives the reason, outcome and
 * model text the real fault gives from the fault proxy (or, for `is_error`, from the server
 * itself), and names itself in the error's events and artifact. A real v1 SDK server over HTTP,
 * a real proxy in front for the real faults.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { McpToolkitConfig } from "../../src/index.js";
import { McpToolkit } from "../../src/index.js";
import { INJECTED_TOOL_ERROR } from "../../src/mcp/transport/chaos.js";
import { startFaultProxy, type ProxyFault } from "../servers/proxy/faultProxy.js";
import { stdioFixtureCommand } from "../servers/stdio.js";
import { closeLater, server, toolkitFor } from "../network/helpers.js";
import { everythingStdioCommand } from "../servers/tasks/everything.js";

/** Ports differ between the proxied and the direct server: the texts are compared without them. */
const portless = (text: string) => text.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT");

const single = { retry: { retries: 0 } } satisfies Partial<McpToolkitConfig>;

interface Shape {
  kind: "http_503" | "reset_before" | "reset_after" | "timeout";
  real: ProxyFault;
  /** Did the server run the tool? */
  ran: boolean;
}

const SHAPES: Shape[] = [
  { kind: "http_503", real: { kind: "status", when: "before", status: 503, body: "<html><body><h1>503 Service Unavailable</h1></body></html>", contentType: "text/html", headers: { "retry-after": "1" } }, ran: false },
  { kind: "reset_before", real: { kind: "reset" }, ran: false },
  { kind: "reset_after", real: { kind: "reset_mid_body" }, ran: true },
  { kind: "timeout", real: { kind: "stall" }, ran: false },
];

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("chaos, injected at a rate of 1, reads as the real fault", () => {
  it.each(SHAPES)("$kind: the reason, outcome and model text of the proxy's fault", async ({ kind, real, ran }) => {
    const http = await server();
    const proxy = closeLater(await startFaultProxy(http.url));
    const timeouts = kind === "timeout" ? { timeoutMs: 400 } : {};
    const viaProxy = await toolkitFor(proxy.url, timeouts, single);
    proxy.plan(real);
    const truth = await viaProxy.call("counter", { key: "real" });

    const injected = await toolkitFor(http.url, timeouts, { ...single, chaos: { rate: 1, faults: [kind] } });
    const chaos = await injected.call("counter", { key: "chaos" });

    expect(truth.status).toBe("error");
    expect(chaos.status).toBe("error");
    expect({ reason: chaos.error!.reason, outcome: chaos.error!.outcome, transient: chaos.error!.transient }).toEqual({ reason: truth.error!.reason, outcome: truth.error!.outcome, transient: truth.error!.transient });
    expect(portless(chaos.content)).toBe(portless(truth.content));
    // Whether the server ran it, as with the real fault.
    expect(http.state.executions.get("real") ?? 0).toBe(ran ? 1 : 0);
    expect(http.state.executions.get("chaos") ?? 0).toBe(ran ? 1 : 0);
    // Named where the app looks, never in the model's text.
    expect((chaos.error!.data as { chaos?: string }).chaos).toBe(kind);
    const event = injected.events.find((e) => e.type === "error");
    expect(event && "error" in event ? (event.error.data as { chaos?: string }).chaos : undefined).toBe(kind);
    expect(chaos.content).not.toContain("chaos");
  });

  it("is_error: the text and reason of a server's own isError answer, and the tool does not run", async () => {
    const http = await server();
    const plain = await toolkitFor(http.url, {}, single);
    const truth = await plain.call("fail", { message: INJECTED_TOOL_ERROR });
    const injected = await toolkitFor(http.url, {}, { ...single, chaos: { rate: 1, faults: ["is_error"] } });
    const chaos = await injected.call("fail", { message: "never sent" });
    expect(chaos.content).toBe(truth.content);
    expect({ reason: chaos.error!.reason, outcome: chaos.error!.outcome }).toEqual({ reason: truth.error!.reason, outcome: truth.error!.outcome });
    expect((chaos.error!.data as { chaos?: string }).chaos).toBe("is_error");
    expect(http.state.calls.filter((c) => c === "fail")).toHaveLength(1);
  });

  it("slow: the call waits, then runs; past the attempt's timeout the request is never sent", async () => {
    const http = await server();
    const slow = await toolkitFor(http.url, {}, { ...single, chaos: { rate: 1, faults: [{ kind: "slow", delayMs: 150 }] } });
    const started = performance.now();
    expect(await slow.call("counter", { key: "slow" })).toMatchObject({ status: "success", content: "count 1" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);

    const late = await toolkitFor(http.url, { timeoutMs: 200 }, { ...single, chaos: { rate: 1, faults: [{ kind: "slow", delayMs: 5_000 }] } });
    const timedOut = await late.call("counter", { key: "late" });
    expect(timedOut.error).toMatchObject({ reason: "request_timeout", data: { chaos: "slow" } });
    // Held back, then dropped with its cancellation: the server never heard of it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(http.state.executions.get("late") ?? 0).toBe(0);
  });

  it("retries an injected 503 as a real one: the second attempt rolls again", async () => {
    const http = await server();
    // Seeded: the first roll injects, the rate lets about half through.
    const { call, events } = await toolkitFor(http.url, {}, { retry: { retries: 10, minTimeout: 5, randomize: false, maxRetryAfterMs: 0 }, chaos: { rate: 0.5, faults: [{ kind: "http_503", retryAfterS: 0 }], seed: 7 } });
    const results = [];
    for (let i = 0; i < 10; i++) results.push(await call("echo", { text: `hi ${i}` }));
    expect(results.filter((r) => r.status !== "success")).toEqual([]);
    const retries = events.filter((e) => e.type === "retry");
    expect(retries.length).toBeGreaterThan(0);
    for (const r of retries) expect(r.type === "retry" && (r.error.data as { chaos?: string }).chaos).toBe("http_503");
  });
});

describe("chaos settings", () => {
  it("a tool policy's `false` turns off the toolkit's chaos for that tool", async () => {
    const http = await server();
    const { call } = await toolkitFor(http.url, {}, { ...single, chaos: { rate: 1, faults: ["is_error"] }, tools: { echo: { chaos: false } } });
    expect(await call("echo", { text: "calm" })).toMatchObject({ status: "success" });
    expect(await call("counter", { key: "k" })).toMatchObject({ status: "error", error: { data: { chaos: "is_error" } } });
  });

  it("is refused under NODE_ENV=production unless forced, naming the field", async () => {
    const http = await server();
    vi.stubEnv("NODE_ENV", "production");
    await expect(McpToolkit.connect({ servers: { remote: { transport: "http", url: http.url.href } }, tools: { echo: { chaos: { rate: 0.1 } } } })).rejects.toThrow(/tools\.echo\.chaos\.force.*NODE_ENV is production/);
    const forced = await McpToolkit.connect({ servers: { remote: { transport: "http", url: http.url.href } }, tools: { echo: { chaos: { rate: 1, faults: ["is_error"], force: true } } } });
    closeLater(forced);
    expect(forced.getTools().length).toBeGreaterThan(0);
  });

  it("refuses a fault a server's transport cannot carry, and over stdio the toolkit's chaos keeps the faults it can", async () => {
    const stdio = stdioFixtureCommand();
    await expect(McpToolkit.connect({ servers: { local: { transport: "stdio", ...stdio, chaos: { rate: 1, faults: ["is_error", "http_503"] } } } })).rejects.toThrow(/servers\.local\.chaos\.faults\[1\].*"http_503" needs an HTTP server/);
    const toolkit = closeLater(await McpToolkit.connect({ servers: { local: { transport: "stdio", ...stdio } }, retry: { retries: 0 }, chaos: { rate: 1, faults: ["http_503", "is_error"] } }));
    const reply = await toolkit.getTool("echo")!.invoke({ type: "tool_call", id: "1", name: "echo", args: { text: "x" } });
    expect(reply.artifact).toMatchObject({ reason: "tool_error", data: { chaos: "is_error" } });
  });

  it("rejects a rate outside 0..1 and an unknown fault, naming the field", async () => {
    const http = await server();
    const url = http.url.href;
    await expect(McpToolkit.connect({ servers: { remote: { transport: "http", url } }, chaos: { rate: 2 } })).rejects.toThrow(/chaos\.rate/);
    await expect(McpToolkit.connect({ servers: { remote: { transport: "http", url } }, chaos: { rate: 1, faults: ["flood" as "timeout"] } })).rejects.toThrow(/chaos/);
  });
});

describe("chaos against server-everything from npm (stdio), 16 calls at once", () => {
  it("injects into each attempt on its own: the faulted calls read the injected error, the others the server's answer", async () => {
    const toolkit = closeLater(await McpToolkit.connect({ servers: { everything: { transport: "stdio", ...everythingStdioCommand() } }, retry: { retries: 0 }, warnings: "silent", chaos: { rate: 0.5, faults: ["is_error", { kind: "slow", delayMs: 50 }], seed: 3 } }));
    const echo = toolkit.getTool("echo")!;
    const replies = await Promise.all(Array.from({ length: 16 }, (_, i) => echo.invoke({ type: "tool_call", id: `c${i}`, name: "echo", args: { message: `m${i}` } })));
    const failed = replies.filter((r) => r.status === "error");
    // Seeded: some of each, and every failure is the injected one, named in its artifact.
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.length).toBeLessThan(16);
    for (const r of failed) expect(r.artifact).toMatchObject({ reason: "tool_error", data: { chaos: "is_error" } });
    replies.forEach((r, i) => {
      if (r.status !== "error") expect(String(r.content)).toContain(`m${i}`);
    });
  });
});
