/**
 * A call's identity, end to end: the Authorization a `beforeToolCall` gives one call (a user's
 * token, from the graph's `configurable`) reaches the server on that call's own requests, and on
 * every send of it (a retry, a re-send after a restart or a relist, a fallback's), where the SDKs'
 * own bearer auth checks it; a call for no user goes with the server's configured service token. A
 * call whose header cannot be carried (stdio; a client the user holds) is refused unsent, naming it.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as V2Client, StreamableHTTPClientTransport as V2ClientTransport } from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1ClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { McpToolkit, type BeforeToolCallHook, type McpEvent, type McpToolError, type ServerConfig } from "../../src/index.js";
import { dataOf, startBearerServer, TOKENS, USERS, type BearerKind, type BearerServer, type Caller, type SeenPost } from "../servers/bearer.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { closesLater } from "../servers/replies.js";
import { stdioFixtureCommand } from "../servers/stdio.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

/** Whom a call is for, as the graph's `configurable` says: the hook reads it. */
interface Who {
  user?: Caller;
  dpop?: string;
  tenant?: string;
}

/** The hook under test: the user's own token (and DPoP proof, tenant) for a call made for a user; nothing for a call for no one. */
const beforeToolCall: BeforeToolCallHook = ({ config }) => {
  const who = (config?.configurable ?? {}) as Who;
  const headers: Record<string, string> = {};
  if (who.user) headers.Authorization = `Bearer ${TOKENS[who.user]}`;
  if (who.dpop) headers.DPoP = who.dpop;
  if (who.tenant) headers["X-Tenant"] = who.tenant;
  return Object.keys(headers).length > 0 ? { headers } : undefined;
};

const SERVICE_HEADERS = { Authorization: `Bearer ${TOKENS.service}` };
const CALLERS: Caller[] = [...USERS, "service"];
const whoIs = (caller: Caller): Who => (caller === "service" ? {} : { user: caller });
const KINDS: BearerKind[] = ["v1", "v1-sse", "v2", "v2-sessions"];

function configOf(server: BearerServer, more: Partial<ServerConfig> = {}): ServerConfig {
  return { transport: server.kind === "v1-sse" ? "sse" : "http", url: server.url.href, headers: SERVICE_HEADERS, trustAnnotations: true, ...more } as ServerConfig;
}

async function toolkitOf(servers: Record<string, ServerConfig>, events: McpEvent[] = []): Promise<McpToolkit> {
  return later(await McpToolkit.connect({ servers, beforeToolCall, retry: { minTimeout: 10, maxTimeout: 50 }, onEvent: (e) => events.push(e) }));
}

let ids = 0;

/** Calls a tool as ToolNode does, for `who`: the text the model reads, and the error when it failed. */
async function call(toolkit: McpToolkit, who: Who, tool = "my_data", args: Record<string, unknown> = { caller: who.user ?? "service" }) {
  const message = await toolkit.getTool(tool)!.invoke({ id: `c${++ids}`, name: tool, type: "tool_call", args }, { configurable: { ...who } });
  return { text: String(message.content), error: message.status === "error" ? (message.artifact as McpToolError) : undefined };
}

/** Every tools/call POST the server received carried the token of the caller it was sent for. */
function expectOwnTokens(calls: SeenPost[]): void {
  expect(calls.length).toBeGreaterThan(0);
  expect(calls.map((c) => `${c.caller} ${c.authorization}`)).toEqual(calls.map((c) => `${c.caller} Bearer ${TOKENS[c.caller as Caller]}`));
}

/** How many tools/call POSTs each caller sent. */
function perCaller(calls: SeenPost[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const c of calls) counts[c.caller ?? "?"] = (counts[c.caller ?? "?"] ?? 0) + 1;
  return counts;
}

/** 5 calls of each caller (three users and the service), all at once: each reads its own caller's data. */
async function parallelBatch(toolkit: McpToolkit): Promise<void> {
  const callers = CALLERS.flatMap((c) => Array<Caller>(5).fill(c));
  const replies = await Promise.all(callers.map((c) => call(toolkit, whoIs(c))));
  expect(replies.map((r) => r.error?.reason)).toEqual(callers.map(() => undefined));
  expect(replies.map((r) => r.text)).toEqual(callers.map(dataOf));
}

