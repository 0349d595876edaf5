/**
 * Which tools the model is offered: a server's `toolFilter` allow and deny globs, the toolkit's
 * `filter(tool, serverName)`, against real servers (the v1 fixture over stdio and HTTP, the v2
 * fixture over HTTP). A hidden tool still answers as a fallback, and tools a server adds later
 * pass the same filters.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent } from "../../src/index.js";
import { eventually } from "../errors/helpers.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { stdioFixtureCommand } from "../servers/stdio.js";
import { startV2Http } from "../servers/v2/http.js";

const cleanups = closeAfterEach();
const names = (toolkit: McpToolkit) => toolkit.getTools().map((t) => t.name).sort();

describe("a server's toolFilter", () => {
  it("offers the tools its allow globs match, less those a deny glob matches (stdio)", async () => {
    const toolkit = await McpToolkit.connect({
      servers: { local: { transport: "stdio", ...stdioFixtureCommand(), toolFilter: { allow: ["echo", "fail*", "local/slow"], deny: ["*_image"] } } },
    });
    cleanups.push(() => toolkit.close());
    expect(names(toolkit)).toEqual(["echo", "fail", "fail_empty", "slow"]);
    expect(toolkit.status().local!.tools.sort()).toEqual(["echo", "fail", "fail_empty", "slow"]);
    expect(toolkit.getTool("crash")).toBeUndefined();
    expect(await toolkit.getTool("echo")!.invoke({ text: "kept" })).toBe("kept");
  });

  it("without allow offers every tool but the denied ones, per server: another server's same-named tool is untouched (HTTP, v1 and v2)", async () => {
    const v1 = await startHttpFixture();
    const v2 = await startV2Http({ mode: "modern" });
    cleanups.push(() => v1.close(), () => v2.close());
    const toolkit = await McpToolkit.connect({
      servers: {
        one: { transport: "http", url: v1.url.href, toolFilter: { deny: ["crash", "counter", "fail*"] } },
        two: { transport: "http", url: v2.url.href, toolFilter: { deny: ["two/echo"] } },
      },
    });
    cleanups.push(() => toolkit.close());
    const offered = toolkit.getTools();
    // `echo` is offered once, from `one`: `two`'s is denied, so there is no clash to prefix.
    expect(offered.filter((t) => t.name === "echo").map((t) => t.metadata.serverName)).toEqual(["one"]);
    const fromOne = offered.filter((t) => t.metadata.serverName === "one").map((t) => t.name);
    expect(fromOne).toEqual(expect.arrayContaining(["echo", "lookup", "transfer"]));
    for (const denied of ["crash", "counter", "fail", "fail_empty", "fail_image"]) expect(fromOne).not.toContain(denied);
    expect(offered.filter((t) => t.metadata.serverName === "two").map((t) => t.name)).toContain("confirm");
    expect(toolkit.status().two!.tools).not.toContain("echo");
  });
});

describe("the toolkit's filter", () => {
  it("is given each MCP tool as listed, with its annotations, and the server's name; false hides the tool", async () => {
    const seen: { server: string; tool: string; readOnly: boolean | undefined }[] = [];
    const v1 = await startHttpFixture();
    cleanups.push(() => v1.close());
    const toolkit = await McpToolkit.connect({
      servers: { files: { transport: "stdio", ...stdioFixtureCommand() }, web: { transport: "http", url: v1.url.href } },
      prefixToolNames: true,
      filter: (tool: Tool, serverName) => {
        seen.push({ server: serverName, tool: tool.name, readOnly: tool.annotations?.readOnlyHint });
        return tool.annotations?.readOnlyHint === true && !(serverName === "web" && tool.name === "slow");
      },
    });
    cleanups.push(() => toolkit.close());
    expect(seen).toContainEqual({ server: "web", tool: "transfer", readOnly: undefined });
    expect(seen).toContainEqual({ server: "files", tool: "echo", readOnly: true });
    expect(names(toolkit)).toEqual(["files__echo", "files__flaky", "files__lookup", "files__slow", "web__echo", "web__flaky", "web__lookup"]);
  });

  it("hides a tool when it throws, and is applied after toolFilter (a tool toolFilter hides is never shown to it)", async () => {
    const asked: string[] = [];
    const toolkit = await McpToolkit.connect({
      servers: { local: { transport: "stdio", ...stdioFixtureCommand(), toolFilter: { allow: ["echo", "counter", "fail"] } } },
      filter: (tool) => {
        asked.push(tool.name);
        if (tool.name === "counter") throw new Error("the filter broke");
        return true;
      },
    });
    cleanups.push(() => toolkit.close());
    expect(asked.sort()).toEqual(["counter", "echo", "fail"]);
    expect(names(toolkit)).toEqual(["echo", "fail"]);
  });
});

describe("a hidden tool", () => {
  it("still answers as another server's fallback, as exposeTools: false does", async () => {
    const primary = await startHttpFixture();
    const backup = await startHttpFixture();
    cleanups.push(() => primary.close(), () => backup.close());
    const toolkit = await McpToolkit.connect({
      servers: {
        primary: { transport: "http", url: primary.url.href, fallback: "backup" },
        backup: { transport: "http", url: backup.url.href, toolFilter: { deny: ["*"] } },
      },
      retry: { retries: 0 },
    });
    cleanups.push(() => toolkit.close());
    expect(toolkit.getTools().every((t) => t.metadata.serverName === "primary")).toBe(true);
    expect(toolkit.status().backup!.tools).toEqual([]);
    primary.failNext(503);
    const reply = (await toolkit.getTool("echo")!.invoke({ type: "tool_call", id: "c1", name: "echo", args: { text: "hello" } })) as ToolMessage;
    expect(reply.status).toBe("success");
    expect(reply.content).toContain("this answer came from the fallback server 'backup'");
    expect(backup.state.calls).toEqual(["echo"]);
  });
});

describe("tools a server adds later", () => {
  it("pass the same filters: only the allowed one joins getTools() and tools_changed", async () => {
    const http = await startHttpFixture({
      build: () => {
        const server = new McpServer({ name: "growing", version: "1.0.0" });
        server.registerTool("grow", { description: "Adds two tools." }, async () => {
          server.registerTool("extra_read", { description: "Appears later." }, async () => ({ content: [{ type: "text", text: "read" }] }));
          server.registerTool("extra_delete", { description: "Appears later, denied." }, async () => ({ content: [{ type: "text", text: "deleted" }] }));
          return { content: [{ type: "text", text: "grown" }] };
        });
        return server;
      },
    });
    cleanups.push(() => http.close());
    const events: McpEvent[] = [];
    const toolkit = await McpToolkit.connect({
      servers: { s: { transport: "http", url: http.url.href, toolFilter: { deny: ["*_delete"] } } },
      onEvent: (e) => events.push(e),
    });
    cleanups.push(() => toolkit.close());
    await toolkit.getTool("grow")!.invoke({});
    await eventually(() => expect(names(toolkit)).toEqual(["extra_read", "grow"]));
    expect(events.filter((e) => e.type === "tools_changed")).toEqual([{ type: "tools_changed", serverName: "s", added: ["extra_read"], removed: [] }]);
  });
});
