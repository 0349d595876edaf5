/**
 * The connection's lifecycle: what a failed connect leaves behind, what close() tells the server,
 * what a call after close() gets, and that a user's own client is left exactly as it was found.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { createMcpTools, McpToolkit } from "../../src/index.js";
import { childPids } from "../chaos/support.js";
import { stdioFixtureCommand } from "../servers/stdio.js";
import { cleanups, server, toolkitFor } from "./helpers.js";

describe("connect()", () => {
  it("has stopped the process it started by the time a timed-out connect rejects", async () => {
    // Which processes, not how many: a process another test file started in this worker may exit meanwhile.
    const before = new Set(childPids());
    const error = await McpToolkit.connect({
      servers: { mute: { transport: "stdio", command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"], connectTimeoutMs: 300 } },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: "network_timeout", serverName: "mute" });
    // At once, not eventually: an app that exits on this rejection leaves no orphan.
    expect(childPids().filter((pid) => !before.has(pid)), "children started by this connect and still running").toEqual([]);
  });
});

describe("close()", () => {
  it("ends the server's session with an HTTP DELETE", async () => {
    const http = await server();
    const { toolkit, call } = await toolkitFor(http.url);
    await call("echo", { text: "x" });
    expect(http.sessionCount).toBe(1);
    await toolkit.close();
    expect(http.sessionCount).toBe(0);
  });

  it("fails a call made after close() at once with `closed`, never retried", async () => {
    const http = await server();
    const { toolkit, call, events } = await toolkitFor(http.url);
    await toolkit.close();
    const reply = await call("counter", { key: "k" });
    expect(reply.error).toMatchObject({ reason: "closed", kind: "client", transient: false, outcome: "not_sent", attempts: 1 });
    expect(events.filter((e) => e.type === "retry")).toEqual([]);
    expect(http.state.executions.get("k")).toBeUndefined();
  });

  it("fails a call in flight when the toolkit closes with `closed`, outcome unknown", async () => {
    const http = await server();
    const { toolkit, call } = await toolkitFor(http.url);
    const inFlight = call("slow", { ms: 30_000 });
    await expect.poll(() => http.state.calls.includes("slow"), { timeout: 10_000 }).toBe(true);
    await toolkit.close();
    expect((await inFlight).error).toMatchObject({ reason: "closed", outcome: "unknown" });
  });
});

describe("a client the user connected", () => {
  it("keeps its own onclose and onerror, however many times tools are made from it", async () => {
    const http = await server();
    const client = new Client({ name: "mine", version: "1" });
    const onclose = () => {};
    const onerror = () => {};
    client.onclose = onclose;
    client.onerror = onerror;
    await client.connect(new StreamableHTTPClientTransport(http.url));
    cleanups.push(() => client.close());
    for (let i = 0; i < 3; i++) {
      const tools = await createMcpTools(client);
      expect(await tools.find((t) => t.name === "echo")!.invoke({ text: `x${i}` })).toBe(`x${i}`);
    }
    expect(client.onclose).toBe(onclose);
    expect(client.onerror).toBe(onerror);
  });

  it("notices the user closed it, without having wrapped it", async () => {
    const http = await server();
    const client = new Client({ name: "mine", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(http.url));
    const tools = await createMcpTools(client);
    await client.close();
    const reply = (await tools.find((t) => t.name === "echo")!.invoke({ type: "tool_call", id: "c", name: "echo", args: { text: "x" } })) as { artifact: { reason: string } };
    expect(reply.artifact.reason).toBe("not_connected");
  });
});

describe("one connection death, one failure", () => {
  it("marks every call that a dying stdio server took with it with the same connectionGeneration", async () => {
    const { toolkit, call } = await (async () => {
      const events: unknown[] = [];
      const toolkit = await McpToolkit.connect({
        servers: { local: { transport: "stdio", ...stdioFixtureCommand() } },
        retry: { retries: 0 },
        breaker: { enabled: false },
        onEvent: (e) => events.push(e),
      });
      cleanups.push(() => toolkit.close());
      const call = async (name: string, args: Record<string, unknown>) =>
        (await toolkit.getTool(name)!.invoke({ type: "tool_call", id: `${name}-${Math.random()}`, name, args })) as { artifact: { reason: string; data?: { connectionGeneration?: number } } };
      return { toolkit, call };
    })();
    const slow = [call("slow", { ms: 30_000 }), call("slow", { ms: 30_000 }), call("slow", { ms: 30_000 })];
    const crash = call("crash", { code: 1 });
    const replies = await Promise.all([...slow, crash]);
    for (const r of replies) expect(r.artifact).toMatchObject({ reason: "connection_closed", data: { connectionGeneration: 1 } });
    void toolkit;
  }, 20_000);
});
