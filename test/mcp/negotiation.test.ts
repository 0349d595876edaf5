/**
 * How the toolkit chooses each server's protocol era, keeps it across reconnects, and
 * renegotiates once when a server refuses the version in use (-32022). Real servers of both eras
 * (v1 and v2 packages); a proxy in front counts the JSON-RPC methods that reach them.
 */
import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { createMcpTools, McpToolkit } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater, replyOf } from "../servers/replies.js";
import { startHttpFixture } from "../servers/http.js";
import { startFaultProxy } from "../servers/proxy/faultProxy.js";
import { buildV2ProtocolErrorServer } from "../servers/v2/fixture.js";
import { startV2Http } from "../servers/v2/http.js";
import { v2StdioCommand } from "../servers/v2/stdio.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

const invoke = (toolkit: McpToolkit, name: string, args: Record<string, unknown>) => replyOf(toolkit.getTool(name), args);

describe("era negotiation", () => {
  it("speaks 2026-07-28 to a v2 HTTP server and the 2025 revisions to a v1 one, by default", async () => {
    const modern = later(await startV2Http({ mode: "modern" }));
    const old = later(await startHttpFixture());
    const toolkit = later(await McpToolkit.connect({ servers: { modern: { transport: "http", url: modern.url.href }, old: { transport: "http", url: old.url.href } }, prefixToolNames: true }));
    expect(toolkit.protocolEra("modern")).toBe("modern");
    expect(toolkit.protocolEra("old")).toBe("legacy");
    expect((await invoke(toolkit, "modern__echo", { text: "new" })).content).toBe("new");
    expect((await invoke(toolkit, "old__echo", { text: "old" })).content).toBe("old");
  });

  it("starts a stdio server with initialize (no probe process), and renegotiates once with a 2026-only one", async () => {
    const both = later(await McpToolkit.connect({ servers: { s: { transport: "stdio", ...v2StdioCommand() } } }));
    expect(both.protocolEra("s")).toBe("legacy");
    const only = later(await McpToolkit.connect({ servers: { s: { transport: "stdio", ...v2StdioCommand(), env: { FIXTURE_LEGACY: "reject" } } } }));
    expect(only.protocolEra("s")).toBe("modern");
    expect((await invoke(only, "echo", { text: "hi" })).content).toBe("hi");
  });

  it('refuses a 2025-only server under era "modern", naming the versions problem', async () => {
    const old = later(await startHttpFixture());
    const error = await McpToolkit.connect({ servers: { old: { transport: "http", url: old.url.href, era: "modern" } } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: "protocol_version_unsupported", serverName: "old" });
  });

  it("reuses the era it learnt when it reconnects: no second server/discover", async () => {
    const http = later(await startHttpFixture());
    const methods: string[] = [];
    const fetchAndRecord = (url: string | URL, init?: RequestInit) => {
      if (typeof init?.body === "string") {
        const { method } = JSON.parse(init.body) as { method?: string };
        if (method) methods.push(method);
      }
      return fetch(url, init);
    };
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: http.url.href, fetch: fetchAndRecord } } }));
    const rpcs = () => methods.filter((m) => m === "server/discover" || m === "initialize");
    expect(rpcs()).toEqual(["server/discover", "initialize"]);
    await http.forgetSessions(); // the next call meets a 404 (session_expired) and reconnects
    expect((await invoke(toolkit, "echo", { text: "back" })).content).toBe("back");
    expect(rpcs()).toEqual(["server/discover", "initialize", "initialize"]);
    expect(toolkit.protocolEra("s")).toBe("legacy");
  });

  it("renegotiates once when a live connection's server answers -32022, then gives up", async () => {
    // The low-level server answers every tools/call with the JSON-RPC error it is asked for.
    const http = later(await startV2Http({ mode: "modern", build: () => buildV2ProtocolErrorServer() }));
    const proxy = later(await startFaultProxy(http.url));
    const toolkit = later(await McpToolkit.connect({ servers: { s: { transport: "http", url: proxy.url.href } }, retry: { retries: 3, minTimeout: 1, randomize: false } }));
    const data = { supported: ["2026-07-28"], requested: "2026-07-28" };
    const reply = await invoke(toolkit, "raise", { code: -32022, message: "Unsupported protocol version", data });
    expect(reply.error).toMatchObject({ reason: "protocol_version_unsupported", transient: false, attempts: 2 });
    // The first refusal dropped the learnt era: the reconnect asked server/discover again.
    expect(proxy.seen.filter((r) => r.rpc === "server/discover")).toHaveLength(2);
    expect(proxy.seen.filter((r) => r.rpc === "tools/call")).toHaveLength(2);
  });
});

describe("a client the user holds", () => {
  it("takes a v2 Client in the era it negotiated, and classifies its failures", async () => {
    const http = later(await startV2Http({ mode: "modern" }));
    const client = new V2Client({ name: "user", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(new V2HttpTransport(http.url));
    cleanups.push(() => client.close());
    expect(client.getProtocolEra()).toBe("modern");
    const tools = await createMcpTools(client);
    const echo = tools.find((t) => t.name === "echo")!;
    const fail = tools.find((t) => t.name === "fail")!;
    expect((await echo.invoke({ id: "1", name: "echo", args: { text: "hi" }, type: "tool_call" })).content).toBe("hi");
    const failed = await fail.invoke({ id: "2", name: "fail", args: {}, type: "tool_call" });
    expect(failed.status).toBe("error");
    expect(failed.artifact).toMatchObject({ reason: "tool_error", outcome: "executed" });
  });

  it("takes a v1 Client unchanged", async () => {
    const http = later(await startHttpFixture());
    const client = new V1Client({ name: "user", version: "1.0.0" });
    await client.connect(new V1HttpTransport(http.url));
    cleanups.push(() => client.close());
    const toolkit = later(await McpToolkit.connect({ servers: { mine: { client } } }));
    expect(toolkit.protocolEra("mine")).toBe("legacy");
    expect((await invoke(toolkit, "echo", { text: "v1" })).content).toBe("v1");
  });
});
