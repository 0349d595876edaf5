/**
 * A restarted server's first answer waits for nothing it need not: a refused connect on a
 * session makes the next attempt initialize at once (no 404 on the old session first), and a
 * reconnect keeps the tool list it had, listing again beside the first calls, not before them.
 * Real SDK server over streamable HTTP on 127.0.0.1; the fault proxy stalls a tools/list.
 */
import { connect, createServer, type Socket } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { createMcpTools } from "../../src/index.js";
import { replyOf } from "../servers/replies.js";
import { startFaultProxy } from "../servers/proxy/faultProxy.js";
import { cleanups, closeLater, server, toolkitFor } from "./helpers.js";
import { stopwatch } from "../timing.js";

describe("a server back after it refused the connection", () => {
  it("gets a new session at once: no request goes to the session the dead process held", async () => {
    const http = await server();
    const { call, events } = await toolkitFor(http.url, { era: "legacy" }, { retry: { retries: 3, minTimeout: 50, maxTimeout: 5_000, randomize: false } });
    expect(await call("echo", { text: "before" })).toMatchObject({ status: "success" });
    const old = http.seenHeaders.at(-1)?.["mcp-session-id"];
    expect(old).toBeTypeOf("string");
    await http.down();
    // Let the client's pool see its kept-alive socket closed, so the next call meets a refusal.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const seenBefore = http.seenHeaders.length;
    const reply = call("echo", { text: "after" });
    while (!events.some((e) => e.type === "retry" && e.error.reason === "connection_refused")) await new Promise((resolve) => setTimeout(resolve, 10));
    await http.up();
    expect(await reply).toMatchObject({ status: "success", content: "after" });
    const sent = http.seenHeaders.slice(seenBefore);
    // Before: the first request after the restart carried the old session and met a 404 first.
    expect(sent.filter((h) => h["mcp-session-id"] === old)).toEqual([]);
    expect(sent.some((h) => typeof h["mcp-session-id"] === "string")).toBe(true);
  });
});

describe("a reconnect", () => {
  it("keeps the list it had and lists again beside the first call: a tools/list the server never answers does not hold the call", async () => {
    const http = await server();
    const proxy = closeLater(await startFaultProxy(http.url));
    const events: unknown[] = [];
    const { call } = await toolkitFor(proxy.url, { era: "legacy", connectTimeoutMs: 20_000 }, { timeoutMs: 20_000, onEvent: (e) => events.push(e) });
    expect(await call("echo", { text: "before" })).toMatchObject({ status: "success" });
    await http.forgetSessions();
    // The reconnect's tools/list is never answered.
    proxy.plan({ kind: "stall" }, { rpc: "tools/list" });
    const clock = stopwatch();
    const reply = await call("echo", { text: "after" });
    expect(reply).toMatchObject({ status: "success", content: "after" });
    // Before, the call waited on the list until the connect's 20 s ran out.
    clock.within(10_000, "a call whose reconnect's tools/list is never answered (connect timeout 20 s)");
    expect(proxy.seen.some((r) => r.rpc === "tools/list" && r.fault === "stall")).toBe(true);
  }, 30_000);
});

describe("a server whose process is gone", () => {
  it("fails the calls whose answer streams it had opened at once, when a new connection is refused, instead of resuming them", async () => {
    // The server asks for 5 s between resumes: only the refusal can end the call sooner.
    const http = await server({ resumable: true, retryIntervalMs: 5_000 });
    const { call, events } = await toolkitFor(http.url, { era: "legacy" }, { retry: { retries: 0 }, timeoutMs: 30_000 });
    expect(await call("echo", { text: "warm" })).toMatchObject({ status: "success" });
    const inFlight = call("slow", { ms: 10_000, progressEveryMs: 20 });
    // A progress notification came back on its stream: the stream is open on our side.
    while (!events.some((e) => e.type === "progress")) await new Promise((resolve) => setTimeout(resolve, 5));
    await http.down();
    const clock = stopwatch();
    // Let the client's pool see its kept-alive socket closed, so the next call meets a refusal.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await call("echo", { text: "down" });
    expect(refused.error).toMatchObject({ reason: "connection_refused", outcome: "not_sent" });
    const lost = await inFlight;
    expect(lost.error).toMatchObject({ reason: "stream_error", outcome: "unknown" });
    // Before, the SDK resumed its stream twice against the closed port and the call named that.
    expect(lost.error?.message).toMatch(/refused a new connection: its process is gone/);
    // Within the 5 s the server asks between resumes.
    clock.within(4_000, "the in-flight call after its server went down", undefined, 1_000);
  }, 30_000);
});

/** A TCP relay to `port` that can stop (connections refused, its sockets cut) and start again on its own port. */
async function tcpRelay(port: number) {
  const sockets = new Set<Socket>();
  const relay = createServer((socket) => {
    const upstream = connect({ host: "127.0.0.1", port });
    for (const s of [socket, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => s.destroy());
    }
    socket.pipe(upstream).pipe(socket);
  });
  const listen = (at: number) => new Promise<void>((resolve) => relay.listen(at, "127.0.0.1", () => resolve()));
  await listen(0);
  const own = (relay.address() as { port: number }).port;
  const down = async () => {
    const closed = new Promise((resolve) => relay.close(resolve));
    for (const s of sockets) s.destroy();
    await closed;
  };
  cleanups.push(down);
  return { port: own, down, up: () => listen(own) };
}

describe("a user's own client whose server refused a connection", () => {
  it("is left as it is: once the server answers again, its calls go through on the session it kept", async () => {
    const http = await server();
    // The relay refuses connections while the server behind it keeps its sessions (a proxy's blip).
    const relay = await tcpRelay(http.port);
    const client = new Client({ name: "mine", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${relay.port}/mcp`)));
    const tools = await createMcpTools(client, { serverName: "s", retry: { retries: 0 }, breaker: { enabled: false } });
    cleanups.push(() => tools.close(), () => client.close());
    const echo = tools.find((t) => t.name === "echo");
    expect((await replyOf(echo, { text: "before" })).error).toBeUndefined();
    await relay.down();
    // Let the client's pool see its kept-alive socket closed, so the next call meets a refusal.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await replyOf(echo, { text: "down" })).error?.reason).toBe("connection_refused");
    await relay.up();
    // Before, the refusal dropped the user's client for good: "reconnection is off".
    const back = await replyOf(echo, { text: "back" });
    expect(back.error).toBeUndefined();
    expect(back.content).toBe("back");
  });
});