describe("a call's cancellation", () => {
  it("goes under the token of the call it cancels (notifications/cancelled on a 2025 session)", async () => {
    const server = later(await startBearerServer("v1"));
    const toolkit = await toolkitOf({ x: configOf(server, { timeoutMs: 300, retry: { retries: 0 } }) });
    const replies = await Promise.all(["alice", "bob"].map((user) => call(toolkit, { user: user as Caller }, "wait_data", { caller: user })));
    expect(replies.map((r) => r.error?.reason)).toEqual(["request_timeout", "request_timeout"]);
    await expect.poll(() => server.cancelled.slice().sort()).toEqual(["alice", "bob"]);
    const cancels = server.seen.filter((p) => p.method === "notifications/cancelled").map((p) => p.authorization).sort();
    expect(cancels).toEqual([`Bearer ${TOKENS.alice}`, `Bearer ${TOKENS.bob}`]);
  });
});

describe.each(KINDS)("a %s server behind its SDK's requireBearerAuth", (kind) => {
  it("answers 20 parallel calls of four callers each with its own caller's data, before and after a restart; every request carries its caller's token", async () => {
    const server = later(await startBearerServer(kind));
    const events: McpEvent[] = [];
    // The restart kills the pooled sockets under the next batch (connection_reset, retried: the
    // tool is read-only): that many failures at once would open the breaker, not the subject here.
    const toolkit = await toolkitOf({ x: configOf(server, { breaker: { failureThreshold: 100 } }) }, events);
    await parallelBatch(toolkit);
    expect(perCaller(server.calls)).toEqual({ alice: 5, bob: 5, carol: 5, service: 5 });
    expectOwnTokens(server.calls);

    await server.restart();
    const before = server.calls.length;
    await parallelBatch(toolkit);
    // A sessionful server's restart ends the session: calls meet session_expired and are re-sent on a new one.
    if (server.sessionful) expect(events.filter((e) => e.type === "retry").map((e) => e.type === "retry" && e.error.reason)).toContain("session_expired");
    const after = server.calls.slice(before);
    expect(after.length).toBeGreaterThanOrEqual(20);
    expectOwnTokens(after);
    expect(server.ran.filter((u) => u !== "service").sort()).toEqual(USERS.flatMap((u) => Array<string>(10).fill(u)));
  });

  it("sends DPoP and X-Tenant on the same request as the call's Authorization", async () => {
    const server = later(await startBearerServer(kind));
    const toolkit = await toolkitOf({ x: configOf(server) });
    const whos: Who[] = [
      { user: "alice", dpop: "proof-of-alice", tenant: "tenant-a" },
      { user: "bob", dpop: "proof-of-bob", tenant: "tenant-b" },
      { tenant: "tenant-s" },
    ];
    const replies = await Promise.all(whos.map((who) => call(toolkit, who)));
    expect(replies.map((r) => r.text)).toEqual([dataOf("alice"), dataOf("bob"), dataOf("service")]);
    const seen = server.calls.map(({ caller, authorization, dpop, tenant }) => ({ caller, authorization, dpop, tenant }));
    expect(seen.sort((a, b) => String(a.caller).localeCompare(String(b.caller)))).toEqual([
      { caller: "alice", authorization: `Bearer ${TOKENS.alice}`, dpop: "proof-of-alice", tenant: "tenant-a" },
      { caller: "bob", authorization: `Bearer ${TOKENS.bob}`, dpop: "proof-of-bob", tenant: "tenant-b" },
      { caller: "service", authorization: `Bearer ${TOKENS.service}`, dpop: undefined, tenant: "tenant-s" },
    ]);
  });

  it("retries a call the server answered 503 with the same caller's token", async () => {
    const server = later(await startBearerServer(kind));
    const events: McpEvent[] = [];
    const toolkit = await toolkitOf({ x: configOf(server) }, events);
    const failing = new Set<string>(CALLERS);
    server.failWhen = (caller) => failing.delete(caller ?? "");
    const replies = await Promise.all(CALLERS.map((c) => call(toolkit, whoIs(c))));
    expect(replies.map((r) => r.text)).toEqual(CALLERS.map(dataOf));
    expect(events.filter((e) => e.type === "retry").map((e) => e.type === "retry" && e.error.reason)).toEqual(CALLERS.map(() => "service_unavailable"));
    expect(perCaller(server.calls)).toEqual({ alice: 2, bob: 2, carol: 2, service: 2 });
    expectOwnTokens(server.calls);
  });

  it("re-sends a call after the tool list is read again (tool_not_found) with the same caller's token", async () => {
    const server = later(await startBearerServer(kind));
    const toolkit = await toolkitOf({ x: configOf(server) });
    const lists = server.seen.filter((p) => p.method === "tools/list").length;
    const missing = new Set<string>(CALLERS);
    server.missWhen = (caller) => missing.delete(caller);
    const replies = await Promise.all(CALLERS.map((c) => call(toolkit, whoIs(c))));
    expect(replies.map((r) => r.text)).toEqual(CALLERS.map(dataOf));
    expect(missing.size).toBe(0);
    expect(server.seen.filter((p) => p.method === "tools/list").length).toBeGreaterThan(lists);
    expect(perCaller(server.calls)).toEqual({ alice: 2, bob: 2, carol: 2, service: 2 });
    expectOwnTokens(server.calls);
  });
});

