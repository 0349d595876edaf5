/**
 * The pipeline as one piece: errors made once per call and never shared, the caller's signal
 * through every stage, a cancel that tells the breaker nothing, and wrapTool under the same
 * policies as the toolkit's tools.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolMessage } from "@langchain/core/messages";
import { loadMcpTools } from "@langchain/mcp-adapters";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it, vi } from "vitest";
import { CircuitBreaker, McpToolkit, wrapTool, type McpEvent, type McpToolErrorJSON } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { buildProtocolErrorServer } from "../servers/fixture.js";
import { startHttpFixture } from "../servers/http.js";
import { stdioFixtureCommand } from "../servers/stdio.js";

const cleanups = closeAfterEach();

const call = (name: string, args: Record<string, unknown>, id = `call-${name}`) => ({ type: "tool_call" as const, id, name, args });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A toolkit on the HTTP fixture whose circuit opens after one 503 and half-opens after 300 ms. */
async function openCircuit() {
  const events: McpEvent[] = [];
  const http = await startHttpFixture();
  const toolkit = await McpToolkit.connect({
    servers: { remote: { transport: "http", url: http.url.href, breaker: { failureThreshold: 1, halfOpenAfterMs: 300 } } },
    retry: { retries: 0 },
    onEvent: (e) => events.push(e),
  });
  cleanups.push(() => http.close(), () => toolkit.close());
  http.failNext(503);
  expect(await toolkit.getTool("echo")!.invoke({ text: "x" })).toContain("(service_unavailable)");
  expect(toolkit.circuitState("remote")).toBe("open");
  await sleep(400);
  return { http, toolkit, events };
}

describe("errors are values made for one call", () => {
  it("gives each of two concurrent calls that wait on one failed reconnect its own tool name", async () => {
    // A wrapper script starts the stdio fixture; removing it makes the reconnect fail to spawn.
    const dir = mkdtempSync(join(tmpdir(), "mcp-shared-"));
    const script = join(dir, "server.sh");
    const { command, args } = stdioFixtureCommand();
    writeFileSync(script, `#!/bin/sh\nexec ${[command, ...args].map((a) => `'${a}'`).join(" ")}\n`);
    chmodSync(script, 0o755);
    const toolkit = await McpToolkit.connect({
      servers: { local: { transport: "stdio", command: script, breaker: { enabled: false } } },
      retry: { retries: 0 },
    });
    cleanups.push(() => toolkit.close());

    await toolkit.getTool("crash")!.invoke(call("crash", { code: 1 }));
    rmSync(dir, { recursive: true, force: true });

    const [echo, counter] = (await Promise.all([
      toolkit.getTool("echo")!.invoke(call("echo", { text: "a" })),
      toolkit.getTool("counter")!.invoke(call("counter", { key: "k" })),
    ])) as ToolMessage[];
    const [e1, e2] = [echo!.artifact as McpToolErrorJSON, counter!.artifact as McpToolErrorJSON];
    expect(e1).toMatchObject({ reason: "spawn_failed", toolName: "echo", serverName: "local" });
    expect(e2).toMatchObject({ reason: "spawn_failed", toolName: "counter", serverName: "local" });
    expect(echo!.content).toMatch(/^Error: Tool 'echo' failed \(spawn_failed\)/);
    expect(counter!.content).toMatch(/^Error: Tool 'counter' failed \(spawn_failed\)/);
  });
});

