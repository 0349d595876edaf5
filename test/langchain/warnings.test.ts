/**
 * Every mistake named where the user looks. A warning nobody listens for is printed (once per
 * toolkit, redacted, through process.emitWarning on Node), and every name in the configuration
 * is checked against what the servers list: `tools` keys by their server part and tool part,
 * globs included, `toolFilter` patterns, fallback servers and `idempotencyKey` properties. Under
 * `strict: true` connect() rejects with one error naming them all. Real MCP servers (the SDK's
 * McpServer) in memory: `fast` lists sleep and echo, `backup` echo, `mirror` sleep.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { z } from "zod";
import { McpConfigError, McpToolkit, type McpEvent, type McpToolkitConfig, type WarningEvent } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { connectInMemory } from "../servers/memory.js";

const cleanups = closeAfterEach();

const TOOLS = {
  fast: { sleep: { ms: z.number(), idempotency_key: z.string().optional() }, echo: { text: z.string() } },
  backup: { echo: { text: z.string() } },
  mirror: { sleep: { ms: z.number() } },
} as const;

/** The servers named, each a real McpServer connected in memory. */
async function serversOf(...names: (keyof typeof TOOLS)[]): Promise<McpToolkitConfig["servers"]> {
  const servers: McpToolkitConfig["servers"] = {};
  for (const name of names) {
    const server = new McpServer({ name, version: "1.0.0" });
    for (const [tool, inputSchema] of Object.entries(TOOLS[name])) {
      server.registerTool(tool, { description: tool, inputSchema }, async () => ({ content: [{ type: "text" as const, text: `${name}/${tool}` }] }));
    }
    const { client, close } = await connectInMemory(server);
    cleanups.push(close);
    servers[name] = { client };
  }
  return servers;
}

async function connect(config: McpToolkitConfig): Promise<McpToolkit> {
  const toolkit = await McpToolkit.connect(config);
  cleanups.push(() => toolkit.close());
  return toolkit;
}

/** A toolkit's own hub, to emit into it as the toolkit does. */
const hubOf = (toolkit: McpToolkit) => (toolkit as unknown as { events: { emit(event: McpEvent): void } }).events;

/** process.emitWarning as the platform calls it: a message and a type. */
let emitWarning: MockInstance<(warning: string | Error, type?: string) => void>;
beforeEach(() => {
  emitWarning = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined) as unknown as typeof emitWarning;
});
afterEach(() => emitWarning.mockRestore());

/** What was printed as the toolkit's warnings. */
const printed = () => emitWarning.mock.calls.filter(([, type]) => type === "McpToolkitWarning").map(([text]) => String(text));

