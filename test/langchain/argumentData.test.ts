/**
 * Issue 35: an `invalid_arguments` error's data said `received: "object"` whatever was wrong,
 * and the field errors were only in the model's line. Its data now says, for each bad field,
 * what type was sent there (`missing` where nothing was), and lists each problem for code.
 * Through a real toolkit over a v1 server in memory, and LangChain's own zod check.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { DynamicStructuredTool, ToolInputParsingException } from "@langchain/core/tools";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { McpToolkit, type McpToolErrorJSON } from "../../src/index.js";
import { invalidArgumentsData } from "../../src/langchain/argumentData.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { connectInMemory } from "../servers/memory.js";

const cleanups = closeAfterEach();

const SCHEMA = {
  type: "object",
  properties: {
    path: { type: "string" },
    depth: { type: "integer", minimum: 0 },
    mode: { enum: ["fast", "full"] },
    edits: { type: "array", items: { type: "object", properties: { oldText: { type: "string" } }, required: ["oldText"] } },
  },
  required: ["path", "depth"],
} as const;

async function tool() {
  const server = new Server({ name: "files", version: "1.0.0" }, { capabilities: { tools: {} } });
  let calls = 0;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "read", inputSchema: SCHEMA as never }] }));
  server.setRequestHandler(CallToolRequestSchema, async () => {
    calls++;
    return { content: [{ type: "text", text: "read" }] };
  });
  const { client, close } = await connectInMemory(server);
  const toolkit = await McpToolkit.connect({ servers: { files: { client } } });
  cleanups.push(close, () => toolkit.close());
  return { read: toolkit.getTool("read")!, calls: () => calls };
}

describe("the data of an invalid_arguments error", () => {
  it("says what was received for each bad field and lists the field errors, the values never", async () => {
    const { read, calls } = await tool();
    const args = { path: 42, mode: "slow", edits: [{ oldText: true }] };
    const reply = (await read.invoke({ type: "tool_call", id: "c1", name: "read", args })) as ToolMessage;
    const artifact = reply.artifact as McpToolErrorJSON;
    expect(artifact.reason).toBe("invalid_arguments");
    expect(artifact.data).toEqual({
      received: { path: "number", mode: "string", "edits[0].oldText": "boolean", depth: "missing" },
      fields: [
        { field: "path", keyword: "type", problem: "'path' must be a string (got number)", received: "number" },
        { field: "mode", keyword: "enum", problem: `'mode' must be one of "fast", "full"`, received: "string" },
        { field: "edits[0].oldText", keyword: "type", problem: "'edits[0].oldText' must be a string (got boolean)", received: "boolean" },
        { field: "depth", keyword: "required", problem: "'depth' is required", received: "missing" },
      ],
    });
    expect(JSON.stringify(artifact.data)).not.toContain("slow");
    expect(calls()).toBe(0);
  });

  it("names the arguments as a whole when they are not an object", async () => {
    const { read } = await tool();
    const reply = (await read.invoke({ type: "tool_call", id: "c2", name: "read", args: ["x"] as never })) as ToolMessage;
    expect((reply.artifact as McpToolErrorJSON).data).toMatchObject({ received: { "": "array" } });
  });
});

describe("a zod schema's issues (LangChain's own check)", () => {
  it("become the same fields", async () => {
    const zodTool = new DynamicStructuredTool({ name: "z", description: "z", schema: z.object({ path: z.string(), depth: z.number() }), func: async () => "ok", verboseParsingErrors: true });
    const args = { path: 7 };
    const thrown = await zodTool.invoke(args as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(thrown).toBeInstanceOf(ToolInputParsingException);
    const data = invalidArgumentsData(thrown as ToolInputParsingException, args);
    expect(data.received).toEqual({ path: "number", depth: "missing" });
    expect(data.fields.map((f) => f.field)).toEqual(["path", "depth"]);
    expect(data.fields[0]).toMatchObject({ keyword: "invalid_type", problem: "'path' must be a string (got number)" });
  });
});
