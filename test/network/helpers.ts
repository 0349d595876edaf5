/** Shared set-up for the network fault suite: a real SDK server, the faulty network in front, the toolkit. */
import type { ToolMessage } from "@langchain/core/messages";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { McpEvent, McpToolErrorJSON, McpToolkitConfig } from "../../src/index.js";
import { McpToolkit } from "../../src/index.js";
import { callToolOnce } from "../../src/mcp/call/callTool.js";
import type { Connection } from "../../src/mcp/session/Connection.js";
import { McpToolError } from "../../src/errors/McpToolError.js";
import { AttemptScope } from "../../src/policy/TimeoutPolicy.js";
import { sharedCleanups } from "../servers/cleanups.js";
import { startHttpFixture, type HttpFixture, type HttpFixtureOptions } from "../servers/http.js";

/** Closed after each test, in every file that imports these helpers (see `sharedCleanups`). */
export const cleanups = sharedCleanups;

export async function server(options: HttpFixtureOptions = {}): Promise<HttpFixture> {
  const http = await startHttpFixture(options);
  cleanups.push(() => http.close());
  return http;
}

/** Anything with a `close()`, closed after the test. */
export function closeLater<T extends { close(): Promise<void> }>(thing: T): T {
  cleanups.push(() => thing.close());
  return thing;
}

export interface Connected {
  toolkit: McpToolkit;
  events: McpEvent[];
  /** Calls a tool as the agent does and returns what the model gets: the text, and the error if any. */
  call(tool: string, args: Record<string, unknown>): Promise<{ status: "success" | "error"; content: string; error?: McpToolErrorJSON }>;
}

let ids = 0;

export async function toolkitFor(url: URL, server: Partial<Extract<McpToolkitConfig["servers"][string], { transport: "http" }>> = {}, rest: Partial<McpToolkitConfig> = {}): Promise<Connected> {
  const events: McpEvent[] = [];
  const toolkit = await McpToolkit.connect({
    servers: { remote: { transport: "http", url: url.href, ...server } },
    retry: { retries: 2, minTimeout: 5, maxTimeout: 5_000, randomize: false },
    breaker: { enabled: false },
    onEvent: (e) => events.push(e),
    ...rest,
  });
  cleanups.push(() => toolkit.close());
  return {
    toolkit,
    events,
    async call(tool, args) {
      const id = `call-${++ids}`;
      const reply = (await toolkit.getTool(tool)!.invoke({ type: "tool_call", id, name: tool, args })) as ToolMessage;
      const content = typeof reply.content === "string" ? reply.content : JSON.stringify(reply.content);
      return reply.status === "error" ? { status: "error", content, error: reply.artifact as McpToolErrorJSON } : { status: "success", content };
    },
  };
}

/** One attempt straight through a Connection, for options the toolkit's schema does not take yet. */
export async function attemptOn(connection: Connection, tool: string, args: Record<string, unknown>, timeoutMs = 15_000): Promise<CallToolResult | McpToolError> {
  const scope = new AttemptScope({ timeoutMs, resetTimeoutOnProgress: false });
  try {
    return await callToolOnce({ connection, mcpName: tool, sdkTimeoutMs: timeoutMs + 60_000, resetTimeoutOnProgress: false }, args, scope, 1, { toolName: tool, serverName: connection.name }, undefined);
  } catch (error) {
    if (error instanceof McpToolError) return error;
    throw error;
  } finally {
    scope.dispose();
  }
}
