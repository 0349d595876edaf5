/**
 * One exit for redaction: everything that leaves the library passes the toolkit's one redaction,
 * not only errors. Against real SDK servers: a v1 server over HTTP that echoes the configured
 * headers in its log messages and progress, and `@modelcontextprotocol/server-everything` over
 * stdio, whose `get-env` prints the environment the toolkit gave it.
 */
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { ToolMessage } from "@langchain/core/messages";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { runDoctor } from "../../src/cli/doctor.js";
import { formatReport } from "../../src/cli/format.js";
import { McpConfigError, McpToolkit, type McpEvent, type McpToolkitConfig } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { closesLater } from "../servers/replies.js";
import { everythingStdioCommand } from "../servers/tasks/everything.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);
const call = (name: string, args: Record<string, unknown> = {}) => ({ type: "tool_call" as const, id: "c1", name, args });

const API_KEY = "k3y-of-tenant-7f3a9c";
const TOKEN = "tok_9Zq2Lm4Xv8";

/** Every way a person or a program may read the thing. */
function renderings(thing: unknown): string[] {
  const out = [inspect(thing, { depth: 10 }), inspect(thing, { depth: 10, showHidden: true })];
  try {
    out.push(JSON.stringify(thing) ?? "");
  } catch {
    // A structure JSON cannot hold (a cycle) prints nothing, so it shows nothing either.
  }
  return out;
}

function expectNone(label: string, secrets: readonly string[], ...things: unknown[]): void {
  for (const thing of things) {
    for (const text of renderings(thing)) for (const secret of secrets) expect(text.includes(secret), `${label} shows ${secret}:\n${text.slice(0, 4000)}`).toBe(false);
  }
}

/** A v1 server that logs, and reports progress about, the credentials the request came with. */
function echoingServer() {
  const server = new McpServer({ name: "echo-creds", version: "1.0.0" }, { capabilities: { logging: {} } });
  server.registerTool("whoami", { description: "Logs the credentials it was called with." }, async (extra) => {
    const headers = extra.requestInfo?.headers ?? {};
    const said = `called with x-api-key ${String(headers["x-api-key"])} and ${String(headers.authorization)}`;
    await extra.sendNotification({ method: "notifications/message", params: { level: "warning", logger: `auth ${String(headers["x-api-key"])}`, data: { line: said, key: headers["x-api-key"] } } });
    const progressToken = extra._meta?.progressToken;
    if (progressToken !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress: 1, total: 2, message: said } });
    return { content: [{ type: "text", text: "ok" }] };
  });
  return server;
}

describe("events", () => {
  it("carry no configured header value: log data and logger, progress messages", async () => {
    const http = later(await startHttpFixture({ build: () => echoingServer() }));
    const events: McpEvent[] = [];
    const toolkit = later(
      await McpToolkit.connect({
        servers: { creds: { transport: "http", url: http.url.href, headers: { "X-Api-Key": API_KEY, Authorization: `Bearer ${TOKEN}` } } },
        onEvent: (e) => events.push(e),
      }),
    );
    const reply = (await toolkit.getTool("whoami")!.invoke(call("whoami"))) as ToolMessage;
    expect(reply.status).not.toBe("error");
    const log = events.find((e) => e.type === "log");
    const progress = events.find((e) => e.type === "progress");
    // The events arrived, their words kept: only the secrets went.
    expect(log).toMatchObject({ type: "log", level: "warning", data: { line: expect.stringContaining("called with x-api-key [REDACTED]") } });
    expect(progress).toMatchObject({ type: "progress", message: expect.stringContaining("called with x-api-key [REDACTED]") });
    expectNone("events", [API_KEY, TOKEN], events);
  });

  it("inside the tool's LangChain run carry none either: the mcp_progress custom event", async () => {
    const http = later(await startHttpFixture({ build: () => echoingServer() }));
    const toolkit = later(
      await McpToolkit.connect({ servers: { creds: { transport: "http", url: http.url.href, headers: { "X-Api-Key": API_KEY, Authorization: `Bearer ${TOKEN}` } } } }),
    );
    const custom: { name: string; data: unknown }[] = [];
    const handler = new (class extends BaseCallbackHandler {
      name = "recorder";
      override handleCustomEvent(name: string, data: unknown): void {
        custom.push({ name, data });
      }
    })();
    await toolkit.getTool("whoami")!.invoke(call("whoami"), { callbacks: [handler] });
    expect(custom).toContainEqual({ name: "mcp_progress", data: expect.objectContaining({ message: expect.stringContaining("called with x-api-key [REDACTED]") }) });
    expectNone("the run's custom events", [API_KEY, TOKEN], custom);
  });
});

