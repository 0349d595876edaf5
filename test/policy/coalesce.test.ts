/**
 * Shared reads (a tool policy's `coalesce: true`): identical calls in flight (the same tool,
 * arguments, per-call headers and `_meta`) share one request to a real SDK server; each caller gets
 * its own answer in its own ToolMessage, and keeps its own abort and timeout; the request is
 * cancelled on the server only when every caller has gone. A tool that may write never shares.
 * The server holds each `lookup` until the test opens its gate, so no assertion rests on timing.
 */
import { ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { McpConfigError, McpToolkit, type BeforeToolCallHook, type McpEvent, type McpToolError, type McpToolkitConfig, type ToolPolicy } from "../../src/index.js";
import { keyOf } from "../../src/langchain/sharedCalls.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { closesLater } from "../servers/replies.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

/** What the server saw: each `lookup` it ran (its query and Authorization), and how many of them were cancelled. */
interface Seen {
  requests: { q: string; authorization: string | undefined }[];
  cancelled: number;
  /** Lets every `lookup` held, and every later one, answer. */
  open: () => void;
  gate: Promise<void>;
}

function newSeen(): Seen {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return { requests: [], cancelled: 0, open, gate };
}

/** `lookup` reads (annotated read-only) and answers once the gate opens; `save` writes. */
function readServer(seen: Seen): McpServer {
  const server = new McpServer({ name: "reads", version: "1.0.0" });
  server.registerTool("lookup", { description: "Looks a query up.", inputSchema: { q: z.string() }, annotations: { readOnlyHint: true } }, async ({ q }, extra) => {
    const header = extra.requestInfo?.headers.authorization;
    const authorization = typeof header === "string" ? header : undefined;
    seen.requests.push({ q, authorization });
    const opened = await new Promise<boolean>((resolve) => {
      if (extra.signal.aborted) return resolve(false);
      extra.signal.addEventListener("abort", () => resolve(false), { once: true });
      void seen.gate.then(() => resolve(true));
    });
    if (!opened) {
      seen.cancelled++;
      return { content: [{ type: "text", text: "cancelled" }] };
    }
    const by = authorization ?? "nobody";
    return { content: [{ type: "text", text: `${q} for ${by}` }], structuredContent: { q, by } };
  });
  server.registerTool("save", { description: "Saves a note.", inputSchema: { q: z.string() } }, async ({ q }) => ({ content: [{ type: "text", text: `saved ${q}` }] }));
  return server;
}

async function setup(tools: Record<string, ToolPolicy> = { lookup: { coalesce: true } }, more: Partial<McpToolkitConfig> = {}) {
  const seen = newSeen();
  const http = later(await startHttpFixture({ build: () => readServer(seen) }));
  const events: McpEvent[] = [];
  const kit = later(
    await McpToolkit.connect({ servers: { reads: { transport: "http", url: http.url.href, trustAnnotations: true } }, tools, retry: { retries: 0 }, onEvent: (e) => events.push(e), ...more }),
  );
  return { kit, seen, events };
}

let ids = 0;

/** Calls `lookup` as ToolNode does: a tool call with an id of its own. */
function lookup(kit: McpToolkit, q: string, config: RunnableConfig = {}): { id: string; reply: Promise<ToolMessage> } {
  const id = `read_${++ids}`;
  return { id, reply: kit.getTool("lookup")!.invoke({ id, name: "lookup", type: "tool_call", args: { q } }, config) as Promise<ToolMessage> };
}

const callsOf = (events: McpEvent[]) => events.filter((e) => e.type === "call");
const errorOf = (message: ToolMessage) => (message.status === "error" ? (message.artifact as McpToolError) : undefined);

/** Waits until `n` calls have started (the first sends, the others joined it): all are in flight together. */
async function allStarted(events: McpEvent[], n: number): Promise<void> {
  await vi.waitFor(() => expect(callsOf(events)).toHaveLength(n), { timeout: 10_000, interval: 10 });
}

describe("shared reads (coalesce: true)", () => {
  it("makes one request of eight identical calls in flight, and gives each caller its own answer in its own ToolMessage", async () => {
    const { kit, seen, events } = await setup();
    const calls = Array.from({ length: 8 }, () => lookup(kit, "mcp"));
    await allStarted(events, 8);
    seen.open();
    const messages = await Promise.all(calls.map((c) => c.reply));
    expect(seen.requests).toHaveLength(1);
    expect(messages.map((m) => m.tool_call_id)).toEqual(calls.map((c) => c.id));
    for (const message of messages) {
      expect(message).toBeInstanceOf(ToolMessage);
      expect(message.status).not.toBe("error");
      expect(message.content).toBe("mcp for nobody");
    }
    // Each its own copy: what one caller does to its artifact, no other sees.
    const artifacts = messages.map((m) => m.artifact as { structuredContent: { q: string } });
    artifacts[0]!.structuredContent.q = "changed";
    expect(artifacts.slice(1).map((a) => a.structuredContent.q)).toEqual(Array(7).fill("mcp"));
    // The request reports itself once, unmarked; the seven that joined it, marked.
    expect(callsOf(events).filter((e) => !e.coalesced)).toHaveLength(1);
    expect(callsOf(events).filter((e) => e.coalesced)).toHaveLength(7);
    const successes = events.filter((e) => e.type === "success");
    expect(successes.filter((e) => !e.coalesced)).toHaveLength(1);
    expect(successes.filter((e) => e.coalesced)).toHaveLength(7);
    expect(kit.policyOf("lookup")).toMatchObject({ coalesce: true, readOnly: true, idempotent: true });
  });

  it("settles an aborted caller alone, cancelled, while the request goes on for the seven others and is never cancelled on the server", async () => {
    const { kit, seen, events } = await setup();
    const controllers = Array.from({ length: 8 }, () => new AbortController());
    const calls = controllers.map((c) => lookup(kit, "mcp", { signal: c.signal }));
    await allStarted(events, 8);
    await vi.waitFor(() => expect(seen.requests).toHaveLength(1), { timeout: 10_000, interval: 10 });
    // The first caller, whose call sent the request, leaves.
    controllers[0]!.abort(new Error("the user left"));
    expect(errorOf(await calls[0]!.reply)).toMatchObject({ reason: "cancelled" });
    // Time for a cancellation, had one been sent, to reach the server before the answer is let go.
    await new Promise((resolve) => setTimeout(resolve, 200));
    seen.open();
    const rest = await Promise.all(calls.slice(1).map((c) => c.reply));
    expect(rest.map((m) => [m.status, m.content])).toEqual(Array(7).fill(["success", "mcp for nobody"]));
    expect(seen.requests).toHaveLength(1);
    expect(seen.cancelled).toBe(0);
  });

  it("cancels the request on the server once every caller has aborted, and a later call sends a new one", async () => {
    const { kit, seen, events } = await setup();
    const controllers = Array.from({ length: 8 }, () => new AbortController());
    const calls = controllers.map((c) => lookup(kit, "mcp", { signal: c.signal }));
    await allStarted(events, 8);
    await vi.waitFor(() => expect(seen.requests).toHaveLength(1), { timeout: 10_000, interval: 10 });
    for (const controller of controllers) controller.abort(new Error("everyone left"));
    const messages = await Promise.all(calls.map((c) => c.reply));
    expect(messages.map((m) => errorOf(m)?.reason)).toEqual(Array(8).fill("cancelled"));
    await vi.waitFor(() => expect(seen.cancelled).toBe(1), { timeout: 10_000, interval: 10 });
    seen.open();
    expect((await lookup(kit, "mcp").reply).content).toBe("mcp for nobody");
    expect(seen.requests).toHaveLength(2);
  });

  it("never shares between per-call headers: each identity's callers share their own request", async () => {
    let asked = 0;
    const beforeToolCall: BeforeToolCallHook = ({ config }) => {
      asked++;
      const user = (config?.configurable as { user?: string } | undefined)?.user;
      return user ? { headers: { Authorization: `Bearer tok-${user}` } } : undefined;
    };
    const { kit, seen, events } = await setup(undefined, { beforeToolCall });
    const users = ["alice", "bob", "alice", "bob", "alice", "bob", "alice", "bob"];
    const calls = users.map((user) => lookup(kit, "mcp", { configurable: { user } }));
    await allStarted(events, 8);
    seen.open();
    const messages = await Promise.all(calls.map((c) => c.reply));
    expect(messages.map((m) => m.content)).toEqual(users.map((user) => `mcp for Bearer tok-${user}`));
    expect(seen.requests.map((r) => r.authorization).sort()).toEqual(["Bearer tok-alice", "Bearer tok-bob"]);
    // The hook ran once per caller: the shared request's first send went with its first caller's answer.
    expect(asked).toBe(8);
    expect(callsOf(events).filter((e) => e.coalesced)).toHaveLength(6);
  });

  it("never shares between different arguments, and caches nothing: a call after the answer sends anew", async () => {
    const { kit, seen, events } = await setup();
    const queries = ["a", "b", "a", "b", "a", "b", "a", "b"];
    const calls = queries.map((q) => lookup(kit, q));
    await allStarted(events, 8);
    seen.open();
    const messages = await Promise.all(calls.map((c) => c.reply));
    expect(messages.map((m) => m.content)).toEqual(queries.map((q) => `${q} for nobody`));
    expect(seen.requests.map((r) => r.q).sort()).toEqual(["a", "b"]);
    expect((await lookup(kit, "a").reply).content).toBe("a for nobody");
    expect(seen.requests).toHaveLength(3);
  });

  it("gives a caller with a shorter timeout its own request_timeout while the others get the answer", async () => {
    const { kit, seen, events } = await setup();
    const calls = Array.from({ length: 7 }, () => lookup(kit, "mcp"));
    await allStarted(events, 7);
    const hurried = await lookup(kit, "mcp", { timeout: 150 }).reply;
    expect(errorOf(hurried)).toMatchObject({ reason: "request_timeout" });
    seen.open();
    const messages = await Promise.all(calls.map((c) => c.reply));
    expect(messages.map((m) => m.content)).toEqual(Array(7).fill("mcp for nobody"));
    expect(seen.requests).toHaveLength(1);
    expect(seen.cancelled).toBe(0);
  });

  it("ends the shared request for every caller when the toolkit closes: closed", async () => {
    const { kit, events } = await setup();
    const calls = Array.from({ length: 4 }, () => lookup(kit, "mcp"));
    await allStarted(events, 4);
    await kit.close();
    const messages = await Promise.all(calls.map((c) => c.reply));
    expect(messages.map((m) => errorOf(m)?.reason)).toEqual(Array(4).fill("closed"));
  });

  it("is off by default: eight identical calls make eight requests", async () => {
    const { kit, seen, events } = await setup({});
    const calls = Array.from({ length: 8 }, () => lookup(kit, "mcp"));
    await allStarted(events, 8);
    await vi.waitFor(() => expect(seen.requests).toHaveLength(8), { timeout: 10_000, interval: 10 });
    seen.open();
    const messages = await Promise.all(calls.map((c) => c.reply));
    expect(messages.every((m) => m.content === "mcp for nobody")).toBe(true);
    expect(callsOf(events).some((e) => e.coalesced)).toBe(false);
    expect(kit.policyOf("lookup")?.coalesce).toBe(false);
  });
});

describe("shared reads are for reads", () => {
  it("refuses coalesce on a tool not known to only read at connect, naming the tools key", async () => {
    const refused = setup({ save: { coalesce: true } });
    await expect(refused).rejects.toBeInstanceOf(McpConfigError);
    await expect(refused).rejects.toMatchObject({ field: "tools.save.coalesce" });
    await expect(refused).rejects.toThrow(/'save' \(server 'reads'\) is not known to only read/);
  });

  it("refuses a glob that matches a write too, and takes it once the write says coalesce: false", async () => {
    await expect(setup({ "*": { coalesce: true } })).rejects.toMatchObject({ field: "tools.*.coalesce" });
    const { kit } = await setup({ "*": { coalesce: true }, save: { coalesce: false } });
    expect(kit.policyOf("lookup")?.coalesce).toBe(true);
    expect(kit.policyOf("save")?.coalesce).toBe(false);
  });

  it("takes coalesce on a tool its policy declares readOnly, and not on a read-only annotation it does not trust", async () => {
    const { kit } = await setup({ save: { coalesce: true, readOnly: true } });
    expect(kit.policyOf("save")).toMatchObject({ coalesce: true, readOnly: true, idempotent: true });
    const seen = newSeen();
    const http = later(await startHttpFixture({ build: () => readServer(seen) }));
    const untrusted = McpToolkit.connect({ servers: { reads: { transport: "http", url: http.url.href } }, tools: { lookup: { coalesce: true } } });
    await expect(untrusted).rejects.toMatchObject({ field: "tools.lookup.coalesce" });
  });

  it("keys a request by what the server receives: key order and header case aside", () => {
    const identity = { exposedName: "lookup", serverName: "reads", mcpName: "lookup" };
    expect(keyOf(identity, { a: 1, b: { c: 1, d: [2, 1] } }, undefined, undefined)).toBe(keyOf(identity, { b: { d: [2, 1], c: 1 }, a: 1 }, {}, undefined));
    expect(keyOf(identity, { a: 1 }, { Authorization: "Bearer x" }, undefined)).toBe(keyOf(identity, { a: 1 }, { authorization: "Bearer x" }, undefined));
    expect(keyOf(identity, { a: 1 }, { Authorization: "Bearer x" }, undefined)).not.toBe(keyOf(identity, { a: 1 }, { Authorization: "Bearer y" }, undefined));
    expect(keyOf(identity, { a: 1 }, undefined, { trace: "1" })).not.toBe(keyOf(identity, { a: 1 }, undefined, { trace: "2" }));
    expect(keyOf(identity, { d: [2, 1] }, undefined, undefined)).not.toBe(keyOf(identity, { d: [1, 2] }, undefined, undefined));
    expect(keyOf({ ...identity, serverName: "other" }, { a: 1 }, undefined, undefined)).not.toBe(keyOf(identity, { a: 1 }, undefined, undefined));
  });
});
