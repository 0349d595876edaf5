/**
 * A write keyed only by its schema, on a server that ignores the key: the toolkit repeats it after
 * each unknown outcome (the key is the fact that makes that safe), so the model and the artifact
 * must say how many sends went out under the one key: the key protects only where it is honoured.
 */
import type { ToolMessage } from "@langchain/core/messages";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { McpToolkit, type McpToolErrorJSON } from "../../src/index.js";
import { closeAfterEach } from "../servers/cleanups.js";
import { connectInMemory } from "../servers/memory.js";

const cleanups = closeAfterEach();

describe("keyed repeats, counted aloud", () => {
  it("says a write timed out three times went out three times under one key, on a server that ignores it", async () => {
    const keys: string[] = [];
    const server = new McpServer({ name: "payments", version: "1.0.0" });
    // Runs every send it gets, whatever its key, and answers after the caller has given up.
    server.registerTool("pay", { description: "Pays.", inputSchema: { amount: z.number(), idempotency_key: z.string() } }, async ({ idempotency_key }) => {
      keys.push(idempotency_key);
      await new Promise((resolve) => setTimeout(resolve, 600));
      return { content: [{ type: "text" as const, text: "paid" }] };
    });
    const { client, close } = await connectInMemory(server);
    const toolkit = await McpToolkit.connect({ servers: { pay: { client } }, tools: { pay: { timeoutMs: 200 } }, retry: { retries: 2, minTimeout: 10, maxTimeout: 20 } });
    cleanups.push(close, () => toolkit.close());

    const reply = (await toolkit.getTool("pay")!.invoke({ type: "tool_call", id: "p1", name: "pay", args: { amount: 25 } })) as ToolMessage;
    expect(reply.status).toBe("error");
    const error = reply.artifact as McpToolErrorJSON;
    expect(error).toMatchObject({ reason: "request_timeout", outcome: "unknown", attempts: 3, data: { keyedSends: 3 } });
    expect(reply.content).toContain("It went out 3 times under one idempotency key");
    expect(reply.content).toContain("one that ignores it may have run it 3 times");
    // The server saw the one key three times: it ran the write three times.
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect((error.data as { idempotencyKey?: string }).idempotencyKey).toBe(keys[0]);
  });

  it("says nothing of repeats when the key went out once", async () => {
    const server = new McpServer({ name: "payments", version: "1.0.0" });
    server.registerTool("pay", { description: "Pays.", inputSchema: { amount: z.number(), idempotency_key: z.string() } }, async () => ({ content: [{ type: "text" as const, text: "card declined" }], isError: true }));
    const { client, close } = await connectInMemory(server);
    const toolkit = await McpToolkit.connect({ servers: { pay: { client } } });
    cleanups.push(close, () => toolkit.close());
    const reply = (await toolkit.getTool("pay")!.invoke({ type: "tool_call", id: "p2", name: "pay", args: { amount: 25 } })) as ToolMessage;
    expect(reply.artifact as McpToolErrorJSON).toMatchObject({ reason: "tool_error" });
    expect((reply.artifact as McpToolErrorJSON).data).not.toHaveProperty("keyedSends");
    expect(String(reply.content)).not.toContain("under one idempotency key");
  });
});
