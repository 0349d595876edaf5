import { readFileSync, mkdtempSync } from "node:fs";
import { activeResources, childPids, multisetExcess } from "../chaos/support.js";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolMessage } from "@langchain/core/messages";
import { describe, expect, it, vi } from "vitest";
import { McpToolkit, type McpEvent, type McpToolErrorJSON } from "../../src/index.js";
import { startHttpFixture, type HttpFixture } from "../servers/http.js";
import { stdioFixtureCommand } from "../servers/stdio.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { stopwatch } from "../timing.js";

const cleanups = closeAfterEach();

const call = (name: string, args: Record<string, unknown>, id = "call-1") => ({ type: "tool_call" as const, id, name, args });

describe("stdio servers", () => {
  it("reports connection_closed with the exit code and stderr when the process dies mid-call, then reconnects", async () => {
    const events: McpEvent[] = [];
    const log = join(mkdtempSync(join(tmpdir(), "mcp-")), "calls.log");
    const toolkit = await McpToolkit.connect({
      servers: { local: { transport: "stdio", ...stdioFixtureCommand(), env: { FIXTURE_LOG: log } } },
      onEvent: (e) => events.push(e),
    });
    cleanups.push(() => toolkit.close());

    const crashed = (await toolkit.getTool("crash")!.invoke(call("crash", { code: 3 }))) as ToolMessage;
    expect(crashed.status).toBe("error");
    const artifact = crashed.artifact as McpToolErrorJSON;
    expect(artifact).toMatchObject({ reason: "connection_closed", kind: "transport", outcome: "unknown", attempts: 1 });
    expect(artifact.data).toMatchObject({ exitCode: 3 });
    expect(crashed.content).toContain("exited with code 3");
    expect(crashed.content).toContain("fatal: database connection lost");
    // The crash tool is not idempotent: the model is told to check before repeating.
    expect(crashed.content).toContain("outcome is unknown");

    const after = (await toolkit.getTool("echo")!.invoke(call("echo", { text: "back" }, "call-2"))) as ToolMessage;
    expect(after.status).toBe("success");
    expect(after.content).toBe("back");
    expect(events.filter((e) => e.type === "reconnect")).toHaveLength(1);
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["crash", "echo"]);
  });

  it("names the command in spawn_failed when it does not exist", async () => {
    const error = await McpToolkit.connect({ servers: { ghost: { transport: "stdio", command: "mcp-server-that-does-not-exist" } } }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "McpToolError", reason: "spawn_failed", transient: false, serverName: "ghost" });
    expect((error as Error).message).toContain("mcp-server-that-does-not-exist");
  });

  it("gives up connecting after connectTimeoutMs to a process that never answers, and kills it", async () => {
    const baselineChildren = childPids().length;
    const error = await McpToolkit.connect({
      servers: { mute: { transport: "stdio", command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"], connectTimeoutMs: 300 } },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "McpToolError", reason: "network_timeout", outcome: "not_sent", serverName: "mute" });
    expect((error as Error).message).toContain("longer than 300 ms");
    await vi.waitFor(() => expect(childPids().length).toBe(baselineChildren), { timeout: 10_000 });
  });

  it("never shows env values to the model", async () => {
    const secret = "s3cr3t-db-password-value";
    const toolkit = await McpToolkit.connect({
      servers: { local: { transport: "stdio", ...stdioFixtureCommand(), env: { DB_PASSWORD: secret } } },
    });
    cleanups.push(() => toolkit.close());
    const reply = (await toolkit.getTool("fail")!.invoke(call("fail", { message: `login failed for ${secret}` }))) as ToolMessage;
    expect(reply.status).toBe("error");
    expect(reply.content).not.toContain(secret);
    expect(JSON.stringify(reply.artifact)).not.toContain(secret);
    expect(reply.content).toContain("[REDACTED]");
  });

  it("leaves no child process, handle or timer after close()", async () => {
    const before = activeResources();
    const baselineChildren = childPids().length;
    const toolkit = await McpToolkit.connect({ servers: { local: { transport: "stdio", ...stdioFixtureCommand() } } });
    await toolkit.getTool("echo")!.invoke({ text: "x" });
    await toolkit.getTool("slow")!.invoke({ ms: 20 });
    expect(childPids().length).toBe(baselineChildren + 1);
    expect(multisetExcess(activeResources(), before)).toContain("ProcessWrap +1");
    await toolkit.close();
    // Checked at once: close() resolves only after the process handle is released.
    expect(childPids().length).toBe(baselineChildren);
    expect(multisetExcess(activeResources(), before)).toEqual([]);
  });

  it("kills a server that ignores stdin closing and SIGTERM, in the background: close() returns within about a second", async () => {
    const before = activeResources();
    const baselineChildren = childPids().length;
    const toolkit = await McpToolkit.connect({
      servers: { stubborn: { transport: "stdio", ...stdioFixtureCommand(), env: { FIXTURE_STUBBORN: "1" } } },
    });
    expect((await toolkit.getTool("echo")!.invoke({ text: "alive" })) as string).toBe("alive");
    const clock = stopwatch();
    await toolkit.close();
    // The SDK's stdin-close, SIGTERM, SIGKILL sequence takes about 4 s for this server; close() does not wait for it.
    clock.within(3_000, "close() of a stubborn stdio server", undefined, 900);
    await vi.waitFor(() => expect(childPids().length).toBe(baselineChildren), { timeout: 15_000 });
    await vi.waitFor(() => expect(multisetExcess(activeResources(), before)).toEqual([]), { timeout: 5_000 });
  }, 30_000);
});

describe("onConnectionError", () => {
  it("skips a server that fails to connect, keeps the others, and connects it later", async () => {
    const events: McpEvent[] = [];
    const http = await startHttpFixture();
    const port = http.port;
    await http.close();
    const toolkit = await McpToolkit.connect({
      servers: {
        local: { transport: "stdio", ...stdioFixtureCommand() },
        remote: { transport: "http", url: `http://127.0.0.1:${port}/mcp`, reconnect: { minDelayMs: 0 } },
      },
      prefixToolNames: true,
      onConnectionError: "skip",
      onEvent: (e) => events.push(e),
    });
    cleanups.push(() => toolkit.close());
    expect(toolkit.pendingServers).toEqual(["remote"]);
    expect(events.find((e) => e.type === "error")?.error?.reason).toBe("connection_refused");
    expect(toolkit.getTools().some((t) => t.name.startsWith("remote__"))).toBe(false);

    const revived = await startHttpFixture({ port });
    cleanups.push(() => revived.close());
    const tools = await toolkit.refresh();
    expect(toolkit.pendingServers).toEqual([]);
    expect(tools.some((t) => t.name === "remote__echo")).toBe(true);
    expect(await toolkit.getTool("remote__echo")!.invoke({ text: "late" })).toBe("late");
  });
});

describe("streamable HTTP servers", () => {
  let http: HttpFixture;

  it("re-initializes when the server forgets the session, and the same call succeeds", async () => {
    const events: McpEvent[] = [];
    http = await startHttpFixture();
    cleanups.push(() => http.close());
    const toolkit = await McpToolkit.connect({
      servers: { remote: { transport: "http", url: http.url.href } },
      onEvent: (e) => events.push(e),
    });
    cleanups.push(() => toolkit.close());
    expect(await toolkit.getTool("counter")!.invoke({ key: "a" })).toBe("count 1");
    await http.forgetSessions();
    // counter is not idempotent, but a 404 for the session means it never ran: safe to repeat.
    expect(await toolkit.getTool("counter")!.invoke({ key: "a" })).toBe("count 2");
    const retry = events.find((e) => e.type === "retry");
    expect(retry?.error?.reason).toBe("session_expired");
    expect(retry?.error?.outcome).toBe("not_sent");
    expect(events.filter((e) => e.type === "reconnect")).toHaveLength(1);
    expect(http.state.executions.get("a")).toBe(2);
  });

  it("reconnects after the server process restarts on the same port", async () => {
    const events: McpEvent[] = [];
    http = await startHttpFixture();
    cleanups.push(() => http.close());
    const toolkit = await McpToolkit.connect({
      servers: { remote: { transport: "http", url: http.url.href, trustAnnotations: true } },
      onEvent: (e) => events.push(e),
    });
    cleanups.push(() => toolkit.close());
    expect(await toolkit.getTool("echo")!.invoke({ text: "one" })).toBe("one");
    await http.restart();
    // Depending on whether the client's pooled socket noticed the restart, the first try
    // meets a reset socket or an unknown session; echo is read-only, so either is retried.
    expect(await toolkit.getTool("echo")!.invoke({ text: "two" })).toBe("two");
    const reasons = events.filter((e) => e.type === "retry").map((e) => e.error?.reason);
    expect(reasons.length).toBeGreaterThan(0);
    for (const r of reasons) expect(["session_expired", "connection_reset"]).toContain(r);
    expect(events.some((e) => e.type === "reconnect")).toBe(true);
  });

  it("never shows a secret header value to the model, and keeps an ordinary one readable", async () => {
    const token = "tok_live_9f8e7d6c5b4a39281706";
    http = await startHttpFixture({ bearer: token });
    cleanups.push(() => http.close());
    const toolkit = await McpToolkit.connect({
      servers: { remote: { transport: "http", url: http.url.href, headers: { Authorization: `Bearer ${token}`, "X-Tenant": "tenant-acme-prod" } } },
    });
    cleanups.push(() => toolkit.close());
    const reply = (await toolkit.getTool("fail")!.invoke(call("fail", { message: `denied token ${token} for tenant-acme-prod` }))) as ToolMessage;
    expect(reply.content).not.toContain(token);
    // ERRORS.md: only values a secret name or a credential shape marks are redacted.
    expect(reply.content).toContain("for tenant-acme-prod");
    expect(http.seenHeaders.some((h) => h.authorization === `Bearer ${token}`)).toBe(true);
  });

  it("falls back to SSE when the server only speaks SSE", async () => {
    http = await startHttpFixture({ mode: "sse" });
    cleanups.push(() => http.close());
    const toolkit = await McpToolkit.connect({ servers: { legacy: { transport: "http", url: http.url.href } } });
    cleanups.push(() => toolkit.close());
    expect(await toolkit.getTool("echo")!.invoke({ text: "over sse" })).toBe("over sse");
  });
});