describe("a fallback server", () => {
  it("gets the caller's token when the primary keeps failing", async () => {
    const primary = later(await startBearerServer("v1"));
    const backup = later(await startBearerServer("v2"));
    primary.failWhen = () => true;
    const events: McpEvent[] = [];
    const toolkit = await toolkitOf({ primary: configOf(primary, { fallback: "backup", retry: { retries: 0 } }), backup: configOf(backup, { exposeTools: false }) }, events);
    const replies = await Promise.all(CALLERS.map((c) => call(toolkit, whoIs(c))));
    // Each answer comes from the backup, under the note that says so, and is its own caller's.
    expect(replies.map((r) => r.text.replace(/^\[The primary server failed \(service_unavailable\); this answer came from the fallback server 'backup'\.\]\n/, ""))).toEqual(CALLERS.map(dataOf));
    expect(events.filter((e) => e.type === "fallback")).toHaveLength(4);
    expect(perCaller(primary.calls)).toEqual({ alice: 1, bob: 1, carol: 1, service: 1 });
    expectOwnTokens(primary.calls);
    expect(perCaller(backup.calls)).toEqual({ alice: 1, bob: 1, carol: 1, service: 1 });
    expectOwnTokens(backup.calls);
    expect(primary.ran).toEqual([]);
  });
});

describe("a call whose headers cannot be carried", () => {
  /** The refusal: interceptor_error, never sent, naming the header. */
  function expectRefused(error: McpToolError | undefined, header: string): void {
    expect(error).toMatchObject({ reason: "interceptor_error", outcome: "not_sent", data: { header } });
    expect(error?.message).toContain(`'${header}'`);
  }

  it("over stdio is refused unsent, naming Authorization, and the server never runs the tool", async () => {
    const dir = mkdtempSync(join(tmpdir(), "identity-"));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const log = join(dir, "calls.log");
    const toolkit = await toolkitOf({ x: { transport: "stdio", ...stdioFixtureCommand(), env: { FIXTURE_LOG: log } } });
    const refused = await call(toolkit, { user: "alice" }, "echo", { text: "for alice" });
    expectRefused(refused.error, "Authorization");
    // The same tool without per-call headers runs: the log holds that one execution only.
    expect((await call(toolkit, {}, "echo", { text: "for no one" })).text).toBe("for no one");
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["echo"]);
  });

  it("through a v1 client the user holds is refused unsent, naming the header", async () => {
    const server = later(await startBearerServer("v1"));
    const client = new V1Client({ name: "users-v1", version: "1.0.0" });
    await client.connect(new V1ClientTransport(server.url, { requestInit: { headers: SERVICE_HEADERS } }));
    later(client);
    const toolkit = await toolkitOf({ x: { client } });
    expectRefused((await call(toolkit, { user: "alice" })).error, "Authorization");
    expectRefused((await call(toolkit, { tenant: "tenant-a" })).error, "X-Tenant");
    expect((await call(toolkit, {})).text).toBe(dataOf("service"));
    expect(server.calls.map((c) => c.caller)).toEqual(["service"]);
    expect(server.ran).toEqual(["service"]);
  });

  it("through a v2 client the user holds carries X-Tenant, and refuses Authorization, naming it", async () => {
    const server = later(await startBearerServer("v2"));
    const client = new V2Client({ name: "users-v2", version: "2.0.0" });
    await client.connect(new V2ClientTransport(server.url, { requestInit: { headers: SERVICE_HEADERS } }));
    later(client);
    const toolkit = await toolkitOf({ x: { client } });
    expect((await call(toolkit, { tenant: "tenant-a" })).text).toBe(dataOf("service"));
    expectRefused((await call(toolkit, { user: "alice", tenant: "tenant-a" })).error, "Authorization");
    expect(server.calls.map(({ caller, authorization, tenant }) => ({ caller, authorization, tenant }))).toEqual([{ caller: "service", authorization: `Bearer ${TOKENS.service}`, tenant: "tenant-a" }]);
    expect(server.ran).toEqual(["service"]);
  });
});
