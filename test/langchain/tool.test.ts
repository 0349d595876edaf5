/**
 * McpTool checks input with a schema compiled once, and otherwise behaves exactly like a
 * LangChain StructuredTool: the same callbacks, the same verdicts on input (told in one line),
 * the same schema seen by the model.
 */
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { StructuredTool, ToolInputParsingException } from "@langchain/core/tools";
import type { JSONSchema } from "@langchain/core/utils/json_schema";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { McpToolkit, type McpToolErrorJSON } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { connectInMemory } from "../servers/memory.js";
import type { ToolMessage } from "@langchain/core/messages";

const cleanups = closeAfterEach();

/** A schema with a $ref, a format, an enum, a nested object and an array. */
const ORDER_SCHEMA = {
  type: "object",
  $defs: { sku: { type: "string", pattern: "^[A-Z]{3}-\\d+$" } },
  properties: {
    email: { type: "string", format: "email" },
    priority: { enum: ["low", "high"] },
    address: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    items: { type: "array", items: { $ref: "#/$defs/sku" }, minItems: 1 },
  },
  required: ["email", "items"],
} as const;

async function orderToolkit() {
  const server = new Server({ name: "orders", version: "1.0.0" }, { capabilities: { tools: {} } });
  let calls = 0;
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "order", inputSchema: ORDER_SCHEMA as never }] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    calls++;
    if ((request.params.arguments as { email?: string }).email === "fail@example.com") throw new McpError(-32603, "orders database down");
    return { content: [{ type: "text", text: `ordered ${JSON.stringify(request.params.arguments)}` }] };
  });
  const { client, close } = await connectInMemory(server);
  const toolkit = await McpToolkit.connect({ servers: { orders: { client } }, retry: { retries: 0 } });
  cleanups.push(close, () => toolkit.close());
  return { tool: toolkit.getTool("order")!, calls: () => calls };
}

/** What LangChain's own StructuredTool says about the same input against the same schema. */
async function langchainVerdict(args: unknown): Promise<string | undefined> {
  class Plain extends StructuredTool {
    name = "order";
    description = "order";
    schema = ORDER_SCHEMA as unknown as JSONSchema;
    protected async _call(): Promise<string> {
      return "ok";
    }
  }
  try {
    await new Plain({ verboseParsingErrors: true }).invoke(args as never);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ToolInputParsingException);
    return (error as Error).message;
  }
}

class Recorder extends BaseCallbackHandler {
  name = "recorder";
  events: string[] = [];
  override handleToolStart(): void {
    this.events.push("start");
  }
  override handleToolEnd(): void {
    this.events.push("end");
  }
  override handleToolError(): void {
    this.events.push("error");
  }
}

const good = { email: "a@example.com", priority: "high", address: { city: "Oslo" }, items: ["ABC-1"] };

describe("McpTool input validation", () => {
  it.each([
    ["a wrong enum value", { ...good, priority: "urgent" }, `'priority' must be one of "low", "high"`],
    ["an item that fails the referenced pattern", { ...good, items: ["abc"] }, "'items[0]' must match the pattern ^[A-Z]{3}-\\d+$"],
    ["a nested object missing its required field", { ...good, address: {} }, "'address.city' is required"],
    ["a missing required field", { priority: "low" }, "'email' is required; 'items' is required"],
  ])("rejects %s where LangChain itself does, in one line naming the field, and never calls the server", async (_what, args, said) => {
    const { tool, calls } = await orderToolkit();
    expect(await langchainVerdict(args)).toBeDefined();
    const reply = (await tool.invoke({ type: "tool_call", id: "c1", name: "order", args })) as ToolMessage;
    expect(reply.status).toBe("error");
    const artifact = reply.artifact as McpToolErrorJSON;
    expect(artifact.reason).toBe("invalid_arguments");
    expect(artifact.message).toBe(`Invalid arguments: ${said}.`);
    expect(calls()).toBe(0);
  });

  it("accepts valid input, keeps the real schema for the model, and survives concurrent calls", async () => {
    const { tool, calls } = await orderToolkit();
    expect(await langchainVerdict(good)).toBeUndefined();
    const replies = await Promise.all(Array.from({ length: 20 }, () => tool.invoke(good)));
    expect(replies.every((r) => typeof r === "string" && r.startsWith("ordered "))).toBe(true);
    expect(calls()).toBe(20);
    expect(tool.schema).toEqual(ORDER_SCHEMA);
  });

  it("fires LangChain's callbacks as a StructuredTool does: start and end, start and error, none for bad input", async () => {
    const { tool } = await orderToolkit();
    const recorder = new Recorder();
    await tool.invoke(good, { callbacks: [recorder] });
    expect(recorder.events).toEqual(["start", "end"]);

    const failing = new Recorder();
    expect(await tool.invoke({ ...good, email: "fail@example.com" }, { callbacks: [failing] })).toContain("(internal_error)");
    expect(failing.events).toEqual(["start", "error"]);

    const bad = new Recorder();
    await tool.invoke({ ...good, priority: "urgent" }, { callbacks: [bad] });
    expect(bad.events).toEqual([]);
  });
});
