/**
 * A stdio server with one resource, `test://pinned/file`, whose text is the file PIN_FILE holds,
 * with `subscribe` and `listChanged` declared: PIN_SDK=v2 serves it with the v2 package's
 * `serveStdio` (a 2026-07-28 opening gets a `subscriptions/listen` stream), anything else with the
 * v1 SDK (2025 `resources/subscribe`). It writes its pid to PIN_PID, for a test to kill it.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const FILE_URI = "test://pinned/file";

/** The command that starts this file as a stdio server, on the SDK line given. */
export function pinStdioServer(sdk: "v1" | "v2", file: string, pidFile: string): { transport: "stdio"; command: string; args: string[]; env: Record<string, string> } {
  return { transport: "stdio", command: process.execPath, args: ["--import", "tsx", fileURLToPath(import.meta.url)], env: { PIN_SDK: sdk, PIN_FILE: file, PIN_PID: pidFile } };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(process.env.PIN_PID!, String(process.pid));
  const read = (uri: URL) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: readFileSync(process.env.PIN_FILE!, "utf8") }] });
  const capabilities = { capabilities: { resources: { subscribe: true, listChanged: true } } };
  if (process.env.PIN_SDK === "v2") {
    const { McpServer } = await import("@modelcontextprotocol/server");
    const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
    serveStdio(() => {
      const server = new McpServer({ name: "pin-stdio-v2", version: "2.0.0" }, capabilities);
      server.registerResource("file", FILE_URI, { mimeType: "text/plain" }, async (uri) => read(uri));
      return server;
    });
  } else {
    const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
    const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
    const { SubscribeRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
    const server = new McpServer({ name: "pin-stdio-v1", version: "1.0.0" }, capabilities);
    server.registerResource("file", FILE_URI, { mimeType: "text/plain" }, async (uri) => read(uri));
    server.server.setRequestHandler(SubscribeRequestSchema, async () => ({}));
    await server.connect(new StdioServerTransport());
  }
}
