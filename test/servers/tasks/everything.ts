/**
 * The reference server `@modelcontextprotocol/server-everything` (built on the v1 SDK, so it
 * speaks the 2025 revisions only), whose `simulate-research-query` tool requires task execution.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { createServer } from "node:net";

const ENTRY = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");

/** The command that serves it over stdio. */
export function everythingStdioCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: [ENTRY, "stdio"] };
}

export interface EverythingHttp {
  url: URL;
  close(): Promise<void>;
}

/** Serves it over streamable HTTP on a free port; resolves once it listens. */
export async function startEverythingHttp(): Promise<EverythingHttp> {
  const port = await freePort();
  const child = spawn(process.execPath, [ENTRY, "streamableHttp"], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  const exited = once(child, "exit");
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${seen}`)), 20_000);
    child.stderr.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (/listening on port/i.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(([code]) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited (${code}) before listening: ${seen}`));
    });
  });
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
