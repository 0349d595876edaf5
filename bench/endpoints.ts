/**
 * The real MCP endpoints the connect section measures: the v1 and v2 test fixtures (HTTP in
 * this process, stdio as children) and `@modelcontextprotocol/server-everything`, the
 * reference server as published on npm, over stdio and over streamable HTTP in a child.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { HttpFixture } from "../test/servers/http.js";
import { stdioFixtureCommand } from "../test/servers/stdio.js";
import { startV2Http, type V2HttpFixture } from "../test/servers/v2/http.js";
import { v2StdioCommand } from "../test/servers/v2/stdio.js";
import { roleEnv } from "./servers.js";

export interface StdioCommand {
  command: string;
  args: string[];
}

const everythingEntry = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));

/** server-everything over stdio (plain JavaScript: no TypeScript compile at start-up). */
export function everythingStdioCommand(): StdioCommand {
  return { command: process.execPath, args: [everythingEntry, "stdio"] };
}

export { stdioFixtureCommand as v1StdioCommand, v2StdioCommand };

/** The HTTP endpoints, each listening on 127.0.0.1 until `close`. */
export interface HttpEndpoints {
  v2ModernOnly: URL;
  v2BothEras: URL;
  v2LegacySession: URL;
  v1: URL;
  everything: URL;
  close: () => Promise<void>;
}

export async function startHttpEndpoints(): Promise<HttpEndpoints> {
  const started: { close: () => Promise<void> }[] = [];
  const close = async () => {
    await Promise.allSettled(started.map((s) => s.close()));
  };
  try {
    const v2 = async (mode: "modern-only" | "modern" | "legacy-session"): Promise<V2HttpFixture> => {
      const fixture = await startV2Http({ mode });
      started.push(fixture);
      return fixture;
    };
    const modernOnly = await v2("modern-only");
    const both = await v2("modern");
    const legacySession = await v2("legacy-session");
    const v1 = await new HttpFixture().start();
    started.push(v1);
    const everything = await startEverythingHttp();
    started.push(everything);
    return { v2ModernOnly: modernOnly.url, v2BothEras: both.url, v2LegacySession: legacySession.url, v1: v1.url, everything: everything.url, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** server-everything's streamable HTTP transport in a child process; ready once it says it listens. */
async function startEverythingHttp(): Promise<{ url: URL; close: () => Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [everythingEntry, "streamableHttp"], {
    env: { ...process.env, ...roleEnv("bench-connect-everything-http"), PORT: String(port) },
    // It logs every request to stdout; only stderr says when it is ready.
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(timer);
  };
  let said = "";
  const ready = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 20_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      said = (said + chunk.toString()).slice(-2000);
      if (said.includes("listening on port")) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  if (!ready) {
    await close();
    throw new Error(`server-everything (streamableHttp) did not start listening within 20 s: ${said.trim().slice(-300)}`);
  }
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), close };
}