describe("the caller's signal through the breaker", () => {
  it("settles a call waiting behind a half-open test as cancelled at once when its caller aborts", async () => {
    const { http, toolkit } = await openCircuit();
    let testSettled = false;
    const test = toolkit
      .getTool("slow")!
      .invoke(call("slow", { ms: 3_000 }))
      .finally(() => (testSettled = true));
    await vi.waitFor(() => expect(http.state.calls).toContain("slow"));
    expect(toolkit.circuitState("remote")).toBe("half-open");

    const controller = new AbortController();
    const waiting = toolkit.getTool("echo")!.invoke(call("echo", { text: "queued" }), { signal: controller.signal });
    await sleep(50);
    controller.abort();
    const message = (await waiting) as ToolMessage;
    expect(testSettled).toBe(false);
    expect(message.artifact as McpToolErrorJSON).toMatchObject({ reason: "cancelled", outcome: "not_sent", toolName: "echo" });
    expect(http.state.calls).not.toContain("echo");
    await test;
  });

  it("leaves the circuit open when the half-open test call itself is cancelled", async () => {
    const { http, toolkit, events } = await openCircuit();
    const controller = new AbortController();
    const test = toolkit.getTool("slow")!.invoke(call("slow", { ms: 5_000 }), { signal: controller.signal });
    await vi.waitFor(() => expect(http.state.calls).toContain("slow"));
    controller.abort();
    expect(((await test) as ToolMessage).artifact as McpToolErrorJSON).toMatchObject({ reason: "cancelled" });

    expect(toolkit.circuitState("remote")).toBe("open");
    expect(events.filter((e) => e.type === "circuit_close")).toHaveLength(0);
    // The next call tests the server again; it is healthy, so now the circuit closes.
    expect(await toolkit.getTool("echo")!.invoke({ text: "back" })).toBe("back");
    expect(events.map((e) => e.type).filter((t) => t.startsWith("circuit") || t === "half_open")).toEqual([
      "circuit_open",
      "half_open",
      "half_open",
      "circuit_close",
    ]);
  });
});

describe("wrapTool runs under the same pipeline", () => {
  // The adapters rethrow an HTTP error without its status, but a JSON-RPC code survives in the
  // message: -32603 (internal_error) is the transient failure these tools meet.
  const down = { code: -32603, message: "index rebuilding" };

  async function adapterTool() {
    const http = await startHttpFixture({ build: () => buildProtocolErrorServer() });
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(http.url));
    cleanups.push(() => http.close(), () => client.close());
    const tools = await loadMcpTools("fixture", client);
    return { http, raise: tools.find((t) => t.name === "raise")! };
  }

  it("opens its circuit after repeated transient failures and stops calling the server", async () => {
    const { http, raise } = await adapterTool();
    const events: McpEvent[] = [];
    const wrapped = wrapTool(raise, { serverName: "fixture", retry: { retries: 0 }, breaker: { failureThreshold: 2, halfOpenAfterMs: 60_000 }, onEvent: (e) => events.push(e) });
    for (let i = 0; i < 2; i++) expect(await wrapped.invoke(down)).toContain("(internal_error)");
    const posts = http.posts;
    expect(await wrapped.invoke(down)).toContain("(circuit_open)");
    expect(http.posts).toBe(posts);
    expect(events.filter((e) => e.type === "circuit_open")).toHaveLength(1);
  });

  it("answers from its fallback function when the tool fails transiently, and says so", async () => {
    const { raise } = await adapterTool();
    const wrapped = wrapTool(raise, { serverName: "fixture", retry: { retries: 0 }, fallback: async (args) => `cached answer for ${String(args.message)}` });
    const reply = (await wrapped.invoke(call("raise", down))) as ToolMessage;
    expect(reply.status).toBe("success");
    expect(reply.content).toBe("[The primary server failed (internal_error); this answer came from the fallback function.]\ncached answer for index rebuilding");
  });

  it("shares one breaker between the wrapped tools of one server", async () => {
    const { http, raise } = await adapterTool();
    const breaker = new CircuitBreaker("fixture", { failureThreshold: 1, halfOpenAfterMs: 60_000 });
    const a = wrapTool(raise, { serverName: "fixture", retry: { retries: 0 }, breaker });
    const b = wrapTool(raise, { serverName: "fixture", retry: { retries: 0 }, breaker });
    expect(await a.invoke(down)).toContain("(internal_error)");
    const posts = http.posts;
    expect(await b.invoke(down)).toContain("(circuit_open)");
    expect(http.posts).toBe(posts);
  });
});

describe("typed events", () => {
  it("reports success with its duration, and on() returns a function that unsubscribes", async () => {
    const http = await startHttpFixture();
    const toolkit = await McpToolkit.connect({ servers: { remote: { transport: "http", url: http.url.href } } });
    cleanups.push(() => http.close(), () => toolkit.close());
    const successes: number[] = [];
    const off = toolkit.on("success", (e) => successes.push(e.durationMs));
    await toolkit.getTool("echo")!.invoke({ text: "one" });
    off();
    await toolkit.getTool("echo")!.invoke({ text: "two" });
    expect(successes).toHaveLength(1);
    expect(successes[0]).toBeGreaterThan(0);
  });
});