describe("a warning nobody listens for", () => {
  it("is printed through process.emitWarning: a toolFilter typo that leaves the agent with no tools", async () => {
    const toolkit = await connect({ servers: await serversOf("fast").then(({ fast }) => ({ fast: { ...fast!, toolFilter: { allow: ["slep"] } } })) });
    expect(toolkit.getTools()).toEqual([]);
    expect(printed()).toEqual([`servers.fast.toolFilter.allow[0]: 'slep' matches no tool: server 'fast' lists no tool it matches; did you mean "sleep"?`]);
  });

  it("is printed once per toolkit, however often it is emitted again", async () => {
    const config = async (): Promise<McpToolkitConfig> => ({ servers: await serversOf("fast"), tools: { slep: { timeoutMs: 1_000 } } });
    const first = await connect(await config());
    const [text] = printed();
    expect(text).toMatch(/^tools\.slep: .*did you mean "sleep"\?$/);
    hubOf(first).emit({ type: "warning", field: "tools.slep", message: text!.slice("tools.slep: ".length) });
    hubOf(first).emit({ type: "warning", field: "tools.slep", message: text!.slice("tools.slep: ".length) });
    expect(printed()).toEqual([text]);
    // Another warning is another line; another toolkit prints its own.
    hubOf(first).emit({ type: "warning", field: "tools.x", message: "something else" });
    await connect(await config());
    expect(printed()).toEqual([text, "tools.x: something else", text]);
  });

  it("is printed as the toolkit's redaction leaves it", async () => {
    const secret = "tool-s3cr3t-9f2c41";
    await connect({ servers: await serversOf("fast").then(({ fast }) => ({ fast: { ...fast!, toolFilter: { deny: [secret] } } })), errors: { redact: [secret] } });
    expect(printed()).toHaveLength(1);
    expect(printed()[0]).toMatch(/^servers\.fast\.toolFilter\.deny\[0\]: /);
    expect(printed()[0]).not.toContain(secret);
  });

  it("is not printed when onEvent listens: the listener has it", async () => {
    const events: McpEvent[] = [];
    await connect({ servers: await serversOf("fast"), tools: { "fats/*": { timeoutMs: 1_000 } }, onEvent: (e) => events.push(e) });
    expect(events.filter((e) => e.type === "warning")).toEqual([{ type: "warning", field: "tools.fats/*", message: expect.stringContaining('did you mean "fast/*"?') }]);
    expect(printed()).toEqual([]);
  });

  it('is not printed once toolkit.on("warning") or on("*") listens', async () => {
    const toolkit = await connect({ servers: await serversOf("fast"), tools: { "fats/*": { timeoutMs: 1_000 } } });
    expect(printed()).toEqual([expect.stringMatching(/^tools\.fats\/\*: .*did you mean "fast\/\*"\?$/)]);
    const heard: WarningEvent[] = [];
    const stop = toolkit.on("warning", (e) => heard.push(e));
    hubOf(toolkit).emit({ type: "warning", field: "tools.a", message: "heard by on('warning')" });
    stop();
    const stopAll = toolkit.on("*", (e) => e.type === "warning" && heard.push(e));
    hubOf(toolkit).emit({ type: "warning", field: "tools.b", message: "heard by on('*')" });
    stopAll();
    expect(heard.map((e) => e.field)).toEqual(["tools.a", "tools.b"]);
    expect(printed()).toHaveLength(1);
  });

  it('is not printed with warnings: "silent"', async () => {
    const toolkit = await connect({ servers: await serversOf("fast"), tools: { "fats/*": { timeoutMs: 1_000 }, slep: {} }, warnings: "silent" });
    hubOf(toolkit).emit({ type: "warning", field: "tools.c", message: "silent" });
    expect(toolkit.getTools().map((t) => t.name)).toEqual(["sleep", "echo"]);
    expect(printed()).toEqual([]);
  });
});

