/**
 * The keep-alive check recognises a tool call by its JSON-RPC method wherever the key stands in
 * the body: the SDK's key order is no contract.
 */
import { describe, expect, it } from "vitest";
import { keepAliveSafe } from "../../src/mcp/transport/keepAlive.js";

describe("the keep-alive check before a tool call", () => {
  it.each([
    ['{"method":"tools/call","params":{"name":"echo"},"jsonrpc":"2.0","id":7}'],
    ['{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}'],
  ])("checks the connections first after a pause, whatever the key order: %s", async (body) => {
    const methods: string[] = [];
    const fetch = keepAliveSafe(async (_url, init) => {
      methods.push(init?.method ?? "GET");
      return new Response("{}", { status: 200 });
    }, { lastActivity: performance.now() - 60_000 }, 500);
    await fetch("http://127.0.0.1:1/mcp", { method: "POST", body });
    expect(methods).toEqual(["OPTIONS", "POST"]);
  });

  it("sends no check before other requests", async () => {
    const methods: string[] = [];
    const fetch = keepAliveSafe(async (_url, init) => {
      methods.push(init?.method ?? "GET");
      return new Response("{}", { status: 200 });
    }, { lastActivity: performance.now() - 60_000 }, 500);
    await fetch("http://127.0.0.1:1/mcp", { method: "POST", body: '{"jsonrpc":"2.0","id":8,"method":"tools/list"}' });
    expect(methods).toEqual(["POST"]);
  });
});
