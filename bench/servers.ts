/**
 * Where the bench's servers run and how clients reach them: in memory (server and client in
 * this process), or the bench server (bench/server/) as a child process over stdio or HTTP,
 * so the child's work and memory stay out of this process's figures.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client as V2Client, StreamableHTTPClientTransport as V2StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { childPids } from "../test/chaos/support.js";
import { connectInMemory } from "../test/servers/memory.js";
import { buildBenchServer, buildProtocolErrorServer } from "./server/tools.js";

export { childPids };

export interface Connected {
  client: Client;
  close: () => Promise<void>;
}

const newClient = () => new Client({ name: "bench", version: "1.0.0" });

export function connectMemory(server: McpServer | Server = buildBenchServer()): Promise<Connected> {
  return connectInMemory(server);
}

/** Env that marks a child, so the bench can find (and kill) exactly that process. */
export const roleEnv = (role: string): Record<string, string> => ({ BENCH_ROLE: role });

const entry = fileURLToPath(new URL("./server/entry.ts", import.meta.url));

/** The bench server as a stdio child (through tsx: start-up is slower, calls are not). */
export function benchStdioCommand(extra: string[] = []): { command: string; args: string[] } {
  return { command: process.execPath, args: ["--import", "tsx", entry, "--stdio", ...extra] };
}

/** The bench's plain-JavaScript stdio echo server (bench/echo-server.mjs), which starts fast. */
export function echoStdioCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: [fileURLToPath(new URL("./echo-server.mjs", import.meta.url))] };
}

/** `extra`: more arguments for server/entry.ts (`--protocol-errors`). */
export async function connectStdio(role: string, extra: string[] = []): Promise<Connected> {
  const transport = new StdioClientTransport({ ...benchStdioCommand(extra), env: roleEnv(role), stderr: "ignore" });
  const client = newClient();
  await client.connect(transport);
  return { client, close: () => client.close() };
}

export async function connectHttp(url: URL): Promise<Connected> {
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(url));
  return { client, close: () => client.close() };
}

/** A v2 SDK client (`@modelcontextprotocol/client`, the line ours runs on) over streamable HTTP, in its default (2025) era. */
export async function connectHttpV2(url: URL): Promise<{ client: V2Client; close: () => Promise<void> }> {
  const client = new V2Client({ name: "bench", version: "1.0.0" });
  await client.connect(new V2StreamableHTTPClientTransport(url));
  return { client, close: () => client.close() };
}

export type Transport = "memory" | "stdio" | "http";

/**
 * A v1 SDK client (the line the adapters ship with) to the bench server, or with
 * `protocolErrors` to the JSON-RPC error server: in this process (memory), or in a child
 * process over stdio or streamable HTTP. `close` closes the client and the child.
 */
export async function connectOver(transport: Transport, role: string, protocolErrors = false): Promise<Connected> {
  const extra = protocolErrors ? ["--protocol-errors"] : [];
  if (transport === "memory") return connectMemory(protocolErrors ? buildProtocolErrorServer() : buildBenchServer());
  if (transport === "stdio") return connectStdio(role, extra);
  const child = await startHttpChild(role, extra);
  try {
    const http = await connectHttp(child.url);
    return { client: http.client, close: () => http.close().finally(child.close) };
  } catch (error) {
    await child.close();
    throw error;
  }
}

/** The bench server over HTTP in a child process. */
export interface HttpChild {
  url: URL;
  /** Forgets every session and listens again; resolves with `performance.now()` once it is back. */
  restart: () => Promise<number>;
  /** Ends the process (its stdin closes) and waits for it to exit. */
  close: () => Promise<void>;
}

export async function startHttpChild(role = "bench-http", extra: string[] = []): Promise<HttpChild> {
  const child = spawn(process.execPath, ["--import", "tsx", entry, "--http", ...extra], { env: { ...process.env, ...roleEnv(role) }, stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const lines = createInterface({ input: child.stdout! });
  const waiters: ((line: string) => void)[] = [];
  lines.on("line", (line) => waiters.shift()?.(line));
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("The HTTP bench server did not answer within 20 s.")), 20_000);
      waiters.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });
  const first = await nextLine();
  if (!first.startsWith("listening ")) throw new Error(`The HTTP bench server said: ${first}`);
  return {
    url: new URL(first.slice("listening ".length)),
    restart: async () => {
      const back = nextLine();
      child.stdin!.write("restart\n");
      if ((await back) !== "back") throw new Error("The HTTP bench server did not come back.");
      return performance.now();
    },
    close: async () => {
      child.stdin!.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
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