describe("every name in the configuration is checked against what exists", () => {
  async function warningsOf(config: Omit<McpToolkitConfig, "servers">, ...names: (keyof typeof TOOLS)[]) {
    const events: McpEvent[] = [];
    await connect({ servers: await serversOf(...names), onEvent: (e) => events.push(e), ...config });
    return events.filter((e) => e.type === "warning").map(({ field, message }) => ({ field, message }));
  }

  it("a tools key with a misspelt server (fats/*, fats/sleep) or a glob that matches no tool (*/slep) warns with the nearest name", async () => {
    const warnings = await warningsOf({ tools: { "fats/*": { timeoutMs: 1_000 }, "fats/sleep": { retry: { retries: 0 } }, "*/slep": { idempotent: true }, "fast/*": {}, "*/sleep": {} } }, "fast", "mirror");
    expect(warnings).toEqual([
      { field: "tools.fats/*", message: `'fats/*' matches no tool: there is no server 'fats' (servers: fast, mirror), so its policy is never applied; did you mean "fast/*"?` },
      { field: "tools.fats/sleep", message: `'fats/sleep' matches no tool: there is no server 'fats' (servers: fast, mirror), so its policy is never applied; did you mean "fast/sleep"?` },
      { field: "tools.*/slep", message: `'*/slep' matches no tool: no server lists a tool it matches: its policy is never applied; did you mean "*/sleep"?` },
    ]);
  });

  it("a tool part that names no tool of its server warns with that server's nearest tool, also in a toolFilter", async () => {
    const warnings = await warningsOf({ tools: { "fast/slep": {} } }, "fast");
    expect(warnings).toEqual([{ field: "tools.fast/slep", message: expect.stringMatching(/server 'fast' lists no tool it matches: its policy is never applied; did you mean "fast\/sleep"\?$/) }]);
    const servers = await serversOf("fast");
    const events: McpEvent[] = [];
    await connect({ servers: { fast: { ...servers.fast!, toolFilter: { deny: ["fats/echo"] } } }, onEvent: (e) => events.push(e) });
    expect(events.filter((e) => e.type === "warning")).toEqual([{ type: "warning", field: "servers.fast.toolFilter.deny[0]", message: expect.stringMatching(/did you mean "fast\/echo"\?$/) }]);
  });

  it("a fallback server that lists none of the tools falling back to it warns, naming the server that does", async () => {
    const warnings = await warningsOf({ tools: { "fast/sleep": { fallback: "backup" } } }, "fast", "backup", "mirror");
    expect(warnings).toEqual([{ field: "tools.fast/sleep.fallback", message: `server 'backup' lists no tool 'sleep': the fallback never runs; did you mean "mirror"?` }]);
    const servers = await serversOf("backup", "mirror", "fast");
    const events: McpEvent[] = [];
    await connect({ servers: { ...servers, backup: { ...servers.backup!, fallback: "mirror" } }, onEvent: (e) => events.push(e) });
    expect(events.filter((e) => e.type === "warning")).toEqual([{ type: "warning", field: "servers.backup.fallback", message: `server 'mirror' lists no tool 'echo': the fallback never runs; did you mean "fast"?` }]);
  });

  it("an idempotencyKey that is no input property of its tool warns with the nearest property", async () => {
    const warnings = await warningsOf({ tools: { "fast/sleep": { idempotencyKey: "idempotency_kye" }, "mirror/sleep": { idempotencyKey: false } } }, "fast", "mirror");
    expect(warnings).toEqual([{ field: "tools.fast/sleep.idempotencyKey", message: expect.stringMatching(/^'idempotency_kye' is no input property of tool 'fast\/sleep': .*; did you mean "idempotency_key"\?$/) }]);
  });

  it("under strict: true, connect() rejects with one McpConfigError listing every miss", async () => {
    const servers = await serversOf("fast", "backup", "mirror");
    const rejected = await McpToolkit.connect({
      servers: { ...servers, fast: { ...servers.fast!, toolFilter: { deny: ["ecoh"] } } },
      tools: { "fats/*": {}, "fats/sleep": {}, "*/slep": {}, "fast/sleep": { fallback: "backup", idempotencyKey: "idem_key" } },
      strict: true,
    }).then(
      (toolkit) => toolkit.close().then(() => undefined),
      (e: unknown) => e,
    );
    expect(rejected).toBeInstanceOf(McpConfigError);
    const error = rejected as McpConfigError;
    expect(error.field).toBe("servers.fast.toolFilter.deny[0]");
    const lines = error.message.split("\n");
    expect(lines).toEqual([
      expect.stringMatching(/^Invalid MCP toolkit configuration: servers\.fast\.toolFilter\.deny\[0\]: .*did you mean "echo"\?$/),
      expect.stringMatching(/^ {2}tools\.fats\/\*: .*did you mean "fast\/\*"\?$/),
      expect.stringMatching(/^ {2}tools\.fats\/sleep: .*did you mean "fast\/sleep"\?$/),
      expect.stringMatching(/^ {2}tools\.\*\/slep: .*did you mean "\*\/sleep"\?$/),
      expect.stringMatching(/^ {2}tools\.fast\/sleep\.fallback: server 'backup' lists no tool 'sleep'.*did you mean "mirror"\?$/),
      expect.stringMatching(/^ {2}tools\.fast\/sleep\.idempotencyKey: 'idem_key' is no input property/),
    ]);
    expect(printed()).toEqual([]);
  });
});
