/**
 * The servers the bench talks to. In memory it uses its own echo server, which keeps no
 * per-call state (the test fixture records every call, which would read as a leak); over
 * stdio and HTTP it uses the test fixtures.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { z } from "zod";
import { stdioFixtureCommand } from "../test/servers/stdio.js";
import { childPids } from "../test/chaos/support.js";
import { connectInMemory } from "../test/servers/memory.js";

/** A server with one tool, `echo`, shaped like the fixture's. */
export function buildEchoServer(): McpServer {
  const server = new McpServer({ name: "bench-echo", version: "1.0.0" });
  server.registerTool(
    "echo",
    { description: "Echo the text back.", inputSchema: { text: z.string() }, annotations: { readOnlyHint: true, idempotentHint: true } },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}

export interface Connected {
  client: Client;
  close: () => Promise<void>;
}

/** In memory, through the same helper the tests use. */
export function connectMemory(server: McpServer | Server = buildEchoServer()): Promise<Connected> {
  return connectInMemory(server);
}

/** Env that marks a stdio child, so the bench can find (and kill) exactly that process. */
export const roleEnv = (role: string): Record<string, string> => ({ BENCH_ROLE: role });

/** The stdio fixture as a child process, with a client of our own. */
export async function connectStdio(role: string): Promise<Connected & { pid: number | null }> {
  const transport = new StdioClientTransport({ ...stdioFixtureCommand(), env: roleEnv(role), stderr: "ignore" });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid, close: () => client.close() };
}

export { childPids };

export async function connectHttp(url: URL): Promise<Connected> {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url));
  return { client, close: () => client.close() };
}

/** The live children started with `BENCH_ROLE=<role>`. */
export function childrenWithRole(role: string): number[] {
  const out: number[] = [];
  for (const pid of childPids()) {
    try {
      const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
      const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
      if (state !== "Z" && env.includes(`BENCH_ROLE=${role}`)) out.push(pid);
    } catch {
      // The child exited between the listing and the read.
    }
  }
  return out;
}

/** The bench's plain-JavaScript stdio echo server (bench/echo-server.mjs), which starts fast. */
export function echoStdioCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: [fileURLToPath(new URL("./echo-server.mjs", import.meta.url))] };
}
