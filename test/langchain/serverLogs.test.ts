/**
 * Server log messages are visible: `log` events at the server's `logLevel` (asked of a 2025-era
 * server with logging/setLevel), and the warnings a server logged during a failed call go into
 * the error's artifact, never the model's text.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpEvent, type McpToolErrorJSON } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { startHttpFixture } from "../servers/http.js";
import { closesLater } from "../servers/replies.js";

const cleanups = closeAfterEach();
const later = closesLater(cleanups);

/** A v1 (2025-era) server that logs at every level, then fails with isError. */
function loggingServer() {
  const server = new McpServer({ name: "logger", version: "1.0.0" }, { capabilities: { logging: {} } });
  server.registerTool("migrate", { description: "Logs, then fails." }, async (extra) => {
    for (const level of ["debug", "info", "warning", "error"] as const) {
      // On the call's own stream, as a server logs about the request it is serving.
      await extra.sendNotification({ method: "notifications/message", params: { level, logger: "migrator", data: `${level}: step ${level}` } });
    }
    return { isError: true, content: [{ type: "text", text: "migration failed" }] };
  });
  return server;
}

describe("a server's log messages", () => {
  it("become log events at the server's logLevel, and the call's warnings go into the artifact, not the model's text", async () => {
    const http = later(await startHttpFixture({ build: () => loggingServer() }));
    const events: McpEvent[] = [];
    const toolkit = later(await McpToolkit.connect({ servers: { db: { transport: "http", url: http.url.href, logLevel: "info" } }, onEvent: (e) => events.push(e) }));
    const reply = (await toolkit.getTool("migrate")!.invoke({ type: "tool_call", id: "c1", name: "migrate", args: {} })) as ToolMessage;
    const logs = events.filter((e) => e.type === "log");
    // Below the server's logLevel (info), no event: the debug line is left out.
    expect(logs).toEqual(
      (["info", "warning", "error"] as const).map((level) => ({ type: "log", serverName: "db", level, logger: "migrator", data: `${level}: step ${level}` })),
    );
    const artifact = reply.artifact as McpToolErrorJSON;
    expect(artifact.reason).toBe("tool_error");
    expect((artifact.data as { serverLogs?: unknown }).serverLogs).toEqual([
      { level: "warning", logger: "migrator", data: "warning: step warning" },
      { level: "error", logger: "migrator", data: "error: step error" },
    ]);
    expect(String(reply.content)).not.toContain("step warning");
  });
});