describe("config errors", () => {
  const config = { servers: { a: { transport: "http", url: "http://user:hunter2@[bad" } } } as unknown as McpToolkitConfig;

  it("from connect() do not echo a password in an unparsable URL", async () => {
    const error = await McpToolkit.connect(config).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpConfigError);
    expect((error as McpConfigError).field).toBe("servers.a.url");
    expect(String(error)).toContain("not a valid URL");
    expectNone("connect()'s config error", ["hunter2"], error, String(error), (error as Error).stack);
  });

  it("from doctor do not echo it either", async () => {
    const file = join(tmpdir(), `one-exit-${process.pid}-${Date.now()}.json`);
    await writeFile(file, JSON.stringify({ mcpServers: { a: { type: "http", url: "http://user:hunter2@[bad" } } }));
    // doctor reports a configuration mistake with its field and goes on (the server it leaves unusable is not checked).
    const report = await runDoctor(file);
    expect(report.problems.map((p) => p.field)).toContain("mcpServers.a.url");
    expect(report.problems.find((p) => p.field === "mcpServers.a.url")?.problem).toContain("not a valid URL");
    expectNone("doctor's report of a config mistake", ["hunter2"], report, JSON.stringify(report), formatReport(report));
  });
});

// server-everything over stdio, given secrets under secret names, under a name that says nothing
// (DB_CONN), and ordinary settings that must stay readable.
const DB_PASSWORD = "s3cretpw";
const PLAIN = "acct7QpX2zz";
const ENV = { DB_CONN: `postgres://app:${DB_PASSWORD}@db/x`, API_TOKEN: TOKEN, TENANT_REF: PLAIN, NODE_ENV: "production", LOG_FORMAT: "json" };
const ENV_SECRETS = [ENV.DB_CONN, DB_PASSWORD, TOKEN, PLAIN];

function everything(extra: Partial<McpToolkitConfig> = {}): McpToolkitConfig {
  return { servers: { everything: { transport: "stdio", ...everythingStdioCommand(), env: ENV } }, ...extra };
}

describe("a successful result", () => {
  it("that echoes the configured env (get-env) reaches the model without its secrets, ordinary settings kept", async () => {
    const toolkit = later(await McpToolkit.connect(everything()));
    const reply = (await toolkit.getTool("get-env")!.invoke(call("get-env"))) as ToolMessage;
    expect(reply.status).not.toBe("error");
    const text = String(reply.content);
    expect(text).toContain('"DB_CONN": "[REDACTED]"');
    expect(text).toContain('"NODE_ENV": "production"');
    expect(text).toContain('"LOG_FORMAT": "json"');
    expectNone("get-env's reply", ENV_SECRETS, reply.content, reply.artifact);
  });

  it("is left as it is for a tool whose policy says redactResults: false", async () => {
    const toolkit = later(await McpToolkit.connect(everything({ tools: { "everything/get-env": { redactResults: false } } })));
    const reply = (await toolkit.getTool("get-env")!.invoke(call("get-env"))) as ToolMessage;
    for (const secret of ENV_SECRETS) expect(String(reply.content)).toContain(secret);
  });
});

describe("the toolkit, its tools and its connections", () => {
  it("print no configured secret under util.inspect or JSON.stringify", async () => {
    const http = later(await startHttpFixture({ build: () => echoingServer() }));
    const toolkit = later(
      await McpToolkit.connect({
        ...everything(),
        servers: { ...everything().servers, creds: { transport: "http", url: http.url.href, headers: { "X-Api-Key": API_KEY, Authorization: `Bearer ${TOKEN}` } } },
      }),
    );
    // Connected and listed: every object the toolkit keeps (transports, configs) is in place.
    expect(toolkit.getTool("whoami")).toBeDefined();
    const connections = (toolkit as unknown as { connections: Map<string, unknown> }).connections;
    expectNone("the toolkit", [API_KEY, TOKEN, ...ENV_SECRETS], toolkit, toolkit.getTool("whoami"), toolkit.getTool("get-env"), ...connections.values());
    // What it does print says what it is.
    expect(inspect(toolkit)).toContain("McpToolkit");
    expect(inspect(toolkit)).toContain("whoami");
  });
});
