import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { buildFixtureServer, newState } from "./servers/fixture.js";
import { startHttpFixture } from "./servers/http.js";
import { connectInMemory } from "./servers/memory.js";
import { stdioFixtureCommand } from "./servers/stdio.js";

describe("fixture servers", () => {
  it("answers echo in memory", async () => {
    const { client, close } = await connectInMemory(buildFixtureServer(newState()));
    const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result.content).toEqual([{ type: "text", text: "hi" }]);
    await close();
  });

  it("answers echo over stdio", async () => {
    const client = new Client({ name: "t", version: "1" });
    await client.connect(new StdioClientTransport({ ...stdioFixtureCommand(), stderr: "pipe" }));
    const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result.content).toEqual([{ type: "text", text: "hi" }]);
    await client.close();
  });

  it("answers echo over streamable HTTP", async () => {
    const http = await startHttpFixture();
    const client = new Client({ name: "t", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(http.url));
    const result = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result.content).toEqual([{ type: "text", text: "hi" }]);
    expect(http.sessionCount).toBe(1);
    await client.close();
    await http.close();
  });
});
