/**
 * The kinds of server the restart suite restarts: the servers users run, each in its default
 * setup, and how the toolkit reaches them. Each kind offers a read (idempotent) and a write (not
 * idempotent, its executions counted in the ledger file by the caller's id).
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import type { ServerConfig } from "../../src/index.js";
import { freePort, GATE, RestartableHttp, RestartableStdio, type Fault, type FaultTimes } from "./processes.js";

export type KindName =
  | "v1-sessionful"
  | "v1-stateless"
  | "v2-modern"
  | "v2-legacy-session"
  | "everything-http"
  | "everything-sse"
  | "fastmcp-stateful"
  | "fastmcp-stateless"
  | "stdio-crashloop";

export const KIND_NAMES: readonly KindName[] = [
  "v1-sessionful",
  "v1-stateless",
  "v2-modern",
  "v2-legacy-session",
  "everything-http",
  "everything-sse",
  "fastmcp-stateful",
  "fastmcp-stateless",
  "stdio-crashloop",
];

/** What a read or a write sends: the tool's name and its arguments for one call. */
export interface Operation {
  tool: string;
  args: (id: string, ms: number) => Record<string, unknown>;
  /** The tool does no work of its own (server-everything's `echo`): none is subtracted from its time. */
  instant?: true;
}

/** One running kind: its toolkit config, its operations, and the way to fault it. */
export interface KindRun {
  name: KindName;
  transport: "http" | "sse" | "stdio";
  server: ServerConfig;
  read: Operation;
  write: Operation;
  /** Tool policies the kind needs (server-everything's writes are marked not idempotent). */
  tools?: Record<string, { idempotent?: boolean }>;
  /** Called before the fault, off the clock (starts the next process). */
  prepare(): Promise<void>;
  /** `onDead`: called once the old process is gone (HTTP kinds), while nothing listens. */
  fault(fault: Fault, downMs: number, onDead?: () => void): Promise<FaultTimes>;
  close(): Promise<void>;
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const gated = (bundle: string) => ["--import", GATE, bundle];
const ours: Operation = { tool: "read", args: (id, ms) => ({ id, ms }) };
const ourWrite: Operation = { tool: "write", args: (id, ms) => ({ id, ms }) };

/** server-everything's entry, found through its package (it has no exports map for dist/). */
function everythingEntry(): string {
  const require = createRequire(import.meta.url);
  return join(require.resolve("@modelcontextprotocol/server-everything/package.json"), "..", "dist", "index.js");
}

async function httpKind(name: KindName, args: string[], env: Record<string, string>, options: { stopSignal?: NodeJS.Signals; path?: string; transport?: "http" | "sse"; read?: Operation; write?: Operation; tools?: KindRun["tools"] } = {}): Promise<KindRun> {
  const port = await freePort();
  const server = new RestartableHttp(port, { command: process.execPath, args, env, stopSignal: options.stopSignal ?? "SIGTERM" });
  await server.start();
  const transport = options.transport ?? "http";
  return {
    name,
    transport,
    server: { transport, url: `http://127.0.0.1:${port}${options.path ?? "/mcp"}`, trustAnnotations: true },
    read: options.read ?? ours,
    write: options.write ?? ourWrite,
    ...(options.tools ? { tools: options.tools } : {}),
    prepare: () => server.prepare(),
    fault: (fault, downMs, onDead) => server.fault(fault, downMs, onDead),
    close: () => server.close(),
  };
}

/**
 * Starts one kind, its files in `dir`: `ledger` counts write executions; `bundles` are the
 * suite's servers, from bundleServers.
 */
export async function startKind(name: KindName, dir: string, ledger: string, bundles: Bundles): Promise<KindRun> {
  const env = { RESTART_LEDGER: ledger };
  switch (name) {
    case "v1-sessionful":
    case "v1-stateless":
      return httpKind(name, gated(bundles.v1Http), { ...env, RESTART_MODE: name === "v1-stateless" ? "stateless" : "sessionful" });
    case "v2-modern":
    case "v2-legacy-session":
      return httpKind(name, gated(bundles.v2Http), { ...env, RESTART_MODE: name === "v2-modern" ? "modern" : "legacy-session" });
    case "fastmcp-stateful":
    case "fastmcp-stateless":
      return httpKind(name, gated(bundles.fastmcpHttp), { ...env, RESTART_MODE: name === "fastmcp-stateless" ? "stateless" : "stateful" });
    case "everything-http":
    case "everything-sse": {
      const sse = name === "everything-sse";
      // Its writes are `echo` calls, counted by the preloaded ledger and marked not idempotent;
      // its reads are a short long-running operation (with progress), in flight at a fault.
      const args = ["--import", GATE, "--import", here("./servers/everythingLedger.mjs"), everythingEntry(), sse ? "sse" : "streamableHttp"];
      return httpKind(name, args, { ...env, RESTART_LEDGER_TOOL: "echo", RESTART_LEDGER_FIELD: "message" }, {
        // Its streamable HTTP entry stops on SIGINT; its SSE entry has no handler, so SIGINT ends it as Node does.
        stopSignal: "SIGINT",
        path: sse ? "/sse" : "/mcp",
        transport: sse ? "sse" : "http",
        read: { tool: "trigger-long-running-operation", args: (_id, ms) => ({ duration: ms / 1000, steps: 2 }) },
        write: { tool: "echo", args: (id) => ({ message: id }), instant: true },
        tools: { echo: { idempotent: false } },
      });
    }
    case "stdio-crashloop": {
      const pidFile = join(dir, "stdio.pid");
      const stdio = new RestartableStdio(pidFile, join(dir, "stdio.control"), bundles.stdio);
      return {
        name,
        transport: "stdio",
        server: { transport: "stdio", command: process.execPath, args: [bundles.stdio], env: { ...env, RESTART_PIDFILE: pidFile, RESTART_CONTROL: join(dir, "stdio.control") }, trustAnnotations: true },
        read: ours,
        write: ourWrite,
        prepare: async () => {},
        fault: (fault, downMs) => stdio.fault(fault, downMs),
        close: async () => {},
      };
    }
  }
}

/** The suite's own server entries, by file name. */
export type Entry = "v1Http" | "v2Http" | "fastmcpHttp" | "stdio";
export type Bundles = Record<Entry, string>;

/**
 * The suite's server entries bundled into plain JS in `dir` (esbuild comes with tsx): a server
 * process then costs a Node start, not a TypeScript loader start (1-3 s on a loaded machine),
 * which matters most for the stdio server, restarted by the toolkit after every crash.
 */
export async function bundleServers(dir: string): Promise<Bundles> {
  const { build, stop } = await import("esbuild");
  const entries: Entry[] = ["v1Http", "v2Http", "fastmcpHttp", "stdio"];
  await build({
    entryPoints: Object.fromEntries(entries.map((e) => [e, here(`./servers/${e}.ts`)])),
    outdir: dir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "silent",
    // fastmcp's schema adapter imports these only when a tool uses them, and none is installed.
    external: ["effect", "sury", "@valibot/to-json-schema"],
    // Bundled CommonJS dependencies may call require().
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  // The JS API keeps a service process running; leave none behind.
  await stop();
  return Object.fromEntries(entries.map((e) => [e, join(dir, `${e}.mjs`)])) as Bundles;
}
